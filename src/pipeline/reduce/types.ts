// Public types of the action reducer (docs/action-reduction.md §C).
import type { Step } from '../../shared/domain/step';
import type { ElementContext } from '../agentnet/accessibility';

/** Platforms whose key naming differs (`cmd` is Cmd on macOS, the Windows key elsewhere). */
export type ReducePlatform = 'win32' | 'darwin' | 'linux';

/** Where the raw events come from (AgentNet import enables the stop-chord filter of §C.3.3). */
export type ReduceSource = 'agentnet' | 'recorder';

/** Everything the reducer needs to know about the recording besides its events. */
export type ReduceContext = {
  /** Size of the coordinate space of every event x/y (px; AgentNet: metadata screen size). */
  screen: { width: number; height: number };
  /** Physical px per logical px of the captured display (AgentNet import: 1). */
  scaleFactor: number;
  /** Platform the recording was made on. */
  platform: ReducePlatform;
  /** Origin of the events. */
  source: ReduceSource;
  /** OS double-click time in seconds, when the recorder captured it (default 0.5 s). */
  doubleClickTimeS?: number;
  /** OS double-click radius in logical px, when the recorder captured it (default 4 px). */
  doubleClickRadiusPx?: number;
  /**
   * Elements under the pointer recorded at presses (time-sorted). When given, pointer steps get
   * the element as `target` and labels name it ("Click on Save button"); absent (AgentNet
   * imports, the goldens) the labels stay the type words.
   */
  elements?: readonly ElementContext[];
};

/** Thresholds of the rule set (docs/action-reduction.md §C.2). Distances in logical px. */
export type ReduceConstants = {
  /** Drag iff press→release distance `>` this (logical px). Default 6. */
  dragMinPx: number;
  /** Max press-to-press gap of consecutive clicks of one group (s). Default OS value, else 0.5. */
  multiClickGapS: number;
  /** Max distance of a group's press from the group's first press (logical px). Default 4. */
  multiClickRadiusPx: number;
  /** Largest click count of a group; the next click starts a new group. Default 3. */
  maxClickCount: number;
  /** Hold longer than this (s) and not a drag → long press. Default 1.0. */
  longPressS: number;
  /** Scroll `end = last tick + pad` (s). Default 0.2. */
  scrollEndPadS: number;
  /** A tick joins the open scroll group if `t − previous tick ≤` this (s). Default 3.0. */
  scrollMergeGapS: number;
  /** A tick joins the open scroll group if within this of its first tick (logical px). Default 32. */
  scrollMergeRadiusPx: number;
  /** Keyboard-run `end = last key-down + pad` (s). Default 0.2. */
  typeEndPadS: number;
  /** Hotkey `end = key-down + pad` when the chord key has no key-up (s). Default 0.2. */
  hotkeyEndPadS: number;
};

/** Why an event belongs to no step (docs/action-reduction.md §C.11). */
export type UnownedReason =
  | 'control-input'
  | 'orphan-release'
  | 'unsupported-kind'
  | 'zero-wheel'
  | 'lone-modifier-tap'
  | 'trailing-move';

/** Diagnostic codes (docs/action-reduction.md §C.11). */
export type ReduceDiagnosticCode =
  | 'CLOCK_NON_MONOTONIC'
  | 'KEY_UNKNOWN'
  | 'MISSING_UP'
  | 'NON_LEFT_DRAG_LOSSY'
  | 'MODIFIER_CLICK_LOSSY'
  | 'UNSUPPORTED_BUTTON'
  | 'IME_COMPOSITION';

/** An event owned by no step. */
export type UnownedEvent = {
  /** Raw event idx. */
  idx: number;
  /** Why. */
  reason: UnownedReason;
};

/** One finding of the reduction. */
export type ReduceDiagnostic = {
  /** Stable code. */
  code: ReduceDiagnosticCode;
  /** Raw event idx the finding is about, when there is one. */
  idx?: number;
  /** Human-readable detail. */
  detail?: string;
};

