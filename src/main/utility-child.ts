// A utility process dressed as the part of a ChildProcess our process owners use (stdout, stderr,
// stdin, pid, kill, exitCode/signalCode, 'spawn'/'exit'/'close'/'error'), so the input hook's
// supervisor can run its child in Electron as it does under Node. A utility process has no stdin
// pipe: what is written to `stdin` goes as `{ type: 'cua:stdin', data }` messages to the child's
// process.parentPort, and ending it sends `{ type: 'cua:stdin-end' }`; the child feeds both to
// its stdin handling.
import { EventEmitter } from 'node:events';
import { finished, Writable } from 'node:stream';
import type { UtilityProcess } from 'electron';

/** A message carrying a chunk written to the child's stdin. */
export const STDIN_MESSAGE = 'cua:stdin';
/** The message saying the child's stdin has ended. */
export const STDIN_END_MESSAGE = 'cua:stdin-end';

/** Longest wait after the exit for the output to end before 'close', ms. */
const CLOSE_GRACE_MS = 2000;

/** What this adapter needs of a UtilityProcess. */
export type UtilityProcessLike = Pick<
  UtilityProcess,
  'pid' | 'stdout' | 'stderr' | 'postMessage' | 'kill' | 'on'
>;

/** A utility process with the ChildProcess surface of src/infra's process owners. */
export class UtilityChild extends EventEmitter {
  readonly stdin: Writable;
  readonly stdout: NodeJS.ReadableStream | null;
  readonly stderr: NodeJS.ReadableStream | null;
  exitCode: number | null = null;
  signalCode: NodeJS.Signals | null = null;
  private killedWith: NodeJS.Signals | null = null;

  constructor(
    private readonly child: UtilityProcessLike,
    /** Sends a signal to a pid (SIGKILL after a polite stop failed); default process.kill. */
    private readonly signalPid: (pid: number, signal: NodeJS.Signals) => void = (pid, signal) =>
      process.kill(pid, signal),
  ) {
    super();
    this.stdout = child.stdout;
    this.stderr = child.stderr;
    this.stdin = new Writable({
      decodeStrings: false,
      write: (chunk: Buffer | string, _encoding, callback) => {
        this.post({ type: STDIN_MESSAGE, data: chunk.toString() }, callback);
      },
      final: (callback) => this.post({ type: STDIN_END_MESSAGE }, callback),
    });
    // the parent's stdin errors are not the child's failure (a write after exit)
    this.stdin.on('error', () => undefined);
    child.on('spawn', () => this.emit('spawn'));
    child.on('error', (type, location) =>
      this.emit('error', new Error(`utility process failed: ${type} at ${location}`)),
    );
    child.on('exit', (code) => this.onExit(code));
  }

  /** Process id (undefined before it spawned and after it exited). */
  get pid(): number | undefined {
    return this.child.pid;
  }

  /**
   * Ends the child. UtilityProcess.kill() is a SIGTERM (TerminateProcess on Windows); SIGKILL,
   * the last step of a stop, is sent to the pid directly.
   */
  kill(signal: NodeJS.Signals = 'SIGTERM'): boolean {
    if (this.exitCode !== null) {
      return false;
    }
    this.killedWith = signal;
    const pid = this.child.pid;
    if (signal === 'SIGKILL' && pid !== undefined) {
      try {
        this.signalPid(pid, 'SIGKILL');
        return true;
      } catch {
        return false;
      }
    }
    return this.child.kill();
  }

  private post(message: unknown, callback: (error?: Error | null) => void): void {
    try {
      this.child.postMessage(message);
      callback();
    } catch (e) {
      callback(e as Error);
    }
  }

  // 'exit' at once; 'close' once stdout and stderr have ended too, as with a ChildProcess.
  private onExit(code: number): void {
    this.exitCode = code;
    if (this.killedWith !== null && code !== 0) {
      this.signalCode = this.killedWith;
    }
    this.stdin.destroy();
    this.emit('exit', code, this.signalCode);
    const streams = [this.stdout, this.stderr].filter(
      (s): s is NodeJS.ReadableStream => s !== null,
    );
    let open = streams.length;
    let isClosed = false;
    const close = (): void => {
      if (!isClosed) {
        isClosed = true;
        clearTimeout(fallback);
        this.emit('close', code, this.signalCode);
      }
    };
    // an output nobody reads never ends: 'close' comes anyway after a grace
    const fallback = setTimeout(close, CLOSE_GRACE_MS);
    fallback.unref();
    if (open === 0) {
      close();
      return;
    }
    for (const stream of streams) {
      finished(stream, () => {
        open -= 1;
        if (open === 0) {
          close();
        }
      });
    }
  }
}
