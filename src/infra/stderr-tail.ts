// Bounded keepers for child-process output (docs/architecture.md §5): the tail of stderr (by
// bytes or by lines) for error messages, and the head of stdout for one-shot commands.
import { LineSplitter } from './lines';

/** Keeps the last `limit` bytes written to it; {@link text} starts at a line boundary when cut. */
export class TailBuffer {
  private chunks: Buffer[] = [];
  private size = 0;
  /** True once anything was dropped from the front. */
  isTruncated = false;

  constructor(private readonly limit: number) {}

  /** Appends a chunk, dropping the oldest bytes beyond the limit. */
  push(chunk: Buffer | string): void {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    this.chunks.push(bytes);
    this.size += bytes.length;
    while (this.size > this.limit && this.chunks.length > 0) {
      const first = this.chunks[0] as Buffer;
      const excess = this.size - this.limit;
      this.isTruncated = true;
      if (first.length <= excess) {
        this.chunks.shift();
        this.size -= first.length;
      } else {
        this.chunks[0] = first.subarray(excess);
        this.size -= excess;
      }
    }
  }

  /** The kept bytes as UTF-8; when cut, the partial first line is dropped. */
  text(): string {
    const all = Buffer.concat(this.chunks).toString('utf8');
    if (!this.isTruncated) {
      return all;
    }
    // drop the partial first line (and any half-cut UTF-8 sequence with it)
    const newline = all.indexOf('\n');
    return newline >= 0 ? all.slice(newline + 1) : all;
  }
}

/** Keeps the first `limit` bytes written to it. */
export class HeadBuffer {
  private chunks: Buffer[] = [];
  private size = 0;
  /** True once anything beyond the limit was dropped. */
  isTruncated = false;

  constructor(private readonly limit: number) {}

  /** Appends as much of `chunk` as still fits. */
  push(chunk: Buffer | string): void {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    const room = this.limit - this.size;
    if (room <= 0) {
      this.isTruncated ||= bytes.length > 0;
      return;
    }
    const kept = bytes.length > room ? bytes.subarray(0, room) : bytes;
    this.isTruncated ||= kept.length < bytes.length;
    this.chunks.push(kept);
    this.size += kept.length;
  }

  /** The kept bytes as UTF-8. */
  text(): string {
    return Buffer.concat(this.chunks).toString('utf8');
  }
}

/** Options of {@link StderrTail}. */
export type StderrTailOptions = {
  /** Lines kept (the newest); at least 1. */
  maxLines: number;
  /** Keep empty / whitespace-only lines too; default false. */
  isKeepingBlankLines?: boolean;
};

/**
 * The last N lines of a child's stderr, fed chunk by chunk (a partial last line is held until
 * its newline or {@link lines}); every line is right-trimmed.
 */
export class StderrTail {
  private readonly splitter = new LineSplitter();
  private readonly kept: string[] = [];
  private readonly maxLines: number;

  constructor(private readonly options: StderrTailOptions) {
    this.maxLines = Math.max(1, Math.floor(options.maxLines));
  }

  /** Feeds a chunk of output; returns the complete lines it finished (before filtering). */
  push(chunk: Buffer | string): string[] {
    const lines = this.splitter.push(typeof chunk === 'string' ? chunk : chunk.toString('utf8'));
    for (const line of lines) {
      this.pushLine(line);
    }
    return lines;
  }

  /** Adds one already-split line (e.g. a note such as "spawn error: …"). */
  pushLine(line: string): void {
    const trimmed = line.trimEnd();
    if (trimmed === '' && this.options.isKeepingBlankLines !== true) {
      return;
    }
    this.kept.push(trimmed);
    if (this.kept.length > this.maxLines) {
      this.kept.splice(0, this.kept.length - this.maxLines);
    }
  }

  /** The kept lines, oldest first, including an unterminated last line (not consumed). */
  lines(): string[] {
    const pending = this.peekPending();
    const all = pending === null ? [...this.kept] : [...this.kept, pending];
    return all.slice(-this.maxLines);
  }

  /** {@link lines} joined by newlines. */
  text(): string {
    return this.lines().join('\n');
  }

  private peekPending(): string | null {
    if (this.splitter.partial === '') {
      return null;
    }
    const trimmed = this.splitter.partial.trimEnd();
    return trimmed === '' && this.options.isKeepingBlankLines !== true ? null : trimmed;
  }
}
