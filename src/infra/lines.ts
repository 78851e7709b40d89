// Line handling for child-process output (docs/architecture.md §5): one splitter for streamed
// chunks and one helper that quotes the last lines of a text in error messages.

/** Splits a text stream into lines (LF, CRLF or bare CR), keeping a partial last line. */
export class LineSplitter {
  private pending = '';
  private isAfterCr = false;

  /** Feeds a chunk; returns the complete lines it finished (without terminators). */
  push(chunk: string): string[] {
    // a CRLF split across two chunks must not yield an extra empty line
    const text = this.isAfterCr && chunk.startsWith('\n') ? chunk.slice(1) : chunk;
    if (text === '') {
      return [];
    }
    this.isAfterCr = text.endsWith('\r');
    const parts = (this.pending + text).split(/\r\n|\n|\r/);
    this.pending = parts.pop() ?? '';
    return parts;
  }

  /** The unterminated last line so far ('' when none), without consuming it. */
  get partial(): string {
    return this.pending;
  }

  /** Returns the unterminated last line (if any) and resets. */
  flush(): string[] {
    const rest = this.pending;
    this.pending = '';
    this.isAfterCr = false;
    return rest === '' ? [] : [rest];
  }
}

/** The last `lineCount` non-empty lines of `text`, right-trimmed and joined by newlines. */
export function tailLines(text: string, lineCount: number): string {
  if (lineCount <= 0) {
    return '';
  }
  return text
    .split(/\r?\n|\r/)
    .map((line) => line.trimEnd())
    .filter((line) => line.length > 0)
    .slice(-lineCount)
    .join('\n');
}
