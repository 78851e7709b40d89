// The parent's end of one input-hook child's pipes (docs/architecture.md §5): stdout split into
// JSON lines and checked (hook-protocol.ts), the event count checked against the heartbeats,
// stderr kept as a tail and watched for uiohook's start failures, and the shutdown request
// written to stdin. What the lines mean for capture is the supervisor's business.
import type { ChildProcess } from '../../infra/spawn-child';
import { LineSplitter } from '../../infra/lines';
import { StderrTail } from '../../infra/stderr-tail';
import { monotonicNowMs } from '../clock';
import { parseHookLine } from './hook-protocol';
import type { HookHelloLine, HookInputEvent } from './hook-protocol';

/** Longest stdout line accepted from the child, in characters. */
const MAX_LINE_CHARS = 1024 * 1024;
/** stderr lines kept per child for error messages. */
const STDERR_TAIL_LINES = 20;
/**
 * libuiohook's X11 start failures (stderr of the child), e.g. `xrecord_start [1024]: XOpenDisplay
 * failure!` and `xrecord_query [953]: XRecord is not currently available!`.
 */
const UIOHOOK_FATAL_START =
  /XOpenDisplay failure|XRecord is not currently available|Unable to locate XRecord|Failed to enable XRecord/;

/** What a channel reports; lines are only read while `isAccepting()` is true. */
export type HookChannelListener = {
  /** Lines are read (true) or dropped unread (false: a replaced child, or capture stopped). */
  isAccepting: () => boolean;
  /** An input event line. */
  onEvent: (callbackTMs: number, event: HookInputEvent) => void;
  /** The child's first hello line. */
  onHello: (hello: HookHelloLine) => void;
  /** The pointer came to rest (a rest line; the events before it were reported first). */
  onRest: (tMs: number) => void;
  /** The X server dropped input before the child saw it (a `lost` line). */
  onInputLost: (tMs: number, keyPresses: number) => void;
  /** A heartbeat counted more event lines than arrived (reported once per shortfall). */
  onEventsLost: (sent: number, received: number) => void;
  /** A malformed line; `count` is this child's total so far. */
  onProtocolError: (problem: string, line: string, count: number) => void;
  /** A chunk of stdout has been handled (its complete lines reported). */
  onLinesRead: () => void;
  /** A uiohook start-failure line on stderr (the supervisor decides whether to kill). */
  onFatalStartLine: (line: string) => void;
  /** The child has exited and its pipes are closed. */
  onClose: (code: number | null, signal: NodeJS.Signals | null) => void;
};

/** The pipes of one hook child and what came through them. */
export class HookChildChannel {
  /** Session clock at spawn, ms. */
  readonly spawnedAtMs = monotonicNowMs();
  /** The hello line, once it came. */
  hello: HookHelloLine | null = null;
  /** Parent clock of the last line received (the watchdog's sign of life). */
  lastLineAtMs = monotonicNowMs();
  /** Child clock of the last line received (where a gap starts). */
  lastChildTMs: number | null = null;
  /** Event lines received (set to the child's count after a reported shortfall). */
  receivedEvents = 0;
  /** Malformed lines received. */
  protocolErrors = 0;
  /** True once the child has exited and its pipes closed. */
  isClosed = false;
  /** Resolves when the child has closed. */
  readonly closed: Promise<void>;
  private readonly stderrTail = new StderrTail({ maxLines: STDERR_TAIL_LINES });

  constructor(
    /** The child process (stdin, stdout and stderr piped). */
    readonly proc: ChildProcess,
    private readonly listener: HookChannelListener,
  ) {
    let markClosed: () => void = () => undefined;
    this.closed = new Promise<void>((resolve) => {
      markClosed = resolve;
    });
    const stdout = new LineSplitter();
    proc.stdout?.setEncoding('utf8');
    proc.stdout?.on('data', (chunk: string) => {
      const lines = stdout.push(chunk);
      if (stdout.partial.length > MAX_LINE_CHARS) {
        const rest = stdout.flush()[0] ?? '';
        this.protocolError(`line longer than ${MAX_LINE_CHARS} characters`, rest);
      }
      for (const line of lines) {
        this.onLine(line);
      }
      this.listener.onLinesRead();
    });
    proc.stderr?.setEncoding('utf8');
    proc.stderr?.on('data', (chunk: string) => {
      for (const line of this.stderrTail.push(chunk)) {
        if (UIOHOOK_FATAL_START.test(line)) {
          this.listener.onFatalStartLine(line);
        }
      }
    });
    proc.on('error', (error) => {
      // spawn failures (ENOENT) come here; 'close' follows
      this.stderrTail.pushLine(`spawn error: ${error.message}`);
    });
    proc.on('close', (code, signal) => {
      const rest = stdout.flush()[0] ?? '';
      if (rest.trim() !== '') {
        this.onLine(rest);
        this.listener.onLinesRead();
      }
      this.isClosed = true;
      markClosed();
      this.listener.onClose(code, signal);
    });
  }

  /** Process id of the child (undefined when the spawn failed). */
  get pid(): number | undefined {
    return this.proc.pid;
  }

  /** The kept stderr lines, joined ('' when none). */
  stderrText(): string {
    return this.stderrTail.text();
  }

  /** Sends the shutdown request and closes stdin (the child also exits on stdin's end); false
   * when stdin is gone and nothing could be sent. */
  requestShutdown(): boolean {
    const stdin = this.proc.stdin;
    if (!stdin || stdin.destroyed) {
      return false;
    }
    stdin.on('error', () => undefined);
    stdin.write(`${JSON.stringify({ id: 'stop', method: 'shutdown' })}\n`);
    stdin.end();
    return true;
  }

  /** Sends `signal` to the child. */
  kill(signal: NodeJS.Signals): void {
    this.proc.kill(signal);
  }

  private protocolError(problem: string, line: string): void {
    this.protocolErrors += 1;
    this.listener.onProtocolError(problem, line, this.protocolErrors);
  }

  private onLine(text: string): void {
    if (!this.listener.isAccepting()) {
      return;
    }
    this.lastLineAtMs = monotonicNowMs();
    if (text.trim() === '') {
      return;
    }
    const parsed = parseHookLine(text);
    if (!parsed.ok) {
      this.protocolError(parsed.problem, text);
      return;
    }
    const line = parsed.line;
    switch (line.type) {
      case 'event':
        this.receivedEvents += 1;
        this.lastChildTMs = line.t;
        this.listener.onEvent(line.t, line.e);
        return;
      case 'rest':
        this.lastChildTMs = line.t;
        this.listener.onRest(line.t);
        return;
      case 'lost':
        this.lastChildTMs = line.t;
        this.listener.onInputLost(line.t, line.keyPresses);
        return;
      case 'heartbeat':
        this.lastChildTMs = line.t;
        if (line.sent !== this.receivedEvents) {
          const received = this.receivedEvents;
          // report each shortfall once
          this.receivedEvents = line.sent;
          this.listener.onEventsLost(line.sent, received);
        }
        return;
      case 'hello':
        if (this.hello !== null) {
          this.protocolError('second hello', text);
          return;
        }
        this.hello = line;
        this.lastChildTMs = line.t;
        this.listener.onHello(line);
        return;
      case 'response':
        // the only request is shutdown; its answer needs no handling
        return;
    }
  }
}
