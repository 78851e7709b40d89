// Accessibility over a per-OS helper program (macOS AX, Windows UIA; src/helpers/) that speaks the
// JSON-lines helper protocol v2 (docs/helper-protocol.md; docs/architecture.md §5): this module is
// the pure protocol half of the recorder. It parses and validates every line, matches responses to
// requests, enforces timeouts and maps helper results onto the shared model. Spawning lives in
// src/recorder/accessibility/native-helper-process.ts on the src/infra process primitives
// (axtree may import neither node:child_process nor src/infra).
import { AppError, ERROR_CODES } from '../../shared/errors';
import type { ErrorCode } from '../../shared/errors';
import type { AccessibilityAdapter, AccessibilityGap, AccessibilityInfo } from '../adapter';
import type { AxBudget } from '../budgets';
import { normalizeBudget } from '../budgets';
import type { AxElementRecord, AxFocusEvent, AxNode, AxSnapshot } from '../model';
import { AxShapeError, isSecureNode, parseAxElementRecord, parseAxSnapshot } from '../model';
import type { ActiveWindowResult, HelperDisplay, PermissionsResult } from './helper-protocol';
import { HELPER_METHODS, HELPER_PROTOCOL_VERSION } from './helper-protocol';
import {
  excerpt,
  parseActiveWindowResult,
  parseHelperDisplays,
  parseHelperLine,
  parsePermissionsResult,
  protocolError,
  resultObject,
  type HelperEvent,
  type HelperHello,
  type HelperMessage,
  type HelperResponse,
} from './helper-shapes';

// the line and result parsers live in ./helper-shapes.ts (valibot schemas); their importers
// keep importing them from here
export {
  parseActiveWindowResult,
  parseHelperDisplays,
  parseHelperLine,
  parsePermissionsResult,
  type HelperErrorBody,
  type HelperEvent,
  type HelperHello,
  type HelperMessage,
  type HelperResponse,
} from './helper-shapes';

/** Encodes a request line (with the trailing newline). */
export function encodeHelperRequest(id: number, method: string, params: unknown): string {
  return `${JSON.stringify({ id, method, params })}\n`;
}

/** Encodes the shutdown line sent before closing stdin. */
export function encodeHelperShutdown(): string {
  return `${JSON.stringify({ type: 'shutdown' })}\n`;
}

// A secure field's name is '' whatever a helper sends (docs/helper-protocol.md §6): a helper that
// forgets to drop it must not leak it into a recording.
function redactSecureNames(node: AxNode): AxNode {
  const children = node.children.map(redactSecureNames);
  const name = node.name !== '' && isSecureNode(node) ? '' : node.name;
  return { ...node, name, children };
}

/** How the helper process ended. */
export type HelperExit = {
  /** Exit code, or null after a signal. */
  code: number | null;
  /** Signal that ended it, or null. */
  signal: string | null;
  /** The last stderr lines (for error messages). */
  stderrTail: string;
  /** True when the exit followed our own close(). */
  isExpected: boolean;
};

/** Line transport to a running helper; implemented by the recorder's process wrapper. */
export interface HelperChannel {
  /** Human name for messages, e.g. the executable path. */
  readonly name: string;
  /** Starts the helper; rejects when it cannot be spawned. */
  open(): Promise<void>;
  /** Writes one line (must end with a newline). */
  write(line: string): void;
  /** Called for every complete stdout line (without the newline). */
  onLine(listener: (line: string) => void): void;
  /** Called once when the helper has exited (or could not start). */
  onExit(listener: (exit: HelperExit) => void): void;
  /** Graceful then forceful stop (shutdown line, stdin close, SIGTERM, SIGKILL). */
  close(): Promise<void>;
}

