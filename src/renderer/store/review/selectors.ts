// Derived values of the review store. `recording` is memoised on its inputs so components can
// subscribe to it without re-rendering on unrelated changes.
import type { RecordingDto, StepDto, TaskLabels } from '../../../shared/contract';
import type { ReviewState } from './initialState';
import { applyPending, hasDrafts } from './reducers';

let memoConfirmed: RecordingDto | null = null;
let memoPending: ReviewState['pending'] | null = null;
let memoResult: RecordingDto | null = null;

function recording(s: ReviewState): RecordingDto | null {
  if (s.confirmed !== memoConfirmed || s.pending !== memoPending) {
    memoConfirmed = s.confirmed;
    memoPending = s.pending;
    memoResult = s.confirmed ? applyPending(s.confirmed, s.pending) : null;
  }
  return memoResult;
}

const NO_STEPS: StepDto[] = [];

/** Selectors of the review store. */
export const reviewSelectors = {
  /** The recording as shown: confirmed + pending ops. */
  recording,
  /** Its steps ([] before loading). */
  steps: (s: ReviewState): StepDto[] => recording(s)?.steps ?? NO_STEPS,
  /** The selected step, if any. */
  selectedStep: (s: ReviewState): StepDto | null => {
    const steps = recording(s)?.steps ?? NO_STEPS;
    return steps.find((x) => x.id === s.selectedStepId) ?? null;
  },
  /** Position of the selected step (-1 without selection). */
  selectedIndex: (s: ReviewState): number => {
    const steps = recording(s)?.steps ?? NO_STEPS;
    return steps.findIndex((x) => x.id === s.selectedStepId);
  },
  /** The label field's text for a step: the draft while typing, else the step's label. */
  labelText: (s: ReviewState, step: StepDto): string => s.labelDrafts[step.id] ?? step.label,
  /** Task instruction as shown in its field. */
  taskText: (s: ReviewState): string => s.taskDraft?.task ?? recording(s)?.task ?? '',
  /** Task description as shown in its field. */
  descriptionText: (s: ReviewState): string =>
    s.taskDraft?.description ?? recording(s)?.description ?? '',
  /** Task labels as shown in the form. */
  labels: (s: ReviewState): TaskLabels | null => s.labelsDraft ?? recording(s)?.labels ?? null,
  /** True when undo is possible now (nothing unsent that undo would skip). */
  canUndo: (s: ReviewState): boolean => (recording(s)?.canUndo ?? false) || hasDrafts(s),
  /** True when redo is possible. */
  canRedo: (s: ReviewState): boolean => recording(s)?.canRedo ?? false,
  /** True when some step has no (fresh) keyframe: never computed, or its step was edited. */
  needsKeyframes: (s: ReviewState): boolean => {
    const steps = recording(s)?.steps ?? NO_STEPS;
    return steps.some((x) => x.keyframeUrl === null);
  },
  /** Number of steps without a (fresh) keyframe. */
  missingKeyframes: (s: ReviewState): number =>
    (recording(s)?.steps ?? NO_STEPS).filter((x) => x.keyframeUrl === null).length,
  /** True while something typed or done is not yet confirmed by the service (leaving the page
   * now would need the exit flush). */
  hasUnsavedWork: (s: ReviewState): boolean => hasDrafts(s) || s.inFlight > 0,
  /** True when an edit would first need the user's yes (the recording is accepted). */
  isLocked: (s: ReviewState): boolean => s.confirmed?.reviewStatus === 'accepted' && !s.forceEdits,
  /** Human text of the save state. */
  saveLabel: (s: ReviewState): string =>
    s.saveState === 'saving' ? 'Saving…' : s.saveState === 'error' ? 'Not saved' : 'Saved',
};
