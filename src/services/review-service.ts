// Review and labelling of recordings: the recording page's data (steps with edits applied,
// keyframes, element and window context, labels, reviews, undo state), the library page,
// task text, labels and review verdicts.
import path from 'node:path';
import type {
  RecordingDto,
  RecordingQuery,
  ReviewEntry,
  StepDto,
  TaskLabels,
} from '../shared/contract';
import type { RawEvent, ReviewStatus } from '../shared/domain';
import { AppError } from '../shared/errors';
import {
  addReview,
  getEditPosition,
  getLabels,
  getRecording,
  listAxRecords,
  listKeyframes,
  listReviews,
  listWindows,
  queryRecordingPage,
  readEvents,
  resolveRecordingSeq,
  saveLabels,
  updateRecordingText,
  type RecordingPage,
} from '../store';
import { callsToCode } from '../pipeline/code';
import type { ServiceContext } from './context';
import type { Library } from './library/library';
import { keyframeInputKey, keyframeRedactions } from './keyframes/keyframes';
import { guardAcceptedEdit } from './review/review-lock';
import {
  ELEMENT_MATCH_WINDOW_MS,
  elementChain,
  isPointerStep,
  lastAtOrBefore,
  nearestIndex,
  stepOverlay,
  windowTitleAt,
} from './review/step-context';
import { effectiveStepState } from './steps';

/** Lazily parsed element records of one recording. */
function elementLookup(lib: Library, seq: number): (tMs: number) => unknown {
  const records = listAxRecords(lib.db, seq, 'element');
  const times = records.map((r) => r.tMs);
  const parsed = new Map<number, unknown>();
  return (tMs) => {
    const i = nearestIndex(times, tMs, ELEMENT_MATCH_WINDOW_MS);
    const record = records[i];
    if (!record) {
      return null;
    }
    if (!parsed.has(i)) {
      parsed.set(i, JSON.parse(record.treeJson) as unknown);
    }
    return parsed.get(i);
  };
}

// Everything the recording page needs, with the edit log applied.
export function getRecordingDto(
  lib: Library,
  idOrPrefix: string,
  ctx: Pick<ServiceContext, 'mediaUrl'>,
): RecordingDto {
  const rec = getRecording(lib.db, idOrPrefix);
  const applied = effectiveStepState(lib, rec.seq);
  const keyframes = listKeyframes(lib.db, rec.seq);
  const elementAt = elementLookup(lib, rec.seq);
  const windows = listWindows(lib.db, rec.seq);
  const position = getEditPosition(lib.db, rec.seq);
  const { redactHash } = keyframeRedactions(lib, rec.seq);
  const steps = applied.steps.map((step): StepDto => {
    const kf = keyframes.get(step.id);
    const isFresh = kf !== undefined && kf.inputJson === keyframeInputKey(step, redactHash);
    const dragEvents: RawEvent[] = step.calls.some((c) => c.name === 'dragTo')
      ? readEvents(lib.db, rec.seq, { fromMs: step.startMs, toMs: step.endMs + 0.001 })
      : [];
    return {
      id: step.id,
      index: step.index,
      kind: step.kind,
      label: step.label,
      description: step.description,
      calls: step.calls,
      code: step.calls.length ? callsToCode(step.calls) : '',
      startMs: step.startMs,
      endMs: step.endMs,
      coordinate: step.coordinate,
      preMove: step.preMove,
      keyframeMs: isFresh ? kf.timeMs : null,
      keyframeUrl:
        isFresh && kf.path ? ctx.mediaUrl(rec.id, 'keyframe', path.posix.basename(kf.path)) : null,
      element: isPointerStep(step) ? elementChain(elementAt(step.startMs)) : null,
      windowTitle: windowTitleAt(windows, step.startMs),
      mark: applied.marks.get(step.id) ?? null,
      isEdited: applied.editedIds.has(step.id),
      diagnostics: step.diagnostics,
      overlay: stepOverlay(step, dragEvents),
    };
  });
  const video = rec.videos[0];
  return {
    id: rec.id,
    task: rec.task,
    description: rec.description,
    status: rec.status,
    reviewStatus: rec.reviewStatus,
    source: rec.source,
    platform: rec.platform,
    screen: rec.screen,
    createdAtMs: rec.createdAtMs,
    durationMs: rec.durationMs,
    eventCounts: rec.eventCounts,
    video: video
      ? {
          url: ctx.mediaUrl(rec.id, 'video'),
          width: video.width,
          height: video.height,
          fps: video.fps,
          durationMs: video.durationMs,
          startMs: video.startMs,
        }
      : null,
    trim: applied.trim,
    steps,
    labels: getLabels(lib.db, rec.seq).labels,
    reviews: listReviews(lib.db, rec.seq),
    editVersion: position.version,
    canUndo: position.canUndo,
    canRedo: position.canRedo,
    skippedEdits: applied.skipped,
  };
}

