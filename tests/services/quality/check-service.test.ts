// The checks before submit on a real SQLite library (issue 15 item 4): a set of small recordings
// made for the test (raw event scripts reduced by the real reducer, edits in the real edit log,
// video and keyframe rows in the real tables), one per planted defect and a clean one. `check`
// flags each planted defect, and only it, and passes the clean one.
import { afterAll, describe, expect, it } from 'vitest';
import { checkRecordingInLibrary } from '../../../src/services/quality/check-service';
import { scanWithResolutions } from '../../../src/services/privacy/policy';
import { reduceRecording } from '../../../src/services/reduce-service';
import { keyframeRedactions, keyframeStaleness } from '../../../src/services/review/keyframes';
import {
  keyframeInputKey,
  terminateInputKey,
} from '../../../src/services/review/keyframe-extraction';
import { writeSettings } from '../../../src/services/settings/settings-service';
import type { StepEdit } from '../../../src/shared/contract';
import type { CheckCode } from '../../../src/shared/domain';
import {
  appendEdit,
  insertEvents,
  insertVideo,
  replaceKeyframes,
  type KeyframeRecord,
} from '../../../src/store';
import { tempLibrary } from '../../helpers/library';
import { makeRecording } from '../../helpers/store';
import { EventScript } from '../../pipeline/reduce/event-script';

const t = tempLibrary();
afterAll(() => t.cleanup());

