// The parent side of the replay driver (docs/replay.md §4): starts driver-child.ts through the
// child launcher with the display to drive in its environment, sends requests, matches responses
// and turns the child's death (an X error ends libnut's process) into an AppError that quotes
// its stderr.
import { AppError } from '../shared/errors';
import { detectChildLauncher, type ChildLauncher } from '../infra/child-launcher';
import { LineSplitter, tailLines } from '../infra/lines';
import { spawnChild, type ChildProcess } from '../infra/spawn-child';
import { stopChild } from '../infra/stop-child';
import { type Thumbnail } from '../pipeline/replay/screen-diff';
import {
  parseDriverResponse,
  type DriverButton,
  type DriverOp,
  type DriverRequest,
  type DriverValues,
  type WireThumbnail,
} from './driver-protocol';

/** What the replay runner asks of a driver (the nut-js child, or a fake in unit tests). */
export interface ReplayDriver {
  /** Screen size in physical px and the pointer. */
  hello(): Promise<DriverValues['hello']>;
  pointer(): Promise<{ x: number; y: number }>;
  /** Grabs the screen; returns its gray thumbnail `thumbnailWidth` wide. */
  grab(thumbnailWidth: number): Promise<{ thumbnail: Thumbnail; grabMs: number }>;
  /** Saves the last grab as a PNG. */
  saveLastGrab(file: string): Promise<void>;
  move(x: number, y: number): Promise<void>;
  button(button: DriverButton, down: boolean): Promise<void>;
  click(button: DriverButton, count: number): Promise<void>;
  scroll(dx: number, dy: number): Promise<void>;
  type(text: string): Promise<void>;
  keys(keys: readonly string[], down: boolean): Promise<void>;
  close(): Promise<void>;
}

/** Options of {@link startDriverProcess}. */
export type DriverProcessOptions = {
  /** X display to drive (`:99`); set as DISPLAY in the child's environment. */
  display?: string;
  /** Base environment; default `process.env`. */
  env?: NodeJS.ProcessEnv;
  /** Starts the entry; default {@link detectChildLauncher}. */
  launcher?: ChildLauncher;
  /** Limit for one request (ms); default 15 000. */
  requestTimeoutMs?: number;
  /** Limit for the child to answer `hello` (ms; loading nut-js takes a while); default 20 000. */
  startTimeoutMs?: number;
};

/** A wire thumbnail as the screen-diff module's type. */
export function fromWireThumbnail(t: WireThumbnail): Thumbnail {
  const bytes = Buffer.from(t.data, 'base64');
  const copy = new Uint8Array(bytes.byteLength);
  copy.set(bytes);
  return {
    width: t.width,
    height: t.height,
    sourceWidth: t.sourceWidth,
    sourceHeight: t.sourceHeight,
    data: new Float32Array(copy.buffer, 0, copy.byteLength / 4),
  };
}

type Pending = { resolve: (v: unknown) => void; reject: (e: Error) => void; op: DriverOp };

/** The nut-js driver child. */
class DriverProcess implements ReplayDriver {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private stderr = '';
  private exitError: AppError | null = null;
  private readonly exited: Promise<void>;

  constructor(
    private readonly child: ChildProcess,
    private readonly options: DriverProcessOptions,
  ) {
    const splitter = new LineSplitter();
    child.stdout!.setEncoding('utf8');
    child.stdout!.on('data', (chunk: string) => {
      for (const line of splitter.push(chunk)) {
        const response = parseDriverResponse(line);
        const waiter = response ? this.pending.get(response.id) : undefined;
        if (!response || !waiter) {
          continue;
        }
        this.pending.delete(response.id);
        if (response.ok) {
          waiter.resolve(response.value);
        } else {
          waiter.reject(
            new AppError(
              'REPLAY_DRIVER_FAILED',
              `replay driver: ${waiter.op} failed: ${response.error}`,
            ),
          );
        }
      }
    });
    child.stderr!.setEncoding('utf8');
    child.stderr!.on('data', (chunk: string) => {
      this.stderr = (this.stderr + chunk).slice(-16_384);
    });
    this.exited = new Promise((resolve) => {
      child.once('error', (error) => {
        this.fail(
          new AppError(
            'REPLAY_DRIVER_FAILED',
            `replay driver could not start: ${error.message}`,
            undefined,
            'reinstall cua-annotator (npm ci) so that @nut-tree-fork/nut-js is present',
          ),
        );
        resolve();
      });
      child.once('close', (code, signal) => {
        const tail = tailLines(this.stderr, 5);
        this.fail(
          new AppError(
            'REPLAY_DRIVER_FAILED',
            `replay driver exited (${signal ?? `code ${String(code)}`})` +
              (tail ? `: ${tail}` : ''),
            { code, signal },
            'check that the display exists and accepts connections (xdpyinfo -display …)',
          ),
        );
        resolve();
      });
    });
  }

