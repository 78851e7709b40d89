// An in-memory HelperChannel that replays a recorded helper exchange (a transcript), for contract
// tests of the protocol client (src/axtree/platform/native-helper.ts) without a process.
//
// Transcript files (transcripts/*.jsonl) hold one JSON object per line:
//   {"from":"helper","line":{…}}     a line the helper printed (hello, response, event)
//   {"from":"recorder","line":{…}}   a request line the recorder must write at this point
//   {"run":N}                        a new helper process starts here (a restart)
//   {"note":"…"}                     a comment
// The channel prints the helper lines up to the next recorder line when it is opened and after
// each request it receives, all in one go (as one stdout chunk would bring them). A request that
// differs from the transcript's is recorded as a mismatch; a recorder line followed directly by
// another recorder line is a request the helper never answers (a hung helper).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import type { HelperChannel, HelperExit } from '../../../src/axtree/platform/native-helper';
import { REPO_ROOT } from '../../helpers/paths';

/** One step of a transcript. */
export type TranscriptEntry =
  | { from: 'helper'; line: unknown }
  | { from: 'recorder'; line: unknown }
  | { run: number }
  | { note: string };

/** The runs of a transcript file (one per helper process), notes left out. */
export function loadTranscript(name: string): TranscriptEntry[][] {
  const text = readFileSync(
    path.join(REPO_ROOT, 'tests/axtree/platform/transcripts', name),
    'utf8',
  );
  const runs: TranscriptEntry[][] = [[]];
  for (const [i, line] of text.split('\n').entries()) {
    if (line.trim() === '') {
      continue;
    }
    let entry: TranscriptEntry;
    try {
      entry = JSON.parse(line) as TranscriptEntry;
    } catch {
      throw new Error(`${name}:${i + 1}: not JSON`);
    }
    if ('run' in entry) {
      if ((runs.at(-1) as TranscriptEntry[]).length > 0) {
        runs.push([]);
      }
    } else if (!('note' in entry)) {
      (runs.at(-1) as TranscriptEntry[]).push(entry);
    }
  }
  return runs;
}

/** Replays one run of a transcript. */
export class TranscriptChannel implements HelperChannel {
  readonly name: string;
  /** Requests that differed from the transcript (expected vs written). */
  readonly mismatches: { expected: unknown; written: unknown }[] = [];
  /** Lines the recorder wrote, parsed. */
  readonly written: unknown[] = [];
  private next = 0;
  private readonly lineListeners: ((line: string) => void)[] = [];
  private readonly exitListeners: ((exit: HelperExit) => void)[] = [];
  private isClosed = false;
  isOpened = false;

  constructor(
    private readonly entries: readonly TranscriptEntry[],
    name = 'transcript',
  ) {
    this.name = name;
  }

  /** True when every entry of the run was replayed. */
  get isFinished(): boolean {
    return this.next >= this.entries.length;
  }

  async open(): Promise<void> {
    this.isOpened = true;
    await Promise.resolve();
    this.printHelperLines();
  }

  write(line: string): void {
    if (this.isClosed) {
      return;
    }
    const written: unknown = JSON.parse(line);
    this.written.push(written);
    const entry = this.entries[this.next];
    if (entry === undefined || !('from' in entry) || entry.from !== 'recorder') {
      this.mismatches.push({ expected: entry ?? null, written });
      return;
    }
    if (!isDeepStrictEqual(entry.line, written)) {
      this.mismatches.push({ expected: entry.line, written });
    }
    this.next += 1;
    // answer asynchronously, as a process would
    setImmediate(() => this.printHelperLines());
  }

  onLine(listener: (line: string) => void): void {
    this.lineListeners.push(listener);
  }

  onExit(listener: (exit: HelperExit) => void): void {
    this.exitListeners.push(listener);
  }

  async close(): Promise<void> {
    if (this.isClosed || !this.isOpened) {
      return;
    }
    this.isClosed = true;
    await Promise.resolve();
    for (const listener of this.exitListeners) {
      listener({ code: 0, signal: null, stderrTail: '', isExpected: true });
    }
  }

  private printHelperLines(): void {
    const lines: string[] = [];
    for (let entry = this.entries[this.next]; entry !== undefined;) {
      if (!('from' in entry) || entry.from !== 'helper') {
        break;
      }
      lines.push(JSON.stringify(entry.line));
      this.next += 1;
      entry = this.entries[this.next];
    }
    for (const line of lines) {
      if (this.isClosed) {
        return;
      }
      for (const listener of this.lineListeners) {
        listener(line);
      }
    }
  }
}
