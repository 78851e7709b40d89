// Accessibility over a per-OS helper executable (macOS AX, Windows UIA; sources under native/)
// that speaks JSON lines (docs/architecture.md §5): this module is the pure protocol half. It parses
// and validates every line, matches responses to requests, enforces timeouts and maps helper
// results onto the shared model. Spawning lives in
// src/recorder/accessibility/native-helper-process.ts on the src/infra process primitives
// (axtree may import neither node:child_process nor src/infra).
import { AppError, ERROR_CODES } from '../../shared/errors';
import type { ErrorCode } from '../../shared/errors';
import type { AccessibilityAdapter, AccessibilityInfo } from '../adapter';
import type { AxBudget } from '../budgets';
import { normalizeBudget } from '../budgets';
import type { AxElementRecord, AxFocusEvent, AxSnapshot } from '../model';
import { AxShapeError, isSecureNode, parseAxElementRecord, parseAxSnapshot } from '../model';

/** Protocol version this client speaks (the `protocol` field of the hello line). */
export const HELPER_PROTOCOL_VERSION = 1;

/** Method names the helpers implement. */
export const HELPER_METHODS = {
  elementAt: 'elementAt',
  snapshotFocusedWindow: 'snapshotFocusedWindow',
  focusedIsSecure: 'focusedIsSecure',
} as const;

/** First line a helper prints: `{"type":"hello","protocol":1,"capabilities":[…]}`. */
export type HelperHello = { type: 'hello'; protocol: number; capabilities: string[] };

/** Error half of a failed response. */
export type HelperErrorBody = { code: string; message: string };

/** A response to request `id`. */
export type HelperResponse =
  | { type: 'response'; id: number; ok: true; result: unknown }
  | { type: 'response'; id: number; ok: false; error: HelperErrorBody };

/** An unsolicited event, e.g. `{"type":"event","t":12.5,"event":"focus",…}`. */
export type HelperEvent = {
  type: 'event';
  /** Helper's monotonic clock in seconds, informational only (the parent stamps its own). */
  t: number | null;
  /** Event name, e.g. `focus`. */
  event: string;
  /** The whole event object. */
  data: Record<string, unknown>;
};

/** Any valid line from a helper. */
export type HelperMessage = HelperHello | HelperResponse | HelperEvent;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function protocolError(message: string, details?: Record<string, unknown>): AppError {
  return new AppError('HELPER_PROTOCOL_ERROR', message, details);
}

/** Cuts a line for error messages. */
function excerpt(line: string): string {
  return line.length > 200 ? `${line.slice(0, 200)}…` : line;
}

// Parses one stdout line; throws HELPER_PROTOCOL_ERROR for anything that is not a valid message.
export function parseHelperLine(line: string): HelperMessage {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    throw protocolError(`helper printed a line that is not JSON: ${excerpt(line)}`);
  }
  if (!isRecord(value)) {
    throw protocolError(`helper printed JSON that is not an object: ${excerpt(line)}`);
  }
  if (value.type === 'hello') {
    const { protocol, capabilities } = value;
    if (typeof protocol !== 'number' || !Number.isInteger(protocol)) {
      throw protocolError(`hello without an integer protocol: ${excerpt(line)}`);
    }
    if (!Array.isArray(capabilities) || !capabilities.every((c) => typeof c === 'string')) {
      throw protocolError(`hello without a capabilities string array: ${excerpt(line)}`);
    }
    return { type: 'hello', protocol, capabilities };
  }
  if (value.type === 'event') {
    if (typeof value.event !== 'string') {
      throw protocolError(`event without an event name: ${excerpt(line)}`);
    }
    return {
      type: 'event',
      t: typeof value.t === 'number' ? value.t : null,
      event: value.event,
      data: value,
    };
  }
  if (value.type === undefined && 'id' in value) {
    const { id, ok } = value;
    if (typeof id !== 'number' || !Number.isInteger(id)) {
      throw protocolError(`response with a non-integer id: ${excerpt(line)}`);
    }
    if (ok === true) {
      return { type: 'response', id, ok: true, result: value.result ?? null };
    }
    if (ok === false && isRecord(value.error)) {
      const { code, message } = value.error;
      if (typeof code === 'string' && typeof message === 'string') {
        return { type: 'response', id, ok: false, error: { code, message } };
      }
    }
    throw protocolError(`response without ok/result or ok/error{code,message}: ${excerpt(line)}`);
  }
  throw protocolError(`unknown message from helper: ${excerpt(line)}`);
}

/** Encodes a request line (with the trailing newline). */
export function encodeHelperRequest(id: number, method: string, params: unknown): string {
  return `${JSON.stringify({ id, method, params })}\n`;
}

/** Encodes the shutdown line sent before closing stdin. */
export function encodeHelperShutdown(): string {
  return `${JSON.stringify({ type: 'shutdown' })}\n`;
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
  /** Session clock in ms (CLOCK_MONOTONIC); stamps records and events. */
  now: () => number;
  /** Limit for the hello line after spawning, ms; default 5 000. */
  startTimeoutMs?: number;
  /** Limit per request, ms; default 2 000 (snapshots get their budget's maxMs + this). */
  requestTimeoutMs?: number;
};