  private fail(error: AppError): void {
    this.exitError ??= error;
    for (const [id, waiter] of this.pending) {
      this.pending.delete(id);
      waiter.reject(error);
    }
  }

  request<K extends DriverOp>(
    body: Omit<Extract<DriverRequest, { op: K }>, 'id'> & { op: K },
    timeoutMs = this.options.requestTimeoutMs ?? 15_000,
  ): Promise<DriverValues[K]> {
    if (this.exitError) {
      return Promise.reject(this.exitError);
    }
    const id = this.nextId++;
    return new Promise<DriverValues[K]>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(
          new AppError(
            'REPLAY_DRIVER_FAILED',
            `replay driver: no answer to ${body.op} within ${timeoutMs} ms`,
          ),
        );
      }, timeoutMs);
      this.pending.set(id, {
        op: body.op,
        resolve: (v) => {
          clearTimeout(timer);
          resolve(v as DriverValues[K]);
        },
        reject: (e) => {
          clearTimeout(timer);
          reject(e);
        },
      });
      this.child.stdin!.write(`${JSON.stringify({ ...body, id })}\n`);
    });
  }

  hello() {
    return this.request({ op: 'hello' }, this.options.startTimeoutMs ?? 20_000);
  }
  pointer() {
    return this.request({ op: 'pointer' });
  }
  async grab(thumbnailWidth: number) {
    const v = await this.request({ op: 'grab', thumbnailWidth });
    return { thumbnail: fromWireThumbnail(v.thumbnail), grabMs: v.grabMs };
  }
  async saveLastGrab(file: string) {
    await this.request({ op: 'save', path: file });
  }
  async move(x: number, y: number) {
    await this.request({ op: 'move', x, y });
  }
  async button(button: DriverButton, down: boolean) {
    await this.request({ op: 'button', button, down });
  }
  async click(button: DriverButton, count: number) {
    await this.request({ op: 'click', button, count });
  }
  async scroll(dx: number, dy: number) {
    await this.request({ op: 'scroll', dx, dy });
  }
  async type(text: string) {
    await this.request({ op: 'type', text }, 15_000 + text.length * 100);
  }
  async keys(keys: readonly string[], down: boolean) {
    await this.request({ op: 'keys', keys: [...keys], down });
  }

  async close(): Promise<void> {
    await stopChild(this.child, {
      exited: this.exited,
      request: () => {
        if (this.exitError || !this.child.stdin!.writable) {
          return false;
        }
        this.child.stdin!.end(`${JSON.stringify({ id: 0, op: 'quit' })}\n`);
        return true;
      },
      requestGraceMs: 2000,
    });
  }
}

/** Starts the driver child on `options.display` and waits for its `hello`. */
export async function startDriverProcess(
  options: DriverProcessOptions = {},
): Promise<{ driver: ReplayDriver; hello: DriverValues['hello'] }> {
  const launcher = options.launcher ?? detectChildLauncher();
  const env = { ...(options.env ?? process.env) };
  if (options.display !== undefined) {
    env.DISPLAY = options.display;
  }
  let child: ChildProcess;
  if (launcher.fork) {
    child = launcher.fork('replay-driver', [], env) as unknown as ChildProcess;
  } else {
    const { file, args } = launcher.command('replay-driver');
    child = spawnChild(file, args, { env, stdio: ['pipe', 'pipe', 'pipe'] });
  }
  const driver = new DriverProcess(child, options);
  try {
    return { driver, hello: await driver.hello() };
  } catch (error) {
    await driver.close().catch(() => undefined);
    throw error;
  }
}
