// Masked excerpts of matches: what a scan report may show of a finding (issue 14).
import type { PiiMatch } from '../../shared/domain/privacy';

/** Context characters kept on each side of a match by default. */
export const DEFAULT_EXCERPT_CONTEXT = 20;

/** The match's text with all but at most its first and last two characters replaced by `*`. */
export function maskText(value: string): string {
  const chars = [...value];
  if (chars.length < 8) {
    return '*'.repeat(chars.length);
  }
  return chars.slice(0, 2).join('') + '*'.repeat(chars.length - 4) + chars.slice(-2).join('');
}

function isLowSurrogate(text: string, index: number): boolean {
  const code = text.charCodeAt(index);
  return code >= 0xdc00 && code <= 0xdfff;
}

/**
 * The text around `match` (up to `context` characters each side, cut at line breaks) with the
 * match masked; `…` marks where the surrounding text was cut.
 */
export function maskExcerpt(
  text: string,
  match: PiiMatch,
  context: number = DEFAULT_EXCERPT_CONTEXT,
): string {
  const start = Math.max(0, Math.min(match.start, text.length));
  const end = Math.max(start, Math.min(match.end, text.length));
  let left = Math.max(0, start - context);
  // cut at the last line break before the match (searched within the context only)
  const before = text.slice(left, start);
  const lineBreak = Math.max(before.lastIndexOf('\n'), before.lastIndexOf('\r'));
  if (lineBreak >= 0) {
    left += lineBreak + 1;
  }
  // never start in the middle of a surrogate pair
  if (left > 0 && left < start && isLowSurrogate(text, left)) {
    left++;
  }
  let right = Math.min(text.length, end + context);
  const after = text.slice(end, right);
  const breaks = [after.indexOf('\n'), after.indexOf('\r')].filter((i) => i >= 0);
  if (breaks.length > 0) {
    right = end + Math.min(...breaks);
  }
  if (right < text.length && right > end && isLowSurrogate(text, right)) {
    right--;
  }
  const head = (left > 0 ? '…' : '') + text.slice(left, start);
  const tail = text.slice(end, right) + (right < text.length ? '…' : '');
  return head + maskText(text.slice(start, end)) + tail;
}