/** Options of {@link NativeHelperAdapter}. */
export type NativeHelperAdapterOptions = {
  /** Session clock in ms (CLOCK_MONOTONIC); stamps records, events and gaps. */
  now: () => number;
  /** Limit for the hello line after spawning, ms; default 5 000. */
  startTimeoutMs?: number;
  /** Limit per request, ms; default 2 000 (snapshots get their budget's maxMs + this). */
  requestTimeoutMs?: number;
  /** Timeouts in a row after which a helper is replaced (needs a channel factory); default 3. */
  timeoutsBeforeRestart?: number;
  /** Replacements per adapter before accessibility is given up; default 5. */
  maxRestarts?: number;
};

/** Default limit for the hello line, ms. */
export const DEFAULT_HELPER_START_TIMEOUT_MS = 5000;
/** Default limit per request, ms. */
export const DEFAULT_HELPER_REQUEST_TIMEOUT_MS = 2000;
/** Timeouts in a row that make the adapter replace its helper (docs/helper-protocol.md §4). */
export const DEFAULT_HELPER_TIMEOUTS_BEFORE_RESTART = 3;
/** Replacements before the adapter gives accessibility up for the session. */
export const DEFAULT_HELPER_MAX_RESTARTS = 5;

type Pending = {
  method: string;
  resolve: (value: unknown) => void;
  reject: (error: AppError) => void;
  timer: ReturnType<typeof setTimeout>;
};

type State = 'idle' | 'starting' | 'ready' | 'failed' | 'stopped';

const KNOWN_CODES: readonly string[] = ERROR_CODES;

/**
 * AccessibilityAdapter over a JSON-lines helper reached through a {@link HelperChannel}. Given a
 * channel factory instead of one channel, it replaces a helper that stopped answering (several
 * timeouts in a row: a helper stuck in an OS call) with a fresh one and reports the gap.
 */
export class NativeHelperAdapter implements AccessibilityAdapter {
  private state: State = 'idle';
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  // ids that timed out: their late responses are legitimate and ignored
  private readonly abandoned = new Set<number>();
  private readonly focusListeners = new Set<(event: AxFocusEvent) => void>();
  private readonly displaysListeners = new Set<(displays: HelperDisplay[]) => void>();
  private readonly gapListeners = new Set<(gap: AccessibilityGap) => void>();
  private failure: AppError | null = null;
  private hello: HelperHello | null = null;
  private onHello: ((hello: HelperHello) => void) | null = null;
  private onStartFailure: ((error: AppError) => void) | null = null;
  private readonly startTimeoutMs: number;
  private readonly requestTimeoutMs: number;
  private readonly createChannel: (() => HelperChannel) | null;
  private channel: HelperChannel;
  // lines and exits of a replaced helper are ignored: only the current generation's count
  private generation = 0;
  private timeoutsInARow = 0;
  // when the first request of the current run of timeouts was sent (the gap's start)
  private timeoutRunStartMs = 0;
  private restarts = 0;
  private restarting: Promise<void> | null = null;
  private readonly retired = new Set<Promise<void>>();

  constructor(
    channel: HelperChannel | (() => HelperChannel),
    private readonly options: NativeHelperAdapterOptions,
  ) {
    this.startTimeoutMs = options.startTimeoutMs ?? DEFAULT_HELPER_START_TIMEOUT_MS;
    this.requestTimeoutMs = options.requestTimeoutMs ?? DEFAULT_HELPER_REQUEST_TIMEOUT_MS;
    this.createChannel = typeof channel === 'function' ? channel : null;
    this.channel = typeof channel === 'function' ? channel() : channel;
    this.listen(this.channel);
  }

  /** Capabilities announced in the hello line (empty before start). */
  get capabilities(): string[] {
    return this.hello?.capabilities ?? [];
  }

  /** Which helper answered (`helper` of the hello line), or null before start or when unsaid. */
  get helper(): HelperHello['helper'] | null {
    return this.hello?.helper ?? null;
  }

  /** Helpers replaced so far. */
  get restartCount(): number {
    return this.restarts;
  }

