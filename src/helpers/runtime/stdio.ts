// Where a helper's protocol lines come from and go to. A child process reads stdin and writes
// stdout; in the desktop app the helper runs in Electron's utility process, which has no stdin
// pipe: the app sends stdin as `{ type: 'cua:stdin', data }` messages on process.parentPort and
// its end as `{ type: 'cua:stdin-end' }` (src/main/utility-child.ts). Under Wine, process.stdin
// and process.stdout on Unix pipes throw EBADF, while plain reads and writes of fds 0 and 1 work.
import { createReadStream, createWriteStream } from 'node:fs';
import { PassThrough, type Readable, type Writable } from 'node:stream';

/** Electron's parentPort, as much of it as a helper uses. */
type ParentPort = { on(event: 'message', listener: (message: { data: unknown }) => void): void };

// A Readable of the request lines: parentPort messages, stdin, or fd 0.
export function helperInput(
  parentPort: ParentPort | undefined = (process as { parentPort?: ParentPort }).parentPort,
): Readable {
  if (parentPort) {
    const input = new PassThrough();
    parentPort.on('message', ({ data }) => {
      const message = data as { type?: unknown; data?: unknown } | null;
      if (message?.type === 'cua:stdin' && typeof message.data === 'string') {
        input.write(message.data);
      } else if (message?.type === 'cua:stdin-end') {
        input.end();
      }
    });
    return input;
  }
  try {
    return process.stdin;
  } catch {
    return createReadStream('', { fd: 0 });
  }
}

// A Writable for the protocol lines: stdout, or fd 1.
export function helperOutput(): Writable {
  try {
    return process.stdout;
  } catch {
    return createWriteStream('', { fd: 1 });
  }
}
