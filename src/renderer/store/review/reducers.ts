// Pure state transitions of the review store (tested alone).
import type { RecordingDto, StepDto } from '../../../shared/contract';
import { previewEdit } from '../../lib/edit-preview';
import type { PendingOp, ReviewState, SaveState } from './initialState';

// The recording with every pending op applied on top of the confirmed one.
export function applyPending(confirmed: RecordingDto, pending: readonly PendingOp[]): RecordingDto {
  let rec = confirmed;
  for (const op of pending) {
    switch (op.kind) {
      case 'edit':
        rec = previewEdit(rec, op.edit, op.seq);
        break;
      case 'task':
        rec = {
          ...rec,
          task: op.task ?? rec.task,
          description: op.description ?? rec.description,
        };
        break;
      case 'labels':
        rec = { ...rec, labels: op.labels };
        break;
    }
  }
  return rec;
}

// True when something typed has not been sent yet.
export function hasDrafts(s: ReviewState): boolean {
  return Object.keys(s.labelDrafts).length > 0 || s.taskDraft !== null || s.labelsDraft !== null;
}

// The save state implied by the queue, the drafts and the last error.
export function saveStateOf(s: ReviewState): SaveState {
  if (s.inFlight > 0 || hasDrafts(s)) {
    return 'saving';
  }
  return s.saveError !== null ? 'error' : 'saved';
}

// `s` with its save state recomputed.
export function withSaveState(s: ReviewState): ReviewState {
  const saveState = saveStateOf(s);
  return saveState === s.saveState ? s : { ...s, saveState };
}

// Keeps the selection on an existing step: by id, else the step now at the same position.
export function reconcileSelection(s: ReviewState, steps: readonly StepDto[]): ReviewState {
  if (steps.length === 0) {
    return s.selectedStepId === null ? s : { ...s, selectedStepId: null, selectedIndex: 0 };
  }
  const byId = s.selectedStepId === null ? -1 : steps.findIndex((x) => x.id === s.selectedStepId);
  if (byId >= 0) {
    return byId === s.selectedIndex ? s : { ...s, selectedIndex: byId };
  }
  const index = Math.min(Math.max(0, s.selectedIndex), steps.length - 1);
  const step = steps[index];
  return { ...s, selectedStepId: step ? step.id : null, selectedIndex: index };
}

// The displayed steps of a state (confirmed + pending), [] before loading.
export function displayedSteps(s: ReviewState): StepDto[] {
  return s.confirmed ? applyPending(s.confirmed, s.pending).steps : [];
}

// A queued op started: one more call in flight.
export function opQueued(s: ReviewState, op: PendingOp | null): ReviewState {
  return withSaveState({
    ...s,
    pending: op ? [...s.pending, op] : s.pending,
    opSeq: op ? Math.max(s.opSeq, op.seq) : s.opSeq,
    inFlight: s.inFlight + 1,
  });
}

// A call answered with the recording: it becomes the confirmed state.
export function opSucceeded(s: ReviewState, seq: number | null, dto: RecordingDto): ReviewState {
  const pending = seq === null ? s.pending : s.pending.filter((p) => p.seq !== seq);
  const next: ReviewState = {
    ...s,
    confirmed: dto,
    pending,
    inFlight: Math.max(0, s.inFlight - 1),
    saveError: null,
  };
  return withSaveState(reconcileSelection(next, applyPending(dto, pending).steps));
}

// A call failed: its optimistic op is dropped and the error shown.
export function opFailed(s: ReviewState, seq: number | null, message: string): ReviewState {
  const pending = seq === null ? s.pending : s.pending.filter((p) => p.seq !== seq);
  const next: ReviewState = {
    ...s,
    pending,
    inFlight: Math.max(0, s.inFlight - 1),
    saveError: message,
  };
  return withSaveState(
    s.confirmed ? reconcileSelection(next, applyPending(s.confirmed, pending).steps) : next,
  );
}

// Selects a step by id (ignored when unknown).
export function stepSelected(s: ReviewState, stepId: string): ReviewState {
  const steps = displayedSteps(s);
  const index = steps.findIndex((x) => x.id === stepId);
  if (index < 0) {
    return s;
  }
  return { ...s, selectedStepId: stepId, selectedIndex: index };
}

// Moves the selection by `delta` steps (clamped).
export function stepMoved(s: ReviewState, delta: number): ReviewState {
  const steps = displayedSteps(s);
  if (steps.length === 0) {
    return s;
  }
  const cur = steps.findIndex((x) => x.id === s.selectedStepId);
  const index = Math.min(steps.length - 1, Math.max(0, (cur < 0 ? s.selectedIndex : cur) + delta));
  const step = steps[index];
  return step ? { ...s, selectedStepId: step.id, selectedIndex: index } : s;
}
