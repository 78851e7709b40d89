// The limits on model calls: at most `concurrency` requests in flight and at most
// `requestsPerMinute` started in any 60-second window. One gate per endpoint is shared by every
// client in the process (sharedRequestGate), so two runs against one provider stay inside its
// limits together.

import { AppError } from '../../shared/errors';

export interface GateLimits {
  /** Requests in flight at once (≥ 1). */
  concurrency: number;
  /** Requests started per rolling minute; 0 = no limit. */
  requestsPerMinute: number;
}

/** A counting gate with a rolling-minute start limit. */
export interface RequestGate {
  /** Waits for a slot, runs `fn`, frees the slot when it settles. A signal aborted while
   * waiting leaves the queue with ABORTED. */
  run<T>(fn: () => Promise<T>, signal?: AbortSignal): Promise<T>;
  /** Changes the limits; queued callers see the new ones. */
  setLimits(limits: GateLimits): void;
  readonly limits: GateLimits;
  /** Requests running and waiting now. */
  readonly active: number;
  readonly waiting: number;
}

const WINDOW_MS = 60_000;

interface Waiter {
  start: () => void;
}

export function checkGateLimits(limits: GateLimits): GateLimits {
  if (!Number.isInteger(limits.concurrency) || limits.concurrency < 1) {
    throw new AppError(
      'USAGE',
      `concurrency must be a whole number ≥ 1 (got ${limits.concurrency})`,
      undefined,
      'Pass --concurrency 1 or more.',
    );
  }
  if (!Number.isFinite(limits.requestsPerMinute) || limits.requestsPerMinute < 0) {
    throw new AppError(
      'USAGE',
      `requests per minute must be 0 (no limit) or more (got ${limits.requestsPerMinute})`,
      undefined,
      'Pass --rpm 0 for no limit, or the provider’s limit.',
    );
  }
  return { ...limits };
}

export interface GateClock {
  now?: () => number;
  /** The rolling window `requestsPerMinute` counts over (default 60 s; shorter in tests). */
  windowMs?: number;
}

export function createRequestGate(initial: GateLimits, clock: GateClock = {}): RequestGate {
  const now = clock.now ?? (() => performance.now());
  const windowMs = clock.windowMs ?? WINDOW_MS;
  let limits = checkGateLimits(initial);
  let active = 0;
  const queue: Waiter[] = [];
  /** Start times inside the last minute, oldest first. */
  const starts: number[] = [];
  let timer: NodeJS.Timeout | undefined;

  const pump = (): void => {
    while (queue.length > 0 && active < limits.concurrency) {
      const t = now();
      while (starts.length > 0 && starts[0]! <= t - windowMs) {
        starts.shift();
      }
      if (limits.requestsPerMinute > 0 && starts.length >= limits.requestsPerMinute) {
        // wait for the oldest start in the window to leave it
        if (timer === undefined) {
          const waitMs = starts[starts.length - limits.requestsPerMinute]! + windowMs - t;
          timer = setTimeout(
            () => {
              timer = undefined;
              pump();
            },
            Math.max(1, Math.ceil(waitMs)),
          );
        }
        return;
      }
      const waiter = queue.shift()!;
      active += 1;
      starts.push(t);
      waiter.start();
    }
  };

  return {
    get limits() {
      return { ...limits };
    },
    get active() {
      return active;
    },
    get waiting() {
      return queue.length;
    },
    setLimits(next) {
      limits = checkGateLimits(next);
      if (timer !== undefined) {
        clearTimeout(timer);
        timer = undefined;
      }
      pump();
    },
    run<T>(fn: () => Promise<T>, signal?: AbortSignal): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        if (signal?.aborted) {
          reject(abortedError());
          return;
        }
        const onAbort = (): void => {
          const i = queue.indexOf(waiter);
          if (i >= 0) {
            queue.splice(i, 1);
            reject(abortedError());
          }
        };
        const waiter: Waiter = {
          start: () => {
            signal?.removeEventListener('abort', onAbort);
            void (async () => {
              try {
                resolve(await fn());
              } catch (e) {
                reject(e instanceof Error ? e : new Error(String(e)));
              } finally {
                active -= 1;
                pump();
              }
            })();
          },
        };
        signal?.addEventListener('abort', onAbort, { once: true });
        queue.push(waiter);
        pump();
      });
    },
  };
}

export function abortedError(): AppError {
  return new AppError('ABORTED', 'the model call was cancelled');
}

const shared = new Map<string, RequestGate>();

/** The process's gate for one endpoint (its base URL): made with `limits` on first use; a later
 * caller's limits replace them (the last run started sets them for all). */
export function sharedRequestGate(endpoint: string, limits: GateLimits): RequestGate {
  const existing = shared.get(endpoint);
  if (existing) {
    existing.setLimits(limits);
    return existing;
  }
  const gate = createRequestGate(limits);
  shared.set(endpoint, gate);
  return gate;
}