type Plant = {
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

const cleanScript = (s: EventScript): void => {
  s.moveTo(100, 100).click();
  s.wait(800).type('hello');
  s.wait(800).moveTo(600, 400).click();
};

// A recording of the library with the planted defect; returns its id.
function record(plant: Plant = {}): string {
  const db = t.lib.db;
  const rec = makeRecording(db, { task: plant.task ?? 'Say hello in the editor' });
  const s = new EventScript(10_000);
  (plant.script ?? cleanScript)(s);
  insertEvents(db, rec.seq, s.events);
  if (s.events.length) {
    reduceRecording(t.lib, rec.id);
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
  const ids = keyframeStaleness(t.lib, rec.seq).steps.map((step) => step.id);
  const edits = [...(plant.edits?.(ids) ?? [])];
  if (!plant.noTerminate) {
    edits.push({ op: 'insert', afterStepId: ids.at(-1) ?? null, kind: 'terminate' });
  }
  for (const edit of edits) {
    appendEdit(db, rec.seq, edit, { nowMs: 1 });
  }
  // keyframe rows as a computation stores them (fresh for the current steps)
  const { steps } = keyframeStaleness(t.lib, rec.seq);
  const { redactHash } = keyframeRedactions(t.lib, rec.seq);
  const missing = new Set((plant.missingKeyframes ?? []).map((i) => steps[i]!.id));
  const row = (stepId: string, inputJson: string): KeyframeRecord => ({
    stepId,
    timeMs: 0,
    frame: 0,
    path: null,
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
  return rec.id;
}

const codes = (id: string): [CheckCode, number | null][] =>
  checkRecordingInLibrary(t.lib, id).problems.map((p) => [p.code, p.stepIndex]);

describe('checkRecordingInLibrary (real library, reduced recordings)', () => {
  it('passes a clean recording: click, typing, click, terminate, keyframes, inside the video', () => {
    const id = record();
    const result = checkRecordingInLibrary(t.lib, id);
    expect(result).toEqual({ id, ok: true, problems: [] });
    const seq = (
      t.lib.db.prepare('SELECT seq FROM recordings WHERE id = ?').get(id) as { seq: number }
    ).seq;
    expect(keyframeStaleness(t.lib, seq).steps.map((st) => st.kind)).toEqual([
      'click',
      'write',
      'click',
      'terminate',
    ]);
  });

  it('TASK_MISSING', () => {
    const id = record({ task: '' });
    expect(codes(id)).toEqual([['TASK_MISSING', null]]);
    expect(checkRecordingInLibrary(t.lib, id).ok).toBe(false);
  });

  it('NO_ACTIONS: a recording without input', () => {
    expect(codes(record({ script: () => undefined }))).toEqual([['NO_ACTIONS', null]]);
  });

  it('KEYFRAME_MISSING: one step without its keyframe row', () => {
    expect(codes(record({ missingKeyframes: [1] }))).toEqual([['KEYFRAME_MISSING', 1]]);
  });

  it('COORDINATE_OFF_SCREEN: a click right of the 1280 px screen', () => {
    const id = record({
      script: (s) => {
        s.moveTo(100, 100).click();
        s.wait(800).moveTo(1350, 300).click();
      },
    });
    expect(codes(id)).toEqual([['COORDINATE_OFF_SCREEN', 1]]);
  });

  it('STEP_OUTSIDE_VIDEO: the first click before the video starts', () => {
    expect(codes(record({ videoStartMs: 10_500 }))).toEqual([['STEP_OUTSIDE_VIDEO', 0]]);
  });

  it('UNLABELLED_STEP only when the settings require labels', () => {
    const id = record({ edits: (ids) => [{ op: 'relabel', stepId: ids[1]!, label: '' }] });
    expect(codes(id)).toEqual([]);
    const host = { cipher: null, libraryDir: null };
    writeSettings(t.lib, { requireLabels: true }, host);
    try {
      expect(codes(id)).toEqual([['UNLABELLED_STEP', 1]]);
    } finally {
      writeSettings(t.lib, { requireLabels: false }, host);
    }
  });

  it('LONG_IDLE: 61 s between two clicks (a warning: ok stays true)', () => {
    const id = record({
      script: (s) => {
        s.moveTo(100, 100).click();
        s.wait(61_000).moveTo(600, 400).click();
      },
    });
    const result = checkRecordingInLibrary(t.lib, id);
    expect(result.problems.map((p) => [p.code, p.stepIndex, p.severity])).toEqual([
      ['LONG_IDLE', 1, 'warning'],
    ]);
    expect(result.ok).toBe(true);
  });

  it('DUPLICATE_STEP: the same click twice, two seconds apart', () => {
    const id = record({
      script: (s) => {
        s.moveTo(300, 300).click();
        s.wait(2000).click();
        s.wait(800).type('hello');
      },
    });
    expect(codes(id)).toEqual([['DUPLICATE_STEP', 1]]);
  });

  it('NO_TERMINATE: no terminate step at the end', () => {
    expect(codes(record({ noTerminate: true }))).toEqual([['NO_TERMINATE', null]]);
  });

  it('PII_UNRESOLVED: a card number typed; resolved by an accept edit', () => {
    const id = record({
      script: (s) => {
        s.moveTo(100, 100).click();
        s.wait(800).type('4111 1111 1111 1111');
      },
    });
    const result = checkRecordingInLibrary(t.lib, id);
    expect(result.problems.map((p) => [p.code, p.stepIndex, p.severity])).toEqual([
      ['PII_UNRESOLVED', 1, 'error'],
    ]);
    expect(result.ok).toBe(false);
    const seq = (
      t.lib.db.prepare('SELECT seq FROM recordings WHERE id = ?').get(id) as { seq: number }
    ).seq;
    const [card] = scanWithResolutions(t.lib, id).findings;
    appendEdit(t.lib.db, seq, { op: 'pii-accept', findingId: card!.id }, { nowMs: 2 });
    expect(checkRecordingInLibrary(t.lib, id)).toEqual({ id, ok: true, problems: [] });
  });

  it('PII_FINDING: an e-mail address typed (a warning)', () => {
    const id = record({
      script: (s) => {
        s.moveTo(100, 100).click();
        s.wait(800).type('bob@example.com');
      },
    });
    const result = checkRecordingInLibrary(t.lib, id);
    expect(result.problems.map((p) => [p.code, p.stepIndex, p.severity])).toEqual([
      ['PII_FINDING', 1, 'warning'],
    ]);
    expect(result.ok).toBe(true);
  });
});
