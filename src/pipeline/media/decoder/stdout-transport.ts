// Frames from ffmpeg's stdout: the fallback transport where there are no named pipes (Windows)
// or mkfifo failed. Stdout hands us chunks of its own size, so each frame is copied together.
import type { FrameSink } from './frame-sink';

// Reads `stdout` into frames and hands each to the sink; resolves with the bytes of an
// unfinished last frame (0 when the sink stopped the reading or the pipe broke).
export async function readFramesFromStream(
  stdout: NodeJS.ReadableStream,
  sink: FrameSink,
): Promise<number> {
  let current: Buffer | null = null;
  let filled = 0;
  try {
    for await (const chunk of stdout as AsyncIterable<Buffer>) {
      sink.onData();
      let offset = 0;
      while (offset < chunk.length) {
        current ??= sink.acquire();
        const count = Math.min(sink.frameBytes - filled, chunk.length - offset);
        chunk.copy(current, filled, offset, offset + count);
        filled += count;
        offset += count;
        if (filled < sink.frameBytes) {
          continue;
        }
        const frameBuffer: Buffer = current;
        current = null;
        filled = 0;
        if (await sink.deliver(frameBuffer)) {
          return 0;
        }
      }
    }
  } catch {
    // a broken pipe after a kill; the exit status decides what happened
    return 0;
  }
  return filled;
}
