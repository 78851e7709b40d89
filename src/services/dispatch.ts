// The one dispatcher every host binds (IPC, HTTP): method name + payload in, Result envelope out,
// never a throw. Unknown method → UNKNOWN_METHOD; payload fails its validator → INVALID_PAYLOAD
// naming the field; AppError → its code; an OS or SQLite failure (disk full, database locked or
// damaged, bad path) → its code from shared/system-error.ts with a fix; anything else → INTERNAL.
// Stacks are logged, never sent.
//
// Writes that find the database locked by another process wait here without blocking the event
// loop: each attempt waits at most BUSY_ATTEMPT_MS inside SQLite, then the call sleeps and tries
// again (one waiting call per services instance at a time) until BUSY_TOTAL_MS have passed.
import { isApiMethod, METHOD_VALIDATORS, type ApiMethod } from '../shared/contract';
import { isAppError, type AppError } from '../shared/errors';
import { err, ok, type Result } from '../shared/result';
import { classifySystemError, isBusyError } from '../shared/system-error';
import { withBusyTimeout } from '../store';
import type { ServiceContext } from './context';
import { handlers } from './handlers';

type AnyHandler = (input: unknown, ctx: ServiceContext) => Promise<unknown>;

/** Longest one attempt blocks the event loop waiting for another process's write lock, ms. */
export const BUSY_ATTEMPT_MS = 20;
/** Longest a call keeps retrying a locked database before answering DB_BUSY, ms. */
export const BUSY_TOTAL_MS = 30_000;
/** Longest pause between attempts, ms. */
const BUSY_MAX_PAUSE_MS = 40;

/**
 * Methods whose handler writes in one transaction after its reads, synchronously: when that
 * transaction finds the lock taken nothing was written, so the whole call can run again.
 */
const RETRY_ON_BUSY: ReadonlySet<ApiMethod> = new Set<ApiMethod>([
  'recordings:update-task',
  'edits:apply',
  'edits:undo',
  'edits:redo',
  'labels:save',
  'reviews:set-status',
]);

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

// Runs a retry-safe handler, re-running it while the database is locked by another process.
async function runWaitingForLock(
  handler: AnyHandler,
  input: unknown,
  ctx: ServiceContext,
): Promise<unknown> {
  const db = ctx.lib.db;
  // one retrying call per services instance at a time: the others wait here, not in SQLite
  const previous = ctx.writeQueue.tail;
  let release = (): void => undefined;
  ctx.writeQueue.tail = new Promise<void>((resolve) => (release = resolve));
  await previous;
  try {
    const started = Date.now();
    let pause = 2;
    for (;;) {
      try {
        // these handlers write synchronously, so the short timeout covers their transaction
        const pending = withBusyTimeout(db, BUSY_ATTEMPT_MS, () => handler(input, ctx));
        return await pending;
      } catch (e) {
        const left = BUSY_TOTAL_MS - (Date.now() - started);
        if (!isBusyError(e) || left <= 0) {
          throw e;
        }
        await sleep(Math.min(pause, left));
        pause = Math.min(pause * 2, BUSY_MAX_PAUSE_MS);
      }
    }
  } finally {
    release();
  }
}

function defaultLog(line: string): void {
  process.stderr.write(`${line}\n`);
}

// The envelope of a coded error: its code, details and fix with `message`.
function codedErr(e: AppError, message: string): Result<unknown> {
  return err({
    code: e.code,
    message,
    ...(e.details === undefined ? {} : { details: e.details }),
    ...(e.fix === undefined ? {} : { fix: e.fix }),
  });
}

// Validates and runs one contract call; always resolves to a Result envelope.
export async function dispatch(
  ctx: ServiceContext,
  method: string,
  payload: unknown,
): Promise<Result<unknown>> {
  if (typeof method !== 'string' || !isApiMethod(method)) {
    return err({
      code: 'UNKNOWN_METHOD',
      message: `Unknown method ${JSON.stringify(String(method)).slice(0, 120)}; see API_METHODS for the contract's methods.`,
      details: { method: String(method).slice(0, 120) },
    });
  }
  const checked = METHOD_VALIDATORS[method](payload);
  if (!checked.ok) {
    return err({
      code: 'INVALID_PAYLOAD',
      message: `Invalid ${method} payload: ${checked.field} ${checked.message}`,
      details: { method, field: checked.field },
    });
  }
  try {
    const handler = handlers[method] as AnyHandler;
    return ok(
      RETRY_ON_BUSY.has(method)
        ? await runWaitingForLock(handler, checked.value, ctx)
        : await handler(checked.value, ctx),
    );
  } catch (e) {
    if (isAppError(e)) {
      return codedErr(e, e.message);
    }
    const stack = e instanceof Error ? (e.stack ?? `${e.name}: ${e.message}`) : String(e);
    (ctx.log ?? defaultLog)(`dispatch ${method} failed: ${stack}`);
    const classified = classifySystemError(e);
    if (classified) {
      return codedErr(classified, `${method}: ${classified.message}`);
    }
    return err({
      code: 'INTERNAL',
      message: `${method} failed unexpectedly; the details are in the service log.`,
    });
  }
}