/** Default limit for the hello line, ms. */
export const DEFAULT_HELPER_START_TIMEOUT_MS = 5000;
/** Default limit per request, ms. */
export const DEFAULT_HELPER_REQUEST_TIMEOUT_MS = 2000;

type Pending = {
  method: string;
  resolve: (value: unknown) => void;
  reject: (error: AppError) => void;
  timer: ReturnType<typeof setTimeout>;
};

type State = 'idle' | 'starting' | 'ready' | 'failed' | 'stopped';

const KNOWN_CODES: readonly string[] = ERROR_CODES;

/** AccessibilityAdapter over a JSON-lines helper reached through a {@link HelperChannel}. */
export class NativeHelperAdapter implements AccessibilityAdapter {
  private state: State = 'idle';
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  // ids that timed out: their late responses are legitimate and ignored
  private readonly abandoned = new Set<number>();
  private readonly focusListeners = new Set<(event: AxFocusEvent) => void>();
  private failure: AppError | null = null;
  private hello: HelperHello | null = null;
  private onHello: ((hello: HelperHello) => void) | null = null;
  private onStartFailure: ((error: AppError) => void) | null = null;
  private readonly startTimeoutMs: number;
  private readonly requestTimeoutMs: number;

  constructor(
    private readonly channel: HelperChannel,
    private readonly options: NativeHelperAdapterOptions,
  ) {
    this.startTimeoutMs = options.startTimeoutMs ?? DEFAULT_HELPER_START_TIMEOUT_MS;
    this.requestTimeoutMs = options.requestTimeoutMs ?? DEFAULT_HELPER_REQUEST_TIMEOUT_MS;
    channel.onLine((line) => this.handleLine(line));
    channel.onExit((exit) => this.handleExit(exit));
  }

  /** Capabilities announced in the hello line (empty before start). */
  get capabilities(): string[] {
    return this.hello?.capabilities ?? [];
  }

  // Spawns the helper and resolves on its hello line; HELPER_START_TIMEOUT after the limit.
  async start(): Promise<AccessibilityInfo> {
    if (this.state !== 'idle') {
      throw new Error(
        `NativeHelperAdapter.start() called in state '${this.state}'; create a new one`,
      );
    }
    this.state = 'starting';
    try {
      await this.channel.open();
      const hello = await this.waitForHello();
      this.state = 'ready';
      return { backend: 'native-helper', capabilities: hello.capabilities };
    } catch (error) {
      this.state = 'failed';
      this.failure = toAppError(error, 'HELPER_EXITED');
      await this.channel.close();
      throw this.failure;
    }
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
    if (this.state !== 'ready') {
      throw (
        this.failure ??
        new Error(`NativeHelperAdapter.request('${method}') in state '${this.state}'; call start()`)
      );
    }
    const id = this.nextId;
    this.nextId += 1;
    const limitMs = timeoutMs ?? this.requestTimeoutMs;
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
    return this.shaped(HELPER_METHODS.elementAt, () =>
      parseAxElementRecord({ ...asRecord(result), tMs, x, y }, 'result'),
    );
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
    return this.shaped(HELPER_METHODS.snapshotFocusedWindow, () =>
      parseAxSnapshot({ ...asRecord(result), tMs, durationMs }, 'result'),
    );
  }

  // True when the focused element is a secure text field.
  async focusedIsSecure(): Promise<boolean> {
    const result = await this.request(HELPER_METHODS.focusedIsSecure, {});
    if (typeof result !== 'boolean') {
      throw protocolError(`'focusedIsSecure' returned ${JSON.stringify(result)}, not a boolean`);
    }
    return result;
  }

  // Subscribes to `focus` events from the helper.
  onFocusChanged(listener: (event: AxFocusEvent) => void): () => void {
    this.focusListeners.add(listener);
    return () => {
      this.focusListeners.delete(listener);
    };
  }

  // Stops the helper; pending requests are rejected with HELPER_EXITED.
  async stop(): Promise<void> {
    if (this.state === 'stopped') {
      return;
    }
    const wasRunning = this.state === 'ready' || this.state === 'starting';
    this.state = 'stopped';
    this.rejectAll(new AppError('HELPER_EXITED', 'accessibility helper stopped by the recorder'));
    if (wasRunning) {
      await this.channel.close();
    }
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
    if (this.state === 'starting') {
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
      }
      return;
    }
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

  private handleEvent(message: HelperEvent): void {
    if (message.event !== 'focus') {
      return; // newer helpers may send more events: ignore what we do not know
    }
    const { role, name } = message.data;
    if (typeof role !== 'string') {
      return;
    }
    const event: AxFocusEvent = {
      tMs: this.options.now(),
      role,
      name: typeof name === 'string' ? name : '',
      isSecure: message.data.isSecure === true || isSecureNode({ role }),
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

function asRecord(value: unknown): Record<string, unknown> {
  if (!isRecord(value)) {
    throw new AxShapeError('result', `expected an object, got ${JSON.stringify(value)}`);
  }
  return value;
}

function toAppError(error: unknown, code: ErrorCode): AppError {
  if (error instanceof AppError) {
    return error;
  }
  return new AppError(code, error instanceof Error ? error.message : String(error));
}
