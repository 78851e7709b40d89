// The helper side of the accessibility helper protocol (docs/helper-protocol.md): prints the hello
// line, reads requests from stdin one line at a time, runs them one after another (the OS calls
// behind them are synchronous anyway), prints one response per request and lets the helper emit
// events. It exits on the shutdown line or stdin EOF (§2), so a helper never outlives its parent.
// Used by the macOS and Windows helper programs; tested with in-memory streams.
import type { Readable, Writable } from 'node:stream';
import type { HelperMethod } from '../../axtree/platform/helper-protocol';
import { HELPER_PROTOCOL_VERSION } from '../../axtree/platform/helper-protocol';

/** A request handler: params in, a JSON-serialisable result out (or a thrown error). */
export type HelperHandler = (params: Record<string, unknown>) => unknown;

/** Options of {@link serveHelper}. */
export type ServeHelperOptions = {
  /** Helper name for the hello line, e.g. `ax-helper`. */
  name: string;
  /** OS of the helper, e.g. `darwin`. */
  os: string;
  /** Capabilities working right now (docs/helper-protocol.md §2). */
  capabilities: readonly string[];
  /** One handler per implemented method. */
  handlers: Partial<Record<HelperMethod, HelperHandler>>;
  /** Request lines (process.stdin). */
  input: Readable;
  /** Protocol lines (process.stdout). */
  output: Writable;
  /** Helper's clock in seconds for event lines; default process uptime. */
  clockSec?: () => number;
  /** Process id for the hello line; default this process's. */
  pid?: number;
};

/** A running helper loop. */
export type ServedHelper = {
  /** Prints an event line `{type:'event', event, t, …fields}`. */
  emit(event: string, fields: Record<string, unknown>): void;
  /** Resolves when the shutdown line or stdin EOF arrived and every request was answered. */
  done: Promise<'shutdown' | 'eof'>;
};

/** An error with a protocol code (docs/helper-protocol.md §4), thrown by handlers. */
export class HelperFailure extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

// Starts the protocol loop on `input`/`output`; the caller exits the process when `done` settles.
export function serveHelper(options: ServeHelperOptions): ServedHelper {
  const { input, output } = options;
  const clockSec = options.clockSec ?? ((): number => process.uptime());
  const write = (value: unknown): void => {
    output.write(`${JSON.stringify(value)}\n`);
  };
  write({
    type: 'hello',
    protocol: HELPER_PROTOCOL_VERSION,
    capabilities: [...options.capabilities],
    helper: { name: options.name, os: options.os, pid: options.pid ?? process.pid },
  });

  let queue: Promise<void> = Promise.resolve();
  let buffered = '';
  let finished = false;
  let resolveDone: (how: 'shutdown' | 'eof') => void = () => undefined;
  const done = new Promise<'shutdown' | 'eof'>((resolve) => {
    resolveDone = resolve;
  });

  const finish = (how: 'shutdown' | 'eof'): void => {
    if (finished) {
      return;
    }
    finished = true;
    input.off('data', onData);
    input.off('end', onEnd);
    void (async (): Promise<void> => {
      await queue;
      resolveDone(how);
    })();
  };

  const answer = async (id: number, method: string, params: unknown): Promise<void> => {
    const handler = options.handlers[method as HelperMethod];
    if (!handler) {
      write({
        id,
        ok: false,
        error: { code: 'HELPER_UNKNOWN_METHOD', message: `no method '${method}' in this helper` },
      });
      return;
    }
    try {
      const result = await handler(isRecord(params) ? params : {});
      write({ id, ok: true, result: result ?? null });
    } catch (error) {
      const code = error instanceof HelperFailure ? error.code : 'HELPER_REQUEST_FAILED';
      const message = error instanceof Error ? error.message : String(error);
      write({ id, ok: false, error: { code, message } });
    }
  };

  const onLine = (line: string): void => {
    if (line.trim() === '' || finished) {
      return;
    }
    let request: unknown;
    try {
      request = JSON.parse(line);
    } catch {
      process.stderr.write(`helper: ignoring a request line that is not JSON\n`);
      return;
    }
    if (!isRecord(request)) {
      return;
    }
    if (request.type === 'shutdown') {
      finish('shutdown');
      return;
    }
    const { id, method } = request;
    if (typeof id !== 'number' || !Number.isInteger(id) || typeof method !== 'string') {
      process.stderr.write(`helper: ignoring a request without an integer id and a method\n`);
      return;
    }
    const previous = queue;
    queue = (async (): Promise<void> => {
      await previous;
      await answer(id, method, request.params);
    })();
  };

  function onData(chunk: Buffer | string): void {
    buffered += chunk.toString();
    let newline = buffered.indexOf('\n');
    while (newline !== -1) {
      const line = buffered.slice(0, newline).replace(/\r$/, '');
      buffered = buffered.slice(newline + 1);
      onLine(line);
      newline = buffered.indexOf('\n');
    }
  }
  function onEnd(): void {
    if (buffered !== '') {
      onLine(buffered);
      buffered = '';
    }
    finish('eof');
  }
  input.on('data', onData);
  input.on('end', onEnd);

  return {
    emit(event, fields) {
      if (!finished) {
        write({ type: 'event', event, t: clockSec(), ...fields });
      }
    },
    done,
  };
}
