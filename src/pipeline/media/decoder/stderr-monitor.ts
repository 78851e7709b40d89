// What the decoder reads in ffmpeg's stderr (pure: text in, signals out): the "Stream mapping:"
// line that says the input is open (readiness), the output stream line that names the frame
// size ffmpeg writes, and a bounded tail for error messages (docs/architecture.md §5).
import { StderrTail } from '../../../infra/stderr-tail';

/** Lines of stderr quoted in error messages. */
const ERROR_TAIL_LINES = 8;

/** Something ffmpeg's stderr told us. */
export type DecoderStderrSignal =
  /** ffmpeg has opened the input and set up its streams. */
  | { kind: 'ready' }
  /** The size of the raw frames ffmpeg writes, in px. */
  | { kind: 'output-size'; width: number; height: number };

/** Splits ffmpeg's stderr into lines, finds the decoder's signals and keeps the tail. */
export class DecoderStderrMonitor {
  private readonly tail = new StderrTail({ maxLines: ERROR_TAIL_LINES });
  private isInOutputBanner = false;

  /** Feeds a chunk of stderr; returns the signals in the lines it completed. */
  push(text: string): DecoderStderrSignal[] {
    const signals: DecoderStderrSignal[] = [];
    for (const line of this.tail.push(text)) {
      if (line.startsWith('Stream mapping:')) {
        signals.push({ kind: 'ready' });
      } else if (line.startsWith('Output #0')) {
        this.isInOutputBanner = true;
      } else if (this.isInOutputBanner) {
        const size = outputSizeOf(line);
        if (size !== null) {
          this.isInOutputBanner = false;
          signals.push({ kind: 'output-size', ...size });
        }
      }
    }
    return signals;
  }

  /** The last lines of stderr for an error message ('' when ffmpeg wrote nothing). */
  tailLines(): string {
    return this.tail.text();
  }

  /** ':\n<tail>' to end an error message with, or '.' when there is no tail. */
  tailSuffix(): string {
    const tail = this.tailLines();
    return tail === '' ? '.' : `:\n${tail}`;
  }
}

// The frame size of the output stream line (`Stream #0:0: Video: rawvideo (RGB[24] / …), rgb24,
// 64x48, …`), or null for any other line.
function outputSizeOf(line: string): { width: number; height: number } | null {
  const match = /^\s*Stream #0:0.*: Video: rawvideo\b.*?, (\d+)x(\d+)\b/.exec(line);
  return match ? { width: Number(match[1]), height: Number(match[2]) } : null;
}