  // Spawns the helper and resolves on its hello line; HELPER_START_TIMEOUT after the limit.
  async start(): Promise<AccessibilityInfo> {
    if (this.state !== 'idle') {
      throw new Error(
        `NativeHelperAdapter.start() called in state '${this.state}'; create a new one`,
      );
    }
    const hello = await this.connect();
    return { backend: 'native-helper', capabilities: hello.capabilities };
  }

  // Opens the current channel and waits for its hello; on failure the adapter is failed.
  private async connect(): Promise<HelperHello> {
    const channel = this.channel;
    this.state = 'starting';
    // (the state is re-read after each await: stop() may have run meanwhile)
    const stopped = (): boolean => this.state === 'stopped';
    try {
      await channel.open();
      if (stopped()) {
        throw new AppError('HELPER_EXITED', 'accessibility helper stopped by the recorder');
      }
      const hello = await this.waitForHello();
      if ((this.state as State) !== 'starting') {
        throw this.failure ?? new AppError('HELPER_EXITED', 'accessibility helper stopped');
      }
      this.state = 'ready';
      return hello;
    } catch (error) {
      if (!stopped()) {
        this.state = 'failed';
        this.failure = toAppError(error, 'HELPER_EXITED');
      }
      await channel.close();
      throw this.failure ?? toAppError(error, 'HELPER_EXITED');
    }
  }

  private listen(channel: HelperChannel): void {
    const generation = this.generation;
    channel.onLine((line) => {
      if (generation === this.generation) {
        this.handleLine(line);
      }
    });
    channel.onExit((exit) => {
      if (generation === this.generation) {
        this.handleExit(exit);
      }
    });
  }

  private async waitForHello(): Promise<HelperHello> {
    // the hello line (or a failure) may already have arrived while open() settled
    if (this.hello) {
      return this.hello;
    }
    if (this.failure) {
      throw this.failure;
    }
    try {
      return await new Promise<HelperHello>((resolve, reject) => {
        const timer = setTimeout(() => {
          reject(
            new AppError(
              'HELPER_START_TIMEOUT',
              `accessibility helper ${this.channel.name} sent no hello line within ` +
                `${this.startTimeoutMs} ms`,
              { helper: this.channel.name, timeoutMs: this.startTimeoutMs },
            ),
          );
        }, this.startTimeoutMs);
        this.onHello = (h) => {
          clearTimeout(timer);
          resolve(h);
        };
        this.onStartFailure = (error) => {
          clearTimeout(timer);
          reject(error);
        };
      });
    } finally {
      this.onHello = null;
      this.onStartFailure = null;
    }
  }

