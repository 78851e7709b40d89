// Checks before submit (issue 15 item 4, docs/quality.md §1): a pure function from what the
// library knows about a recording (edited steps, screen, video range, keyframe freshness,
// settings, privacy findings) to the list of problems, each with its code, step, message, fix
// and severity. The service (src/services/quality/check-service.ts) gathers the inputs.
import type {
  ActionCall,
  ActionName,
  CheckCode,
  CheckProblem,
  CheckResult,
  CheckSeverity,
  PiiKind,
  PiiSource,
  Step,
} from '../../shared/domain';
import { BLOCKING_PII_KINDS } from '../../shared/domain';

/** A gap between consecutive steps longer than this (ms) is a long idle stretch (LONG_IDLE). */
export const LONG_IDLE_MS = 60_000;

/** Actions whose back-to-back repetition is normal (typing on, pressing a key again, scrolling
 * on, undoing twice, waiting): never reported as DUPLICATE_STEP. */
export const REPEATABLE_ACTIONS: readonly ActionName[] = [
  'write',
  'press',
  'hotkey',
  'scroll',
  'hscroll',
  'wait',
];

/** Calls that are not an action of the user (NO_ACTIONS counts the others). */
const NON_ACTIONS: readonly ActionName[] = ['wait', 'terminate'];

/** A privacy finding as the checker needs it (resolved: null when open). */
export type CheckFinding = {
  kind: PiiKind;
  source: PiiSource;
  stepIndex: number | null;
  resolved: 'accepted' | 'redacted' | null;
};

/** Everything the checker looks at. */
export type CheckInput = {
  /** The task instruction. */
  task: string;
  /** The edited steps (effectiveSteps), in order. */
  steps: readonly Pick<
    Step,
    'id' | 'index' | 'kind' | 'label' | 'calls' | 'startMs' | 'endMs' | 'coordinate'
  >[];
  /** Size of the recorded display (physical px); step coordinates are relative to its origin. */
  screen: { width: number; height: number };
  /** Recording-clock range of the video (ms), null when the recording has none. */
  video: { startMs: number; endMs: number } | null;
  /** Keyframe freshness: ids of steps whose stored keyframe is missing or stale, and whether the
   * terminate keyframe is; and the fresh keyframes stored without an image (the frame could not
   * be read: every export and upload would stop), with their frame (stepId null: terminate). */
  keyframes: {
    staleStepIds: readonly string[];
    isTerminateStale: boolean;
    imageless?: readonly { stepId: string | null; frame: number | null }[];
  };
  /** The settings that change what is checked. */
  settings: { requireLabels: boolean };
  /** Privacy findings with their resolution. */
  findings: readonly CheckFinding[];
};

/** Options of {@link checkRecording}. */
export type CheckOptions = {
  /** Threshold of LONG_IDLE (ms); default {@link LONG_IDLE_MS}. */
  idleMs?: number;
};

const SEVERITY: Record<CheckCode, CheckSeverity> = {
  TASK_MISSING: 'error',
  NO_ACTIONS: 'error',
  KEYFRAME_MISSING: 'error',
  COORDINATE_OFF_SCREEN: 'error',
  STEP_OUTSIDE_VIDEO: 'error',
  UNLABELLED_STEP: 'error',
  LONG_IDLE: 'warning',
  DUPLICATE_STEP: 'warning',
  NO_TERMINATE: 'warning',
  PII_UNRESOLVED: 'error',
  PII_FINDING: 'warning',
};

/** The severity of a code (docs/quality.md §1). */
export function checkSeverity(code: CheckCode): CheckSeverity {
  return SEVERITY[code];
}

const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

// Same calls (names and arguments, in order): the same action code.
function sameCalls(a: readonly ActionCall[], b: readonly ActionCall[]): boolean {
  return a.length > 0 && JSON.stringify(a) === JSON.stringify(b);
}