/** Output of {@link reduce}. */
export type ReduceResult = {
  /** Steps ordered by start time (ties by eventStartIdx); `index` = position. */
  steps: Step[];
  /** Events owned by no step, ordered by idx. */
  unowned: UnownedEvent[];
  /** Every finding, ordered by idx (findings without idx last). */
  diagnostics: ReduceDiagnostic[];
  /** Semver of the rule set that produced the steps. */
  reducerVersion: string;
  /** Thresholds used. */
  constants: ReduceConstants;
};

/** A moved-through point (pre-move, hold path, in-group path). */
export type PathPoint = {
  /** Raw event idx. */
  idx: number;
  /** Position in the coordinate space (px). */
  x: number;
  y: number;
  /** Recording clock (ms). */
  tMs: number;
};

/** One scroll tick of a scroll step. */
export type ScrollTickRecord = {
  /** Raw event idx. */
  idx: number;
  /** Pointer position (px). */
  x: number;
  y: number;
  /** Notches; dy > 0 = up, dx > 0 = right. */
  dx: number;
  dy: number;
  /** Recording clock (ms). */
  tMs: number;
};

/** One key-down of a keyboard step. */
export type KeystrokeRecord = {
  /** Raw event idx of the key-down. */
  idx: number;
  /** Normalised key name (docs/action-reduction.md §C.6). */
  key: string;
  /** Raw key name as recorded (AgentNet: pynput name). */
  rawKey: string;
  /** Text the key produced ('' for named keys). */
  text: string;
  /** OS auto-repeat (or a repeated down without release). */
  isRepeat: boolean;
  /** Recording clock of the key-down (ms). */
  tMs: number;
};

/** One press/release pair of a pointer step. */
export type PressRecord = {
  /** Raw idx of the button-down. */
  downIdx: number;
  /** Raw idx of the button-up, null when it was missing. */
  upIdx: number | null;
  /** Press / release positions (px). */
  x: number;
  y: number;
  upX: number;
  upY: number;
  /** Press / release (or forced close) times (ms). */
  startMs: number;
  endMs: number;
};

/** Fields an AgentNet exporter writes into the complete row (docs/agentnet-raw-format.md §10, §13). */
export type AgentNetRowFields = {
  /** Complete-row `action`: click, mouse_press, drag, scroll, type, press. */
  action: string;
  click_type?: number;
  button?: string;
  coordinate?: { x: number; y: number };
  /** Click/drag: one `{start_time, end_time}` per click (s). Type: key-down times (s). Scroll: tick times (s). */
  time_trace?: { start_time: number; end_time: number }[] | number[];
  drag_trace?: [number, number][];
  drag_time_trace?: number[];
  trace?: { x: number; y: number; dx: number; dy: number }[];
  key_names?: string[];
  key_name?: string;
  /** The pre-move, when moves precede the step (times in s). */
  pre_move?: {
    event_start_idx: number;
    start_time: number;
    end_time: number;
    trace: [number, number][];
    time_trace: number[];
  };
};

/** `Step.extra` of reduced steps (JSON-safe). */
export type ReducedStepExtra = {
  /** First and last raw idx owned by the step (pre-move and paths included). */
  ownedIdx: [number, number];
  /** Owned non-move events (presses, releases, ticks, keys, modifiers), ascending idx. */
  mainIdx: number[];
  /** Owned moves that are not the pre-move: hold paths and in-group paths. */
  pathIdx: number[];
  /** Pointer steps: button, click count, long press flag, presses. */
  button?: string;
  clickCount?: number;
  longPress?: boolean;
  presses?: PressRecord[];
  /** Drag end point (px). */
  dragTo?: { x: number; y: number };
  /** Moves while the button was held (drags; also jitter of clicks). */
  dragPath?: PathPoint[];
  /** Modifiers held at the press / tick / chord, canonical order. */
  modifiers?: string[];
  /** Scroll steps. */
  ticks?: ScrollTickRecord[];
  /** Keyboard steps. */
  keystrokes?: KeystrokeRecord[];
  /** Hotkey keys (modifiers in canonical order + base key). */
  keys?: string[];
  /** Raw idx of the pre-move's moves (positions and times are in `agentnet.pre_move`). */
  preMoveIdx?: number[];
  /** Exporter fields in AgentNet shape (seconds). */
  agentnet: AgentNetRowFields;
};
