// The recording UX of the desktop app as a pure state machine: what the tray, the global hotkeys
// and the HUD ask for, and what the recorder reports, in; the commands for the recorder and the
// view (tray menu and tooltip, HUD, main window visibility, a notice) out. The recorder is the
// authority: its status reports decide the phase. A recording that ends with an error without
// being asked to (the recorder died, the disk filled up) is a crash: back to idle with a notice
// saying why and what was kept. States: idle → starting → recording ⇄ paused → stopping → idle.
import { assertNever } from '../shared/assert';
import { RECORDER_STATES } from '../shared/contract';

/** The recorder's phases (the contract's RECORDER_STATES). */
export const RECORDER_PHASES = RECORDER_STATES;
/** One of {@link RECORDER_PHASES}. */
export type RecorderPhase = (typeof RECORDER_PHASES)[number];

/** What the recorder reports (the fields of the contract's recorder status this machine reads). */
export type RecorderSnapshot = {
  state: RecorderPhase;
  /** Task of the recording under way (null when idle). */
  task: string | null;
  /** Time recorded, pauses excluded, ms. */
  elapsedMs: number;
  /** The recording the last stop saved. */
  lastRecordingId: string | null;
  /** Why the last recording ended on its own or failed to start. */
  error: { code: string; message: string } | null;
};

/** A command for the recorder (or, `ask-task`, for the app: open the Record page). */
export type UxCommand =
  | { kind: 'start'; task: string }
  | { kind: 'pause' }
  | { kind: 'resume' }
  | { kind: 'stop' }
  | { kind: 'discard' }
  | { kind: 'ask-task' };

/** What can happen. */
export type UxInput =
  /** The start/stop tray item: start with the last task, or stop. */
  | { type: 'toggle-recording' }
  /**
   * A global hotkey press. Only a start is the app's to do: while a recording runs, the recorder
   * acts on the same chords itself (its input hook sees them; the settings give both the same
   * hotkeys), so acting here too would stop twice or pause and resume at once.
   */
  | { type: 'hotkey'; action: 'startStop' | 'pause' }
  /** A start with a task (the Record page, or the app after `ask-task`). */
  | { type: 'start'; task: string }
  /** The pause hotkey or tray item: pause or resume. */
  | { type: 'toggle-pause' }
  | { type: 'stop' }
  | { type: 'discard' }
  /** The recorder's status (get-status answer or status-changed event), seen at `atMs`. */
  | { type: 'status'; status: RecorderSnapshot; atMs: number }
  /** A command the recorder refused. */
  | { type: 'command-failed'; command: UxCommand['kind']; message: string }
  /** The recorder process died under us. */
  | { type: 'recorder-died'; message: string }
  | { type: 'dismiss-notice' };

/** The machine's state. */
export type UxState = {
  phase: RecorderPhase;
  /** Task of the recording under way. */
  task: string | null;
  /** The task a quick start (hotkey, tray) reuses. */
  lastTask: string | null;
  /** Elapsed time at the last status, ms, and when that status came (wall clock ms). */
  elapsedMs: number;
  elapsedAtMs: number;
  lastRecordingId: string | null;
  /** Something to tell the user (a crash, a failed start), until dismissed. */
  notice: string | null;
};

/** The state before anything happened. */
export const INITIAL_UX_STATE: UxState = {
  phase: 'idle',
  task: null,
  lastTask: null,
  elapsedMs: 0,
  elapsedAtMs: 0,
  lastRecordingId: null,
  notice: null,
};

/** Outcome of one input: the next state and the commands to run. */
export type UxStep = { state: UxState; commands: UxCommand[] };

const isCapturing = (phase: RecorderPhase): boolean => phase === 'recording' || phase === 'paused';

