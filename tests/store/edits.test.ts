// The edit log, labels and reviews on a real (in-memory) SQLite database.
import { describe, expect, it } from 'vitest';
import type { StepEdit } from '../../src/shared/contract';
import {
  addReview,
  appendEdit,
  getEditPosition,
  getLabels,
  getRecording,
  listEdits,
  listReviews,
  redoEdit,
  saveLabels,
  undoEdit,
  updateRecordingText,
} from '../../src/store';
import { createTestDb, makeRecording } from '../helpers/store';

const relabel = (label: string): StepEdit => ({ op: 'relabel', stepId: 's1', label });

describe('edit log', () => {
  it('undo marks the latest active edit, redo the earliest undone; positions follow', () => {
    const db = createTestDb();
    const { seq } = makeRecording(db);
    const other = makeRecording(db);
    expect(getEditPosition(db, seq)).toEqual({ version: 0, canUndo: false, canRedo: false });
    const a = appendEdit(db, seq, relabel('a'), { nowMs: 1 });
    const b = appendEdit(db, seq, relabel('b'), { nowMs: 2, author: 'ann' });
    appendEdit(db, other.seq, relabel('other'), { nowMs: 3 });
    expect(getEditPosition(db, seq)).toEqual({ version: b.id, canUndo: true, canRedo: false });

    expect(undoEdit(db, seq)?.id).toBe(b.id);
    expect(undoEdit(db, seq)?.id).toBe(a.id);
    expect(undoEdit(db, seq)).toBeNull();
    expect(getEditPosition(db, seq)).toEqual({ version: 0, canUndo: false, canRedo: true });

    expect(redoEdit(db, seq)?.id).toBe(a.id);
    expect(getEditPosition(db, seq)).toEqual({ version: a.id, canUndo: true, canRedo: true });
    expect(listEdits(db, seq).map((e) => [e.id, e.state, e.author])).toEqual([
      [a.id, 'active', null],
      [b.id, 'undone', 'ann'],
    ]);
    // the other recording's log is untouched
    expect(listEdits(db, other.seq).map((e) => e.state)).toEqual(['active']);
  });

  it('a new edit after undos discards the redo tail (never redone again)', () => {
    const db = createTestDb();
    const { seq } = makeRecording(db);
    const a = appendEdit(db, seq, relabel('a'), { nowMs: 1 });
    const b = appendEdit(db, seq, relabel('b'), { nowMs: 2 });
    const c = appendEdit(db, seq, relabel('c'), { nowMs: 3 });
    undoEdit(db, seq);
    undoEdit(db, seq);
    const d = appendEdit(db, seq, relabel('d'), { nowMs: 4 });
    expect(listEdits(db, seq).map((e) => [e.id, e.state])).toEqual([
      [a.id, 'active'],
      [b.id, 'discarded'],
      [c.id, 'discarded'],
      [d.id, 'active'],
    ]);
    expect(getEditPosition(db, seq)).toEqual({ version: d.id, canUndo: true, canRedo: false });
    expect(redoEdit(db, seq)).toBeNull();
    expect(listEdits(db, seq, ['active']).map((e) => e.edit)).toEqual([relabel('a'), relabel('d')]);
  });

  it('stores the op and the primary step id in their columns', () => {
    const db = createTestDb();
    const { seq } = makeRecording(db);
    appendEdit(db, seq, { op: 'merge', stepIds: ['x', 'y'] }, { nowMs: 1 });
    appendEdit(db, seq, { op: 'trim', startMs: 1, endMs: null }, { nowMs: 1 });
    appendEdit(db, seq, { op: 'insert', afterStepId: 'z', kind: 'wait' }, { nowMs: 1 });
    expect(db.prepare(`SELECT op, step_id FROM edits ORDER BY id`).all()).toEqual([
      { op: 'merge', step_id: 'x' },
      { op: 'trim', step_id: null },
      { op: 'insert', step_id: 'z' },
    ]);
  });
});

describe('labels, reviews, task text', () => {
  it('saveLabels upserts and bumps the version', () => {
    const db = createTestDb();
    const { seq } = makeRecording(db);
    expect(getLabels(db, seq)).toEqual({
      labels: {
        taskCompleted: null,
        taskDifficulty: null,
        alignmentScore: null,
        efficiencyScore: null,
      },
      version: 0,
      updatedAtMs: null,
    });
    const labels = {
      taskCompleted: true,
      taskDifficulty: 3,
      alignmentScore: 9,
      efficiencyScore: 0,
    };
    expect(saveLabels(db, seq, labels, 10)).toBe(1);
    expect(saveLabels(db, seq, { ...labels, taskCompleted: false }, 20)).toBe(2);
    expect(getLabels(db, seq)).toEqual({
      labels: { ...labels, taskCompleted: false },
      version: 2,
      updatedAtMs: 20,
    });
    expect(db.prepare(`SELECT COUNT(*) AS n FROM labels`).get()).toEqual({ n: 1 });
  });

  it('addReview appends history and sets review_status', () => {
    const db = createTestDb();
    const { seq, id } = makeRecording(db);
    addReview(db, seq, {
      status: 'needs-edit',
      reviewer: 'r1',
      grade: 'B',
      comment: 'fix 3',
      atMs: 5,
    });
    addReview(db, seq, { status: 'accepted', reviewer: null, grade: null, comment: null, atMs: 6 });
    expect(listReviews(db, seq)).toEqual([
      { atMs: 5, reviewer: 'r1', status: 'needs-edit', grade: 'B', comment: 'fix 3' },
      { atMs: 6, reviewer: null, status: 'accepted', grade: null, comment: null },
    ]);
    expect(getRecording(db, id).reviewStatus).toBe('accepted');
  });

  it('addReview rolls back when the status is not a review status', () => {
    const db = createTestDb();
    const { seq } = makeRecording(db);
    expect(() =>
      addReview(db, seq, {
        status: 'bogus' as never,
        reviewer: null,
        grade: null,
        comment: null,
        atMs: 1,
      }),
    ).toThrow(/CHECK constraint/);
    expect(listReviews(db, seq)).toEqual([]);
  });

  it('updateRecordingText changes only the given fields', () => {
    const db = createTestDb();
    const { seq, id } = makeRecording(db, { task: 'old', description: 'keep' });
    updateRecordingText(db, seq, { task: 'new' }, 99);
    const rec = getRecording(db, id);
    expect([rec.task, rec.description, rec.updatedAtMs]).toEqual(['new', 'keep', 99]);
  });
});
