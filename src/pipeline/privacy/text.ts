// Small character tests shared by the PII detectors.
import type { PiiKind, PiiMatch } from '../../shared/domain/privacy';

/** True for an ASCII letter, digit or underscore at `index` (false outside the text). */
export function isWordCharAt(text: string, index: number): boolean {
  if (index < 0 || index >= text.length) {
    return false;
  }
  const code = text.charCodeAt(index);
  return (
    (code >= 48 && code <= 57) ||
    (code >= 65 && code <= 90) ||
    (code >= 97 && code <= 122) ||
    code === 95
  );
}

/** True for an ASCII digit at `index` (false outside the text). */
export function isDigitAt(text: string, index: number): boolean {
  if (index < 0 || index >= text.length) {
    return false;
  }
  const code = text.charCodeAt(index);
  return code >= 48 && code <= 57;
}

/** The match of `kind` covering `text[start, end)`. */
export function matchAt(text: string, kind: PiiKind, start: number, end: number): PiiMatch {
  return { kind, start, end, text: text.slice(start, end) };
}

/** Lower-cased text of the `length` characters before `index`. */
export function before(text: string, index: number, length: number): string {
  return text.slice(Math.max(0, index - length), index).toLowerCase();
}