// One page of the library: filters, sort, offset/limit and the total.
export function listRecordingsPage(lib: Library, query: RecordingQuery): RecordingPage {
  return queryRecordingPage(lib.db, query);
}

// Sets the task instruction and/or description of a recording.
export function updateRecordingTask(
  lib: Library,
  idOrPrefix: string,
  update: { task?: string; description?: string },
  nowMs = Date.now(),
  options: { force?: boolean | undefined } = {},
): void {
  if (update.task !== undefined && update.task.trim() === '') {
    throw new AppError('INVALID_PAYLOAD', 'task must not be blank', { field: 'task' });
  }
  const { seq, id } = resolveRecordingSeq(lib.db, idOrPrefix);
  lib.db.transaction(() => {
    guardAcceptedEdit(lib, id, 'changing its task text', { ...options, nowMs });
    updateRecordingText(lib.db, seq, update, nowMs);
  })();
}

// Saves the task labels of a recording (a new version each time); returns the version.
export function saveRecordingLabels(
  lib: Library,
  idOrPrefix: string,
  labels: TaskLabels,
  nowMs = Date.now(),
  options: { force?: boolean | undefined } = {},
): number {
  const { seq, id } = resolveRecordingSeq(lib.db, idOrPrefix);
  return lib.db.transaction(() => {
    guardAcceptedEdit(lib, id, 'changing its task labels', { ...options, nowMs });
    return saveLabels(lib.db, seq, labels, nowMs);
  })();
}

/** A review verdict as given by a reviewer. */
export type ReviewVerdict = {
  status: ReviewStatus;
  comment?: string | undefined;
  grade?: string | undefined;
  reviewer?: string | undefined;
};

// Records a review verdict and sets the recording's review status.
export function setReviewStatus(
  lib: Library,
  idOrPrefix: string,
  verdict: ReviewVerdict,
  nowMs = Date.now(),
): ReviewEntry {
  const { seq } = resolveRecordingSeq(lib.db, idOrPrefix);
  const entry: ReviewEntry = {
    atMs: nowMs,
    reviewer: verdict.reviewer ?? null,
    status: verdict.status,
    grade: verdict.grade ?? null,
    comment: verdict.comment ?? null,
  };
  addReview(lib.db, seq, entry);
  return entry;
}

/** The accessibility context of one step. */
export type StepAxTree = { tMs: number | null; tree: unknown; element: unknown };

// The window snapshot at or before a step's start and the element record nearest to it.
export function getStepAxTree(lib: Library, idOrPrefix: string, stepId: string): StepAxTree {
  const { seq, id } = resolveRecordingSeq(lib.db, idOrPrefix);
  const step = effectiveStepState(lib, seq).steps.find((s) => s.id === stepId);
  if (!step) {
    throw new AppError('NOT_FOUND', `Recording ${id} has no step ${stepId}.`, { id, stepId });
  }
  const windows = listAxRecords(lib.db, seq, 'window');
  const w =
    windows[
      lastAtOrBefore(
        windows.map((r) => r.tMs),
        step.startMs,
      )
    ];
  return {
    tMs: w ? w.tMs : null,
    tree: w ? (JSON.parse(w.treeJson) as unknown) : null,
    element: elementLookup(lib, seq)(step.startMs),
  };
}