/** Checks one recording's data; `ok` is false when any problem is an error. */
export function checkRecording(input: CheckInput, options: CheckOptions = {}): CheckResult {
  const idleMs = options.idleMs ?? LONG_IDLE_MS;
  const problems: CheckProblem[] = [];
  const add = (code: CheckCode, stepIndex: number | null, message: string, fix: string): void => {
    problems.push({ code, stepIndex, message, fix, severity: SEVERITY[code] });
  };
  const { steps } = input;

  if (input.task.trim() === '') {
    add(
      'TASK_MISSING',
      null,
      'The recording has no task text.',
      'Write the task instruction in the review page (or `recordings:update-task`).',
    );
  }
  if (!steps.some((s) => s.calls.some((c) => !NON_ACTIONS.includes(c.name)))) {
    add(
      'NO_ACTIONS',
      null,
      'The recording has no action (no step with a click, typing, key, scroll or drag).',
      'Re-run `cua-annotator reduce <id>`, undo the edits that deleted the steps, or discard the recording.',
    );
  }

  const stale = new Set(input.keyframes.staleStepIds);
  for (const step of steps) {
    if (stale.has(step.id)) {
      add(
        'KEYFRAME_MISSING',
        step.index,
        `Step ${step.index} has no current keyframe (missing, or computed before an edit).`,
        'Open the recording in the review UI (it computes keyframes) or call `keyframes:compute`.',
      );
    }
  }
  if (steps.length && input.keyframes.isTerminateStale) {
    add(
      'KEYFRAME_MISSING',
      null,
      'The final (terminate) keyframe is missing or stale.',
      'Open the recording in the review UI (it computes keyframes) or call `keyframes:compute`.',
    );
  }
  const byId = new Map(steps.map((s) => [s.id, s]));
  for (const k of input.keyframes.imageless ?? []) {
    const step = k.stepId === null ? null : byId.get(k.stepId);
    if (k.stepId !== null && !step) {
      continue; // a row of a step an edit removed
    }
    const frame = k.frame === null ? '' : ` (video frame ${k.frame})`;
    add(
      'KEYFRAME_MISSING',
      step ? step.index : null,
      `${step ? `Step ${step.index}'s keyframe` : 'The final (terminate) keyframe'}${frame} has no image: ` +
        'the frame could not be read from the video, so every export and upload would stop.',
      'Recompute the keyframes ("Recompute keyframes" on the recording\'s review page, or ' +
        '`keyframes:compute`). If the image is still missing, the video cannot be decoded there: ' +
        'trim the recording to end before that point, or delete the step.',
    );
  }

  const { width, height } = input.screen;
  for (const step of steps) {
    const c = step.coordinate;
    if (c && width > 0 && height > 0 && (c.x < 0 || c.y < 0 || c.x >= width || c.y >= height)) {
      add(
        'COORDINATE_OFF_SCREEN',
        step.index,
        `Step ${step.index} acts at (${c.x}, ${c.y}), outside the recorded ${width}×${height} screen.`,
        'Move the action point onto the screen in the review page (edit the step), or delete the step.',
      );
    }
  }

  if (input.video) {
    const { startMs, endMs } = input.video;
    for (const step of steps) {
      if (step.startMs < startMs || step.startMs > endMs) {
        add(
          'STEP_OUTSIDE_VIDEO',
          step.index,
          `Step ${step.index} starts at ${seconds(step.startMs - startMs)} on the video, ` +
            `outside the video (0–${seconds(endMs - startMs)}).`,
          'Delete the step or trim the recording to the video in the review page.',
        );
      }
    }
  }

  if (input.settings.requireLabels) {
    for (const step of steps) {
      if (step.label.trim() === '') {
        add(
          'UNLABELLED_STEP',
          step.index,
          `Step ${step.index} has no label, and the settings require labels.`,
          'Write the step’s label in the review page.',
        );
      }
    }
  }

  for (let i = 1; i < steps.length; i += 1) {
    const prev = steps[i - 1]!;
    const step = steps[i]!;
    const gap = step.startMs - prev.endMs;
    if (gap > idleMs) {
      add(
        'LONG_IDLE',
        step.index,
        `Nothing happens for ${seconds(gap)} before step ${step.index} ` +
          `(longer than ${seconds(idleMs)}).`,
        'Trim the idle stretch, or insert a wait step if the wait is part of the task.',
      );
    }
  }

  for (let i = 1; i < steps.length; i += 1) {
    const prev = steps[i - 1]!;
    const step = steps[i]!;
    const repeatable = step.calls.every((c) => REPEATABLE_ACTIONS.includes(c.name));
    if (!repeatable && sameCalls(prev.calls, step.calls)) {
      add(
        'DUPLICATE_STEP',
        step.index,
        `Step ${step.index} repeats step ${prev.index} exactly (${step.calls.map((c) => c.name).join(', ')}).`,
        'Delete the duplicate or merge the two steps in the review page if it was one action.',
      );
    }
  }

  if (steps.length && steps[steps.length - 1]!.kind !== 'terminate') {
    add(
      'NO_TERMINATE',
      null,
      'The steps do not end with a terminate step (the export appends terminate(success)).',
      'Insert a terminate step after the last step with the outcome (success or failure).',
    );
  }

  const blocking: readonly string[] = BLOCKING_PII_KINDS;
  for (const f of input.findings) {
    if (f.resolved !== null) {
      continue;
    }
    const where = f.stepIndex === null ? `the ${f.source}` : `step ${f.stepIndex} (${f.source})`;
    if (blocking.includes(f.kind)) {
      add(
        'PII_UNRESOLVED',
        f.stepIndex,
        `An unresolved ${f.kind} finding in ${where} blocks export and upload.`,
        'Redact it or mark it acceptable in the privacy panel (or `cua-annotator scan <id> --redact/--accept`).',
      );
    } else {
      add(
        'PII_FINDING',
        f.stepIndex,
        `An unresolved ${f.kind} finding in ${where}.`,
        'Check it in the privacy panel: redact it, or mark it acceptable.',
      );
    }
  }

  return { ok: !problems.some((p) => p.severity === 'error'), problems };
}