// The next state of `state` after `input`, with the commands it asks for.
export function reduceUx(state: UxState, input: UxInput): UxStep {
  const stay: UxStep = { state, commands: [] };
  switch (input.type) {
    case 'toggle-recording':
      if (state.phase === 'idle') {
        return state.lastTask === null
          ? { state, commands: [{ kind: 'ask-task' }] }
          : reduceUx(state, { type: 'start', task: state.lastTask });
      }
      return isCapturing(state.phase) ? reduceUx(state, { type: 'stop' }) : stay;
    case 'hotkey':
      return state.phase === 'idle' && input.action === 'startStop'
        ? reduceUx(state, { type: 'toggle-recording' })
        : stay;
    case 'start': {
      const task = input.task.trim();
      if (state.phase !== 'idle' || task === '') {
        return stay;
      }
      return {
        state: { ...state, phase: 'starting', task, lastTask: task, elapsedMs: 0, notice: null },
        commands: [{ kind: 'start', task }],
      };
    }
    case 'toggle-pause':
      if (state.phase === 'recording') {
        return { state: { ...state, phase: 'paused' }, commands: [{ kind: 'pause' }] };
      }
      if (state.phase === 'paused') {
        return { state: { ...state, phase: 'recording' }, commands: [{ kind: 'resume' }] };
      }
      return stay;
    case 'stop':
      return isCapturing(state.phase)
        ? { state: { ...state, phase: 'stopping' }, commands: [{ kind: 'stop' }] }
        : stay;
    case 'discard':
      return isCapturing(state.phase)
        ? { state: { ...state, phase: 'stopping' }, commands: [{ kind: 'discard' }] }
        : stay;
    case 'status':
      return { state: followStatus(state, input.status, input.atMs), commands: [] };
    case 'command-failed':
      return { state: afterFailedCommand(state, input.command, input.message), commands: [] };
    case 'recorder-died':
      return {
        state: {
          ...state,
          phase: 'idle',
          task: null,
          notice:
            isCapturing(state.phase) || state.phase === 'starting'
              ? `The recorder stopped unexpectedly (${input.message}). What it captured until ` +
                'then is kept: the library recovers it.'
              : `The recorder stopped (${input.message}).`,
        },
        commands: [],
      };
    case 'dismiss-notice':
      return { state: { ...state, notice: null }, commands: [] };
    default:
      return assertNever(input, 'UX input');
  }
}

// The state after the recorder's report: its phase wins; an end nobody asked for is a crash.
function followStatus(state: UxState, status: RecorderSnapshot, atMs: number): UxState {
  const next: UxState = {
    ...state,
    phase: status.state,
    task: status.state === 'idle' ? null : (status.task ?? state.task),
    lastTask: status.task ?? state.lastTask,
    elapsedMs: status.elapsedMs,
    elapsedAtMs: atMs,
    lastRecordingId: status.lastRecordingId,
  };
  if (status.state !== 'idle' || state.phase === 'idle') {
    return next;
  }
  if (state.phase === 'stopping') {
    // the end we asked for; an error here still deserves saying (e.g. saved but damaged)
    return status.error === null
      ? next
      : { ...next, notice: `The recording ended with a problem: ${status.error.message}` };
  }
  if (state.phase === 'starting') {
    return {
      ...next,
      notice: `The recording could not start: ${status.error?.message ?? 'no reason given'}`,
    };
  }
  if (status.error === null) {
    // an end without an error is a stop (the recorder's own stop hotkey), not a crash
    return next;
  }
  const saved =
    status.lastRecordingId !== null && status.lastRecordingId !== state.lastRecordingId
      ? ` What was captured is saved as recording ${status.lastRecordingId}.`
      : '';
  return {
    ...next,
    notice: `The recording stopped on its own: ${status.error.message}.${saved}`,
  };
}

// The state after the recorder refused a command: a refused start is back to idle; a refused
// pause or resume undoes its optimistic phase; a refused stop or discard keeps recording.
function afterFailedCommand(state: UxState, command: UxCommand['kind'], message: string): UxState {
  switch (command) {
    case 'start':
      return { ...state, phase: 'idle', task: null, notice: `Could not start: ${message}` };
    case 'pause':
      return state.phase === 'paused'
        ? { ...state, phase: 'recording', notice: `Could not pause: ${message}` }
        : { ...state, notice: `Could not pause: ${message}` };
    case 'resume':
      return state.phase === 'recording'
        ? { ...state, phase: 'paused', notice: `Could not resume: ${message}` }
        : { ...state, notice: `Could not resume: ${message}` };
    case 'stop':
    case 'discard':
      return {
        ...state,
        phase: state.phase === 'stopping' ? 'recording' : state.phase,
        notice: `Could not ${command}: ${message}`,
      };
    case 'ask-task':
      return state;
    default:
      return assertNever(command, 'command');
  }
}

