// The checks before submit on a real SQLite library (issue 15 item 4): a set of small recordings
// made for the test (raw event scripts reduced by the real reducer, edits in the real edit log,
// video and keyframe rows in the real tables), one per planted defect and a clean one. `check`
// flags each planted defect, and only it, and passes the clean one.
import { afterAll, describe, expect, it } from 'vitest';
import { scanWithResolutions } from '../../../src/services/privacy/policy';
import { checkRecordingInLibrary } from '../../../src/services/quality/check-service';
import { keyframeStaleness } from '../../../src/services/keyframes/keyframes';
import { writeSettings } from '../../../src/services/settings/settings-service';
import type { CheckCode } from '../../../src/shared/domain';
import { appendEdit } from '../../../src/store';
import { makeCheckRecording, type Plant } from '../../helpers/check-recording';
import { tempLibrary } from '../../helpers/library';

const t = tempLibrary();
afterAll(() => t.cleanup());

const record = (plant: Plant = {}): string => makeCheckRecording(t.lib, plant).id;

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

  it('KEYFRAME_MISSING: keyframes made stale by an edit after they were computed', () => {
    const { id, seq } = makeCheckRecording(t.lib);
    const [first, second] = keyframeStaleness(t.lib, seq).steps;
    appendEdit(t.lib.db, seq, { op: 'merge', stepIds: [first!.id, second!.id] }, { nowMs: 2 });
    // the merged step spans both: its search input changed, its row is stale
    expect(codes(id)).toEqual([['KEYFRAME_MISSING', 0]]);
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