  // Sends one request and resolves with its raw result (rejects with a coded AppError).
  async request(method: string, params: unknown = {}, timeoutMs?: number): Promise<unknown> {
    if (this.restarting) {
      // a replacement helper is starting: wait for it instead of failing
      await this.restarting;
    }
    if (this.state !== 'ready') {
      throw (
        this.failure ??
        new Error(`NativeHelperAdapter.request('${method}') in state '${this.state}'; call start()`)
      );
    }
    const id = this.nextId;
    this.nextId += 1;
    const limitMs = timeoutMs ?? this.requestTimeoutMs;
    const sentMs = this.options.now();
    const generation = this.generation;
    return await new Promise<unknown>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        this.abandoned.add(id);
        reject(
          new AppError(
            'ACCESSIBILITY_TIMEOUT',
            `accessibility helper did not answer '${method}' within ${limitMs} ms`,
            { helper: this.channel.name, method, timeoutMs: limitMs },
          ),
        );
        this.noteTimeout(generation, sentMs, method, limitMs);
      }, limitMs);
      this.pending.set(id, { method, resolve, reject, timer });
      this.channel.write(encodeHelperRequest(id, method, params));
    });
  }

  // The element under (x, y) with its ancestors, or null.
  async elementAt(x: number, y: number): Promise<AxElementRecord | null> {
    const tMs = this.options.now();
    const result = await this.request(HELPER_METHODS.elementAt, { x, y });
    if (result === null) {
      return null;
    }
    const record = this.shaped(HELPER_METHODS.elementAt, () =>
      parseAxElementRecord({ ...resultObject(result), tMs, x, y }, 'result'),
    );
    return { ...record, path: record.path.map(redactSecureNames) };
  }

  // The focused window's subtree; the helper gets the budget and enforces it.
  async snapshotFocusedWindow(budget: Partial<AxBudget> = {}): Promise<AxSnapshot> {
    const limits = normalizeBudget(budget);
    const tMs = this.options.now();
    const result = await this.request(
      HELPER_METHODS.snapshotFocusedWindow,
      limits,
      limits.maxMs + this.requestTimeoutMs,
    );
    const durationMs = this.options.now() - tMs;
    const snapshot = this.shaped(HELPER_METHODS.snapshotFocusedWindow, () =>
      parseAxSnapshot({ ...resultObject(result), tMs, durationMs }, 'result'),
    );
    return snapshot.root === null
      ? snapshot
      : { ...snapshot, root: redactSecureNames(snapshot.root) };
  }

  // True when the focused element is a secure text field.
  async focusedIsSecure(): Promise<boolean> {
    const result = await this.request(HELPER_METHODS.focusedIsSecure, {});
    if (typeof result !== 'boolean') {
      throw protocolError(`'focusedIsSecure' returned ${JSON.stringify(result)}, not a boolean`);
    }
    return result;
  }

  // The active (foreground) window, or null when none is.
  async activeWindow(): Promise<ActiveWindowResult | null> {
    const result = await this.request(HELPER_METHODS.activeWindow, {});
    return this.shaped(HELPER_METHODS.activeWindow, () => parseActiveWindowResult(result));
  }

  // The display layout, bounds in physical pixels of the virtual desktop.
  async displays(): Promise<HelperDisplay[]> {
    const result = await this.request(HELPER_METHODS.displays, {});
    return this.shaped(HELPER_METHODS.displays, () => parseHelperDisplays(result));
  }

  // What the OS allows the helper (and the recorder) right now.
  async permissions(): Promise<PermissionsResult> {
    const result = await this.request(HELPER_METHODS.permissions, {});
    return this.shaped(HELPER_METHODS.permissions, () => parsePermissionsResult(result));
  }

  // Subscribes to `displays` events (the layout changed); returns an unsubscribe.
  onDisplaysChanged(listener: (displays: HelperDisplay[]) => void): () => void {
    this.displaysListeners.add(listener);
    return () => {
      this.displaysListeners.delete(listener);
    };
  }

  // Subscribes to `focus` events from the helper.
  onFocusChanged(listener: (event: AxFocusEvent) => void): () => void {
    this.focusListeners.add(listener);
    return () => {
      this.focusListeners.delete(listener);
    };
  }

  // Subscribes to gaps: the spans a replaced helper did not answer (docs/helper-protocol.md §4).
  onGap(listener: (gap: AccessibilityGap) => void): () => void {
    this.gapListeners.add(listener);
    return () => {
      this.gapListeners.delete(listener);
    };
  }

  // Stops the helper; pending requests are rejected with HELPER_EXITED.
  async stop(): Promise<void> {
    if (this.state === 'stopped') {
      return;
    }
    const wasRunning = this.state === 'ready' || this.state === 'starting';
    this.state = 'stopped';
    const stopped = new AppError('HELPER_EXITED', 'accessibility helper stopped by the recorder');
    // a start or restart waiting for a hello line ends now instead of at its timeout
    this.onStartFailure?.(stopped);
    this.rejectAll(stopped);
    if (wasRunning) {
      await this.channel.close();
    }
    await this.restarting;
    await Promise.all(this.retired);
  }

  // Counts a timeout of the current helper; enough in a row replace it.
  private noteTimeout(generation: number, sentMs: number, method: string, limitMs: number): void {
    if (generation !== this.generation || this.state !== 'ready') {
      return;
    }
    if (this.timeoutsInARow === 0) {
      this.timeoutRunStartMs = sentMs;
    }
    this.timeoutsInARow += 1;
    const limit = this.options.timeoutsBeforeRestart ?? DEFAULT_HELPER_TIMEOUTS_BEFORE_RESTART;
    if (this.createChannel === null || this.timeoutsInARow < limit) {
      return;
    }
    const detail =
      `${this.timeoutsInARow} requests in a row got no answer (the last: '${method}' within ` +
      `${limitMs} ms)`;
    this.restarting = this.restart(detail).finally(() => {
      this.restarting = null;
    });
  }

  // Stops the stuck helper, starts a fresh one and reports the gap between them.
  private async restart(detail: string): Promise<void> {
    const createChannel = this.createChannel as () => HelperChannel;
    const startMs = this.timeoutRunStartMs;
    this.timeoutsInARow = 0;
    const gap = (endMs: number | null, more: string): void => {
      const event: AccessibilityGap = {
        startMs,
        endMs,
        reason: 'helper-timeouts',
        detail: `${detail}; ${more}`,
      };
      for (const listener of this.gapListeners) {
        listener(event);
      }
    };
    // the old helper's pending requests and late lines belong to nobody now
    this.generation += 1;
    this.rejectAll(
      new AppError('HELPER_EXITED', `accessibility helper replaced: ${detail}`, {
        helper: this.channel.name,
      }),
    );
    this.abandoned.clear();
    this.hello = null;
    // (a failure to stop it is the old channel's business: it must not fail the recording)
    const retiring = this.channel.close().catch(() => undefined);
    this.retired.add(retiring);
    void retiring.finally(() => this.retired.delete(retiring));

    const maxRestarts = this.options.maxRestarts ?? DEFAULT_HELPER_MAX_RESTARTS;
    if (this.restarts >= maxRestarts) {
      this.state = 'failed';
      this.failure = new AppError(
        'ACCESSIBILITY_UNAVAILABLE',
        `accessibility helper ${this.channel.name} stopped answering again after ${this.restarts} restarts; ` +
          'recording continues without accessibility',
        { helper: this.channel.name, restarts: this.restarts },
      );
      gap(null, `given up after ${this.restarts} restarts`);
      return;
    }
    this.restarts += 1;
    this.channel = createChannel();
    this.listen(this.channel);
    try {
      await this.connect();
    } catch (error) {
      if (this.state === 'stopped') {
        return;
      }
      gap(null, `the new helper did not start: ${(error as Error).message}`);
      return;
    }
    gap(this.options.now(), `helper restarted (restart ${this.restarts})`);
  }

  private shaped<T>(method: string, parse: () => T): T {
    try {
      return parse();
    } catch (error) {
      if (error instanceof AxShapeError) {
        throw protocolError(`'${method}' returned an invalid result: ${error.message}`);
      }
      throw error;
    }
  }

  private handleLine(line: string): void {
    if (this.state === 'stopped' || this.state === 'failed' || line.trim() === '') {
      return;
    }
    let message: HelperMessage;
    try {
      message = parseHelperLine(line);
    } catch (error) {
      this.fail(toAppError(error, 'HELPER_PROTOCOL_ERROR'));
      return;
    }
    // (lines after the hello may arrive before start() resolves: they are handled as usual)
    if (this.state === 'starting' && this.hello === null) {
      if (message.type !== 'hello') {
        this.fail(protocolError(`helper spoke before its hello line: ${excerpt(line)}`));
      } else if (message.protocol !== HELPER_PROTOCOL_VERSION) {
        this.fail(
          protocolError(
            `helper speaks protocol ${message.protocol}, this recorder speaks ` +
              `${HELPER_PROTOCOL_VERSION}: install a matching helper`,
          ),
        );
      } else {
        this.hello = message;
        this.onHello?.(message);
      }
      return;
    }
    switch (message.type) {
      case 'hello':
        this.fail(protocolError('helper sent a second hello line'));
        return;
      case 'event':
        this.handleEvent(message);
        return;
      case 'response':
        this.handleResponse(message);
        return;
    }
  }

  private handleResponse(message: HelperResponse): void {
    const pending = this.pending.get(message.id);
    if (!pending) {
      if (!this.abandoned.delete(message.id)) {
        this.fail(protocolError(`helper answered unknown request id ${message.id}`));
        return;
      }
      // a late answer: slow, but not stuck
      this.timeoutsInARow = 0;
      return;
    }
    this.timeoutsInARow = 0;
    this.pending.delete(message.id);
    clearTimeout(pending.timer);
    if (message.ok) {
      pending.resolve(message.result);
      return;
    }
    // helpers may report our own codes (e.g. ACCESSIBILITY_UNAVAILABLE without permission)
    const code: ErrorCode = KNOWN_CODES.includes(message.error.code)
      ? (message.error.code as ErrorCode)
      : 'HELPER_REQUEST_FAILED';
    pending.reject(
      new AppError(
        code,
        `accessibility helper failed '${pending.method}': ${message.error.message}`,
        {
          helperCode: message.error.code,
          method: pending.method,
        },
      ),
    );
  }

  // Events are informational: a malformed one is dropped rather than failing the helper, and
  // events newer helpers may send are ignored.
  private handleEvent(message: HelperEvent): void {
    if (message.event === 'displays') {
      let displays: HelperDisplay[];
      try {
        displays = parseHelperDisplays(message.data.displays, 'event.displays');
      } catch {
        return;
      }
      for (const listener of this.displaysListeners) {
        listener(displays);
      }
      return;
    }
    if (message.event !== 'focus') {
      return;
    }
    const { role, name, states } = message.data;
    if (typeof role !== 'string') {
      return;
    }
    // the helper's flag is what counts (UIA IsPassword fields have an ordinary role); the role
    // and states are a second source, so a helper that forgets the flag still masks keystrokes
    const isSecure =
      message.data.isSecure === true ||
      isSecureNode({
        role,
        states: Array.isArray(states) ? states.filter((s) => typeof s === 'string') : [],
      });
    const event: AxFocusEvent = {
      tMs: this.options.now(),
      role,
      name: isSecure || typeof name !== 'string' ? '' : name,
      isSecure,
    };
    for (const listener of this.focusListeners) {
      listener(event);
    }
  }

  private handleExit(exit: HelperExit): void {
    if (this.state === 'stopped') {
      return;
    }
    const how = exit.signal === null ? `exit code ${exit.code}` : `signal ${exit.signal}`;
    const tail = exit.stderrTail === '' ? '' : `; stderr:\n${exit.stderrTail}`;
    this.fail(
      new AppError(
        'HELPER_EXITED',
        `accessibility helper ${this.channel.name} exited (${how})${tail}`,
        { helper: this.channel.name, code: exit.code, signal: exit.signal },
      ),
    );
  }

  private fail(error: AppError): void {
    if (this.state === 'failed' || this.state === 'stopped') {
      return;
    }
    const wasStarting = this.state === 'starting';
    this.state = 'failed';
    this.failure = error;
    if (wasStarting) {
      this.onStartFailure?.(error);
    }
    this.rejectAll(error);
    // a helper that broke the protocol cannot be trusted with further requests
    void this.channel.close();
  }

  private rejectAll(error: AppError): void {
    for (const [id, pending] of this.pending) {
      clearTimeout(pending.timer);
      pending.reject(error);
      this.pending.delete(id);
    }
  }
}

function toAppError(error: unknown, code: ErrorCode): AppError {
  if (error instanceof AppError) {
    return error;
  }
  return new AppError(code, error instanceof Error ? error.message : String(error));
}