/** Identifiers of the tray menu's items. */
export const TRAY_ITEMS = ['toggle-recording', 'toggle-pause', 'discard', 'show', 'quit'] as const;
/** One of {@link TRAY_ITEMS}. */
export type TrayItemId = (typeof TRAY_ITEMS)[number];

/** One tray menu item. */
export type TrayItemView = {
  id: TrayItemId;
  label: string;
  enabled: boolean;
  /** Electron accelerator shown beside the label (the global hotkey), if any. */
  accelerator?: string;
};

/** What the UX shows. */
export type UxView = {
  tray: { tooltip: string; phase: RecorderPhase; items: TrayItemView[] };
  hud: {
    visible: boolean;
    task: string;
    /** `m:ss` or `h:mm:ss`. */
    elapsedText: string;
    isPaused: boolean;
    canPause: boolean;
    canStop: boolean;
    /** Short state text (`Recording`, `Paused`, `Starting…`, `Saving…`). */
    status: string;
  };
  /** The main window is hidden while a recording is under way (out of the video). */
  mainWindowVisible: boolean;
  notice: string | null;
};

/** Accelerators of the hotkeys, shown in the tray. */
export type ViewHotkeys = { startStop?: string; pause?: string };

/** Formats ms as `m:ss` (or `h:mm:ss` from an hour). */
export function formatElapsed(ms: number): string {
  const total = Math.max(0, Math.floor(ms / 1000));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = String(total % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${s}` : `${m}:${s}`;
}

/** Elapsed recording time at `nowMs`: the last report plus the time since, while recording. */
export function elapsedAt(state: UxState, nowMs: number): number {
  return state.phase === 'recording'
    ? state.elapsedMs + Math.max(0, nowMs - state.elapsedAtMs)
    : state.elapsedMs;
}

const STATUS_TEXT: Record<RecorderPhase, string> = {
  idle: 'Ready',
  starting: 'Starting…',
  recording: 'Recording',
  paused: 'Paused',
  stopping: 'Saving…',
};

// What the tray, the HUD and the main window show in `state` at `nowMs`.
export function viewUx(state: UxState, nowMs: number, hotkeys: ViewHotkeys = {}): UxView {
  const { phase } = state;
  const capturing = isCapturing(phase);
  const elapsedText = formatElapsed(elapsedAt(state, nowMs));
  const withKey = (item: TrayItemView, accelerator: string | undefined): TrayItemView =>
    accelerator === undefined ? item : { ...item, accelerator };
  const toggleLabel =
    phase === 'idle'
      ? state.lastTask === null
        ? 'Start recording…'
        : 'Start recording'
      : phase === 'starting'
        ? 'Starting…'
        : phase === 'stopping'
          ? 'Saving…'
          : 'Stop recording';
  const items: TrayItemView[] = [
    withKey(
      { id: 'toggle-recording', label: toggleLabel, enabled: phase === 'idle' || capturing },
      hotkeys.startStop,
    ),
    withKey(
      { id: 'toggle-pause', label: phase === 'paused' ? 'Resume' : 'Pause', enabled: capturing },
      hotkeys.pause,
    ),
    { id: 'discard', label: 'Discard recording', enabled: capturing },
    { id: 'show', label: 'Show window', enabled: phase === 'idle' },
    { id: 'quit', label: 'Quit', enabled: true },
  ];
  const tooltip =
    phase === 'idle'
      ? 'cua-annotator: ready'
      : `cua-annotator: ${STATUS_TEXT[phase].toLowerCase()}` +
        (state.task === null ? '' : ` — ${state.task}`) +
        (capturing ? ` (${elapsedText})` : '');
  return {
    tray: { tooltip, phase, items },
    hud: {
      visible: phase !== 'idle',
      task: state.task ?? '',
      elapsedText,
      isPaused: phase === 'paused',
      canPause: capturing,
      canStop: capturing,
      status: STATUS_TEXT[phase],
    },
    mainWindowVisible: phase === 'idle',
    notice: state.notice,
  };
}
