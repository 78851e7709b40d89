// Small recordings for the checks before submit (docs/quality.md): raw event scripts reduced by
// the real reducer, edits in the real edit log, video and keyframe rows in the real tables, each
// with at most one planted defect (tests/services/quality, tests/cli/check.test.ts).
import { reduceRecording } from '../../src/services/reduce-service';
import { keyframeRedactions, keyframeStaleness } from '../../src/services/keyframes/keyframes';
import {
  keyframeInputKey,
  terminateInputKey,
} from '../../src/services/keyframes/keyframe-extraction';
import type { Library } from '../../src/services/library/library';
import type { StepEdit } from '../../src/shared/contract';
import {
  appendEdit,
  insertEvents,
  insertVideo,
  replaceKeyframes,
  type KeyframeRecord,
} from '../../src/store';
import { EventScript } from '../pipeline/reduce/event-script';
import { makeRecording } from './store';

/** A planted defect (all absent: a clean recording). */
export type Plant = {
  task?: string;
  /** The user's input (default: click, type "hello", click elsewhere). */
  script?: (s: EventScript) => void;
  /** Recording-clock start of the video (default 0: before every event). */
  videoStartMs?: number | null;
  /** Leave the terminate step out. */
  noTerminate?: boolean;
  /** Step ids (by index) whose keyframe row is not stored. */
  missingKeyframes?: number[];
  /** Edits applied after the reduction (by step index). */
  edits?: (ids: string[]) => StepEdit[];
};

/** Click, type "hello", click elsewhere. */
export const cleanScript = (s: EventScript): void => {
  s.moveTo(100, 100).click();
  s.wait(800).type('hello');
  s.wait(800).moveTo(600, 400).click();
};

/** Adds a recording with the planted defect to `lib`: reduced, inside a 200 s video from
 * `videoStartMs`, ending with terminate, fresh keyframe rows; returns its id and seq. */
export function makeCheckRecording(lib: Library, plant: Plant = {}): { id: string; seq: number } {
  const db = lib.db;
  const rec = makeRecording(db, { task: plant.task ?? 'Say hello in the editor' });
  const s = new EventScript(10_000);
  (plant.script ?? cleanScript)(s);
  insertEvents(db, rec.seq, s.events);
  if (s.events.length) {
    reduceRecording(lib, rec.id);
  }
  if (plant.videoStartMs !== null) {
    insertVideo(db, rec.seq, 0, {
      path: `recordings/${rec.id}/video.mp4`,
      width: 1280,
      height: 800,
      fps: 30,
      frameCount: null,
      durationMs: 200_000,
      startMs: plant.videoStartMs ?? 0,
      startMethod: 'test',
      codec: 'h264',
      sizeBytes: 1,
      sha256: null,
    });
  }
  const ids = keyframeStaleness(lib, rec.seq).steps.map((step) => step.id);
  const edits = [...(plant.edits?.(ids) ?? [])];
  if (!plant.noTerminate) {
    edits.push({ op: 'insert', afterStepId: ids.at(-1) ?? null, kind: 'terminate' });
  }
  for (const edit of edits) {
    appendEdit(db, rec.seq, edit, { nowMs: 1 });
  }
  // keyframe rows as a computation stores them (fresh for the current steps)
  const { steps } = keyframeStaleness(lib, rec.seq);
  const { redactHash } = keyframeRedactions(lib, rec.seq);
  const missing = new Set((plant.missingKeyframes ?? []).map((i) => steps[i]!.id));
  const row = (stepId: string, inputJson: string): KeyframeRecord => ({
    stepId,
    timeMs: 0,
    frame: 0,
    // as a computation stores a decoded frame (check does not open the file)
    path: `recordings/${rec.id}/keyframes/frame-000000.png`,
    inputJson,
    source: 'test',
    diagnostics: [],
    computedAtMs: 1,
  });
  const terminateKey = terminateInputKey(steps, redactHash);
  replaceKeyframes(db, rec.seq, [
    ...steps
      .filter((st) => !missing.has(st.id))
      .map((st) => row(st.id, keyframeInputKey(st, redactHash))),
    ...(terminateKey === null ? [] : [row(':terminate', terminateKey)]),
  ]);
  return { id: rec.id, seq: rec.seq };
}
