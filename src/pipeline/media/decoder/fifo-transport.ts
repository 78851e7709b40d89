// Frames through a named pipe: ffmpeg writes it, we read it with a Socket whose reads land in our
// frame buffers. Stdout would hand us ~50 freshly allocated chunks per 720p frame, and their
// garbage collection and copying cost more CPU than the RGB conversion itself.
import { closeSync, constants as fsConstants, openSync } from 'node:fs';
import { Socket } from 'node:net';
import type { OnReadOpts, SocketConstructorOpts } from 'node:net';
import path from 'node:path';
import { runCommand } from '../../../infra/run-command';
import type { FrameSink } from './frame-sink';

/** A named pipe open for reading, with our own write end held open. */
export type FrameFifo = {
  /** Path of the pipe (ffmpeg's output file). */
  path: string;
  /** Our non-blocking read end. */
  readFd: number;
  /** Closes our own write end (held so the pipe does not report its end before ffmpeg opens it). */
  closeWriter: () => void;
};

// A named pipe in `dir`, open for reading; null where there are none (Windows) or mkfifo fails
// (frames then come through stdout).
export async function openFrameFifo(dir: string): Promise<FrameFifo | null> {
  if (process.platform === 'win32') {
    return null;
  }
  const fifoPath = path.join(dir, 'frames.fifo');
  if (!(await makeFifo(fifoPath))) {
    return null;
  }
  let readFd: number | null = null;
  try {
    readFd = openSync(fifoPath, fsConstants.O_RDONLY | fsConstants.O_NONBLOCK);
    const writeFd = openSync(fifoPath, fsConstants.O_WRONLY | fsConstants.O_NONBLOCK);
    let isOpen = true;
    return {
      path: fifoPath,
      readFd,
      closeWriter: () => {
        if (isOpen) {
          isOpen = false;
          closeSync(writeFd);
        }
      },
    };
  } catch {
    if (readFd !== null) {
      closeSync(readFd);
    }
    return null;
  }
}

// Reads frames from the named pipe straight into frame buffers (no chunks, no copies) and hands
// each to the sink; resolves with the bytes of an unfinished last frame (0 when the sink stopped
// the reading or the pipe failed).
export function readFramesFromFifo(fifo: FrameFifo, sink: FrameSink): Promise<number> {
  return new Promise<number>((resolve) => {
    let current: Buffer | null = null;
    let filled = 0;
    let isFinished = false;
    const finish = (leftover: number): void => {
      if (!isFinished) {
        isFinished = true;
        resolve(leftover);
      }
    };
    // `onread` works for a Socket made from an fd (Node ≥ 12) but is typed for connect() only
    const options: SocketConstructorOpts & { onread: OnReadOpts } = {
      fd: fifo.readFd,
      readable: true,
      writable: false,
      onread: {
        buffer: () => {
          current ??= sink.acquire();
          return current.subarray(filled);
        },
        callback: (bytes: number): boolean => {
          sink.onData();
          filled += bytes;
          if (filled < sink.frameBytes || current === null) {
            return true;
          }
          const frame: Buffer = current;
          current = null;
          filled = 0;
          void (async () => {
            if (await sink.deliver(frame)) {
              // closing the reader makes ffmpeg's next write fail: it cannot block
              socket.destroy();
              finish(0);
            } else {
              socket.resume();
            }
          })();
          return false; // paused until the frame is delivered
        },
      },
    };
    const socket = new Socket(options);
    socket.once('end', () => finish(filled));
    socket.once('error', () => finish(0));
    socket.once('close', () => finish(filled));
  });
}

// mkfifo -m 600 `fifoPath`; false when it cannot run or fails.
async function makeFifo(fifoPath: string): Promise<boolean> {
  try {
    const result = await runCommand('mkfifo', ['-m', '600', fifoPath], { timeoutMs: 10_000 });
    return result.code === 0;
  } catch {
    return false;
  }
}
