// The team client as the app and `serve` use it (docs/team-mode.md §14): sign-in with the token
// kept where the host keeps secrets (credential-store.ts), submits that survive an unreachable
// hub, the annotator's submissions, and the review queue. A submit the hub cannot take now (it
// is down, the network is, or its database is: HUB_UNREACHABLE, HUB_DB_UNREACHABLE, the store
// unreachable) is not an error that loses it: it goes to the pending list (pending.ts) and is
// retried with backoff while the host runs, and when it starts again; everything local keeps
// working meanwhile. One call at a time per library touches the hub's queue of this library
// (submits and retries run one after the other, so one recording is never sent twice at once).
import { AppError, isAppError } from '../../shared/errors';
import type { ApiEvent, ApiEvents, TeamErrorDto, TeamSubmitOutcome } from '../../shared/contract';
import type { TeamStatusDto } from '../../shared/contract';
import { findRecordingBasics } from '../../store';
import type { Library } from '../library/library';
import { backoffDelayMs } from '../upload/retry';
import type { HubCredentialStore } from './credential-store';
import { loginToHub, logoutFromHub, whoAmI } from './login';
import { readPending, writePending, type PendingSubmit } from './pending';
import { listHeldReviews, reviewNext, sendVerdict, type VerdictInput } from './review';
import { submitToHub, syncFromHub } from './submit';
import { hostTaskPlatform, listHubTasks, taskToRecord } from './tasks';

/** Codes that mean "the hub (or its database or store) cannot be reached now": kept, retried. */
const WAIT_FOR_HUB_CODES: ReadonlySet<string> = new Set([
  'HUB_UNREACHABLE',
  'HUB_DB_UNREACHABLE',
  'STORAGE_UNREACHABLE',
]);

/** True when a failed submit should wait for the hub rather than fail. */
export function isHubUnavailable(e: unknown): boolean {
  return isAppError(e) && WAIT_FOR_HUB_CODES.has(e.code);
}

/** Options of {@link TeamService}. */
export type TeamServiceOptions = {
  /** Where the host keeps the sign-in. */
  credentials: HubCredentialStore;
  /** Version written into submission manifests. */
  appVersion: string;
  /** Pushes `team:changed` to the views. */
  emit: <E extends ApiEvent>(event: E, payload: ApiEvents[E]) => void;
  /** Background retries of pending submits (the app and serve; not one-shot CLI commands):
   * backoff from `firstDelayMs` (default 5 s) doubling to `maxDelayMs` (default 5 min). */
  retry?: { firstDelayMs?: number; maxDelayMs?: number } | false;
  /** Diagnostic log. */
  log?: (line: string) => void;
  /** Clock (epoch ms). */
  now?: () => number;
};

/** How long `team:status` waits for the hub's answer, ms. */
const STATUS_TIMEOUT_MS = 5_000;

function errorDto(e: unknown): TeamErrorDto {
  if (isAppError(e)) {
    return { code: e.code, message: e.message, ...(e.fix ? { fix: e.fix } : {}) };
  }
  return { code: 'INTERNAL', message: (e as Error)?.message ?? String(e) };
}

/** The team client of one library for one host. */
export class TeamService {
  private readonly lib: Library;
  private readonly options: TeamServiceOptions;
  private readonly now: () => number;
  /** Submits, retries and pending-list writes, one after the other. */
  private chain: Promise<unknown> = Promise.resolve();
  private timer: ReturnType<typeof setTimeout> | null = null;
  private closed = false;

  constructor(lib: Library, options: TeamServiceOptions) {
    this.lib = lib;
    this.options = options;
    this.now = options.now ?? Date.now;
  }

  /** Where the token lives, for the Team page. */
  get tokenPlace(): string {
    return this.options.credentials.describe();
  }

  /** Starts the background retries (a host that keeps running): what waits is tried at once. */
  start(): void {
    if (this.options.retry === false || this.options.retry === undefined) {
      return;
    }
    void this.serial(async () => {
      const waiting = (await readPending(this.lib)).filter((p) => p.state === 'waiting');
      if (waiting.length > 0) {
        this.schedule(0);
      }
    }).catch((e: unknown) => this.options.log?.(`team: pending list: ${String(e)}`));
  }

