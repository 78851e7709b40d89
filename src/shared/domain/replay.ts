// Replay of a trajectory on a desktop and its score (issue 15 item 1; docs/replay.md §2, §5).

/** Why a replay stopped before its end. */
export const REPLAY_STOP_REASONS = ['user-input', 'hotkey', 'cancelled', 'error'] as const;
/** One of {@link REPLAY_STOP_REASONS}. */
export type ReplayStopReason = (typeof REPLAY_STOP_REASONS)[number];

/** One step's comparison before it was driven, or the end state (`kind: 'end'`). */
export type ReplayStepResult = {
  /** Step index (edited numbering); the end state has the number of steps. */
  index: number;
  kind: 'step' | 'end';
  /** The step's id; null for the end state. */
  stepId: string | null;
  /** changedFraction of the live screen against the keyframe; null when not compared. */
  screenDiff: number | null;
  /** Element under the action point has the recorded role and name; null: none recorded. */
  elementMatch: boolean | null;
  /** Screen matches and the element does not mismatch (false for a masked step). */
  ok: boolean;
  /** A step typed into a password field (its text masked at capture): not driven, not compared
   * and left out of the score (docs/replay.md §5); absent in reports older than this field. */
  masked?: boolean;
  /** The recorded element `{controlType, title}` and the live one, when compared. */
  recordedElement: { controlType: string; title: string } | null;
  liveElement: { controlType: string; title: string } | null;
  /** Replay-screen point where the element was read (the step's action point). */
  actionPoint: { x: number; y: number } | null;
  /** Why the step was not compared or driven (unsupported call, no keyframe), else null. */
  note: string | null;
  /** The live screen of a divergent step, relative to the recording's folder; else null. */
  screenshot: string | null;
  /** The keyframe it was compared with, relative to the recording's folder; else null. */
  keyframe: string | null;
  /** Time spent grabbing + comparing + reading the element (ms). */
  measureMs: number;
  /** Time spent driving the step's actions (ms, without pacing waits). */
  driveMs: number;
};

/** Where and why a replay stopped early. */
export type ReplayStop = {
  reason: ReplayStopReason;
  /** The step being measured or driven when it stopped. */
  stepIndex: number;
  message: string;
  /** Where the pointer was when the user's input was seen (user-input only). */
  pointer?: { x: number; y: number };
};

/** The result of one replay run. */
export type ReplayReport = {
  /** The recording's id. */
  id: string;
  /** This run's id (folder name under `<recording>/replay/`). */
  runId: string;
  startedAt: string;
  display: string | null;
  speed: number;
  /** The replay screen and the recorded one (px). */
  screen: { width: number; height: number };
  recordedScreen: { width: number; height: number };
  /** Per step, then the end state (absent when the replay stopped before it). */
  steps: ReplayStepResult[];
  /** Share of compared results (steps and end state) that are ok, 0–1. */
  score: number;
  /** Index of the first result that is not ok, null when all are. */
  firstDivergent: number | null;
  /** Steps in the recording (the end state not counted). */
  stepCount: number;
  /** Null when it ran to the end. */
  stopped: ReplayStop | null;
  durationMs: number;
  /** What the run could not do (no accessibility, no stop hotkey), for humans. */
  warnings: string[];
};
