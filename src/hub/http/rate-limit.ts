// Sign-in rate limit: failed sign-ins are counted per account and per client address over a
// sliding window; past the limit a sign-in is refused (RATE_LIMITED with when to retry) before
// the password is even checked. In memory: a restarted hub starts afresh, which the window's
// length makes harmless. The clock is injected so tests need no waiting. docs/team-mode.md §12.

/** Limits of {@link createLoginLimiter}. */
export type LoginLimits = {
  /** Failed sign-ins of one account within the window before it is refused (default 5). */
  perAccount: number;
  /** Failed sign-ins from one address within the window before it is refused (default 20). */
  perAddress: number;
  /** The window, ms (default 15 minutes). */
  windowMs: number;
};

export const DEFAULT_LOGIN_LIMITS: LoginLimits = {
  perAccount: 5,
  perAddress: 20,
  windowMs: 15 * 60 * 1000,
};

// keys kept at most; past it the oldest-seen keys are dropped (a flood of made-up names must not
// grow the hub's memory without bound)
const MAX_KEYS = 50_000;

/** Counts failed sign-ins and says when one must wait. */
export type LoginLimiter = {
  /** Null when a sign-in may be tried now, else which limit holds and for how long. */
  check: (
    account: string,
    address: string,
  ) => { limit: 'account' | 'address'; retryAfterMs: number } | null;
  /** Records a failed sign-in. */
  fail: (account: string, address: string) => void;
  /** A successful sign-in clears the account's failures (not the address's). */
  succeed: (account: string) => void;
};

/** A limiter with `limits`, reading the time from `now`. */
export function createLoginLimiter(
  limits: Partial<LoginLimits> = {},
  now: () => number = Date.now,
): LoginLimiter {
  const { perAccount, perAddress, windowMs } = { ...DEFAULT_LOGIN_LIMITS, ...limits };
  const failures = new Map<string, number[]>();

  const recent = (key: string): number[] => {
    const since = now() - windowMs;
    const times = (failures.get(key) ?? []).filter((t) => t > since);
    if (times.length) {
      failures.set(key, times);
    } else {
      failures.delete(key);
    }
    return times;
  };
  const wait = (times: number[], max: number): number | null => {
    if (times.length < max) {
      return null;
    }
    // the window frees a slot when the (length - max + 1)-th newest failure leaves it
    const freeing = times[times.length - max] ?? now();
    return Math.max(1, freeing + windowMs - now());
  };

  return {
    check: (account, address) => {
      const byAccount = wait(recent(`u:${account}`), perAccount);
      if (byAccount !== null) {
        return { limit: 'account', retryAfterMs: byAccount };
      }
      const byAddress = wait(recent(`a:${address}`), perAddress);
      return byAddress === null ? null : { limit: 'address', retryAfterMs: byAddress };
    },
    fail: (account, address) => {
      for (const key of [`u:${account}`, `a:${address}`]) {
        const times = recent(key);
        times.push(now());
        failures.delete(key);
        failures.set(key, times);
      }
      while (failures.size > MAX_KEYS) {
        const oldest = failures.keys().next().value;
        if (oldest === undefined) {
          break;
        }
        failures.delete(oldest);
      }
    },
    succeed: (account) => {
      failures.delete(`u:${account}`);
    },
  };
}