  /** Stops the retries and waits for the one under way. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    await this.chain.catch(() => undefined);
  }

  // Runs `fn` after the calls before it (their failures do not stop it).
  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const before = this.chain;
    const run = (async () => {
      await before;
      return await fn();
    })();
    this.chain = run.catch(() => undefined);
    return run;
  }

  // The host's own fix for a library that is not signed in (the Team page, not the CLI).
  private explain(e: unknown): unknown {
    if (isAppError(e, 'HUB_NOT_SIGNED_IN')) {
      return new AppError(
        'HUB_NOT_SIGNED_IN',
        'this library is not signed in to a team hub',
        e.details,
        'Open the Team page and sign in to your team’s hub (its address, your name, password).',
      );
    }
    return e;
  }

  private changed(reason: ApiEvents['team:changed']['reason'], recording?: string): void {
    this.options.emit('team:changed', { reason, recording: recording ?? null });
  }

  /** Who this library is signed in as (asked of the hub), pending submits and held reviews. */
  async status(): Promise<TeamStatusDto> {
    const pending = await readPending(this.lib);
    const reviews = (await listHeldReviews(this.lib)).map((r) => ({
      recording: r.recordingId,
      submission: r.submissionId,
      annotator: r.annotator,
      version: r.version,
      leaseExpiresAtMs: r.leaseExpiresAtMs,
    }));
    const base = { tokenPlace: this.tokenPlace, pending, reviews };
    let creds;
    try {
      creds = await this.options.credentials.load();
    } catch (e) {
      return {
        ...base,
        signedIn: false,
        url: null,
        user: null,
        roles: [],
        hub: {
          reachable: false,
          error: isAppError(e, 'HUB_NOT_SIGNED_IN') ? null : errorDto(e),
        },
      };
    }
    const signedIn = { ...base, signedIn: true, url: creds.url, user: creds.user };
    try {
      const me = await whoAmI(this.options.credentials, { timeoutMs: STATUS_TIMEOUT_MS });
      return { ...signedIn, roles: me.roles, hub: { reachable: true, error: null } };
    } catch (e) {
      const error = isAppError(e, 'UNAUTHORIZED')
        ? {
            ...errorDto(e),
            fix:
              'The hub no longer accepts this sign-in (revoked, or the account removed): ' +
              'sign out and sign in again.',
          }
        : errorDto(e);
      return { ...signedIn, roles: [], hub: { reachable: false, error } };
    }
  }

  /** Signs in with a password (a one-time one: `mustChangePassword`, nothing stored), or with
   * the one-time password and a new one. */
  async signIn(input: {
    url: string;
    user: string;
    password: string;
    newPassword?: string;
  }): Promise<{ mustChangePassword: boolean; url: string; user: string; roles: string[] }> {
    try {
      const result = await loginToHub({ ...input, libraryDir: this.options.credentials });
      this.changed('signed-in');
      // what waited for a sign-in may go now
      this.schedule(0);
      return { mustChangePassword: false, url: result.url, user: result.user, roles: result.roles };
    } catch (e) {
      if (isAppError(e, 'PASSWORD_CHANGE_REQUIRED') && input.newPassword === undefined) {
        return { mustChangePassword: true, url: input.url, user: input.user, roles: [] };
      }
      throw e;
    }
  }

  /** Revokes the token on the hub and forgets it (an unreachable hub keeps it: retry). */
  async signOut(): Promise<{ url: string; user: string; revoked: boolean }> {
    try {
      const out = await logoutFromHub(this.options.credentials);
      this.changed('signed-out');
      return out;
    } catch (e) {
      throw this.explain(e);
    }
  }

  /** Submits recordings (full ids); one the hub cannot take now is kept and retried. */
  submit(ids: readonly string[]): Promise<TeamSubmitOutcome[]> {
    return this.serial(async () => {
      const outcomes: TeamSubmitOutcome[] = [];
      for (const id of ids) {
        outcomes.push(await this.submitOne(id, 'user'));
      }
      return outcomes;
    });
  }

  // One recording's submit (inside the chain): the hub's answer, or kept in the pending list.
  private async submitOne(id: string, by: 'user' | 'retry'): Promise<TeamSubmitOutcome> {
    const none = { submission: null, version: null, status: null };
    let pending = await readPending(this.lib);
    const previous = pending.find((p) => p.recording === id);
    try {
      const [result] = await submitToHub(this.lib, [id], {
        appVersion: this.options.appVersion,
        credentials: this.options.credentials,
      });
      if (previous) {
        pending = (await readPending(this.lib)).filter((p) => p.recording !== id);
        await writePending(this.lib, pending);
      }
      this.changed('submitted', id);
      return {
        recording: id,
        state: 'submitted',
        submission: result!.id,
        version: result!.version,
        status: result!.status,
        error: null,
      };
    } catch (caught) {
      const e = this.explain(caught);
      if (by === 'user' && isAppError(e, 'HUB_NOT_SIGNED_IN')) {
        throw e;
      }
      const waits = isHubUnavailable(e);
      if (!waits && !previous) {
        return { recording: id, state: 'failed', ...none, error: errorDto(e) };
      }
      const attempts = (previous?.attempts ?? 0) + 1;
      const entry: PendingSubmit = {
        recording: id,
        url: previous?.url ?? '',
        user: previous?.user ?? '',
        queuedAtMs: previous?.queuedAtMs ?? this.now(),
        attempts,
        nextAttemptAtMs: waits ? this.now() + this.delayAfter(attempts) : null,
        state: waits ? 'waiting' : 'failed',
        lastError: errorDto(e),
      };
      if (!previous) {
        const creds = await this.options.credentials.load().catch(() => null);
        entry.url = creds?.url ?? '';
        entry.user = creds?.user ?? '';
      }
      pending = (await readPending(this.lib)).filter((p) => p.recording !== id);
      await writePending(this.lib, [...pending, entry]);
      this.changed('pending', id);
      if (waits) {
        this.schedule(entry.nextAttemptAtMs! - this.now());
      }
      return {
        recording: id,
        state: waits ? 'queued' : 'failed',
        ...none,
        error: errorDto(e),
      };
    }
  }

  // Backoff after `attempts` failed attempts (equal jitter, src/services/upload/retry.ts).
  private delayAfter(attempts: number): number {
    const retry: { firstDelayMs?: number; maxDelayMs?: number } = this.options.retry || {};
    return backoffDelayMs(Math.max(0, attempts - 1), {
      maxAttempts: Number.POSITIVE_INFINITY,
      baseDelayMs: retry.firstDelayMs ?? 5_000,
      maxDelayMs: retry.maxDelayMs ?? 300_000,
    });
  }

  // (Re)arms the retry timer to fire in `delayMs` (sooner wins over later).
  private schedule(delayMs: number): void {
    if (this.closed || !this.options.retry) {
      return;
    }
    if (this.timer) {
      clearTimeout(this.timer);
    }
    this.timer = setTimeout(
      () => {
        this.timer = null;
        void this.serial(() => this.retryDue()).catch((e: unknown) =>
          this.options.log?.(`team: retry: ${String(e)}`),
        );
      },
      Math.max(0, delayMs),
    );
    // a host's retries never keep its process alive
    this.timer.unref?.();
  }

  // Tries every waiting submit that is due, then arms the timer for the next one.
  private async retryDue(): Promise<void> {
    for (const entry of await readPending(this.lib)) {
      if (this.closed) {
        return;
      }
      if (entry.state !== 'waiting' || (entry.nextAttemptAtMs ?? 0) > this.now()) {
        continue;
      }
      if (!findRecordingBasics(this.lib.db, entry.recording)) {
        // deleted meanwhile: nothing to send
        await writePending(
          this.lib,
          (await readPending(this.lib)).filter((p) => p.recording !== entry.recording),
        );
        continue;
      }
      await this.submitOne(entry.recording, 'retry');
    }
    const next = (await readPending(this.lib))
      .filter((p) => p.state === 'waiting' && p.nextAttemptAtMs !== null)
      .map((p) => p.nextAttemptAtMs!);
    if (next.length > 0 && !this.closed) {
      this.schedule(Math.min(...next) - this.now());
    }
  }

  /** Forgets a pending submit. */
  cancelPending(id: string): Promise<PendingSubmit[]> {
    return this.serial(async () => {
      const left = (await readPending(this.lib)).filter((p) => p.recording !== id);
      await writePending(this.lib, left);
      this.changed('pending', id);
      return left;
    });
  }

  /** The annotator's submissions (with whether each recording is in this library) and the
   * pending ones; an unreachable hub is reported, not thrown. */
  async submissions() {
    const pending = await readPending(this.lib);
    try {
      const { submissions } = await syncFromHub(this.lib, this.options.credentials);
      return {
        submissions: submissions.map((s) => ({
          ...s,
          isLocal: findRecordingBasics(this.lib.db, s.recording) !== null,
        })),
        pending,
        hubError: null,
      };
    } catch (e) {
      return { submissions: [], pending, hubError: errorDto(this.explain(e)) };
    }
  }

  /** Takes the next submission into this library (null when none waits). */
  async reviewNext() {
    try {
      const s = await reviewNext(this.lib, { credentials: this.options.credentials });
      if (s) {
        this.options.emit('recordings:changed', { id: s.recording });
        this.changed('review', s.recording);
      }
      return s
        ? {
            id: s.id,
            recording: s.recording,
            annotator: s.annotator,
            task: s.task,
            version: s.version,
          }
        : null;
    } catch (e) {
      throw this.explain(e);
    }
  }

  /** The hub's open tasks for this OS; an unreachable hub is reported, not thrown. */
  async tasks() {
    const platform = hostTaskPlatform();
    try {
      const { tasks } = await listHubTasks(
        this.lib,
        { platform, status: 'open' },
        this.options.credentials,
      );
      return { platform, tasks, hubError: null };
    } catch (e) {
      return { platform, tasks: [], hubError: errorDto(this.explain(e)) };
    }
  }

  /** Claims a task to record it: its instruction and the claim's end. */
  async claimTask(id: number) {
    try {
      return await taskToRecord(this.lib, id, this.options.credentials);
    } catch (e) {
      throw this.explain(e);
    }
  }

  /** Sends a verdict on a recording held for review. */
  async verdict(recordingId: string, input: VerdictInput) {
    try {
      const r = await sendVerdict(this.lib, recordingId, input, this.options.credentials);
      this.changed('verdict', r.recording);
      return {
        submission: r.id,
        recording: r.recording,
        version: r.version,
        status: r.status,
        edits: r.edits,
      };
    } catch (e) {
      throw this.explain(e);
    }
  }
}
