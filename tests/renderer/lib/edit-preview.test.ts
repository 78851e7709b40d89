import { describe, expect, it } from 'vitest';
import {
  canSplitAt,
  neighbourAfterRemoval,
  previewEdit,
  previewSteps,
  typedText,
} from '../../../src/renderer/lib/edit-preview';
import { makeRecording, makeStep } from '../helpers/dto';

const ids = (steps: { id: string; index: number }[]) => steps.map((s) => `${s.index}:${s.id}`);

describe('previewSteps', () => {
  const steps = makeRecording(4).steps;

  it('relabels and marks without moving steps', () => {
    const relabelled = previewSteps(steps, { op: 'relabel', stepId: 's1', label: 'Open Display' });
    expect(relabelled[1]).toMatchObject({ id: 's1', label: 'Open Display', isEdited: true });
    expect(relabelled[0]).toBe(steps[0]);
    const marked = previewSteps(steps, { op: 'mark', stepId: 's2', mark: 'redundant' });
    expect(marked[2]?.mark).toBe('redundant');
  });

  it('deletes and re-indexes', () => {
    expect(ids(previewSteps(steps, { op: 'delete', stepId: 's1' }))).toEqual([
      '0:s0',
      '1:s2',
      '2:s3',
    ]);
  });

  it('merges two adjacent steps into the first', () => {
    const merged = previewSteps(steps, { op: 'merge', stepIds: ['s1', 's2'] });
    expect(ids(merged)).toEqual(['0:s0', '1:s1', '2:s3']);
    expect(merged[1]).toMatchObject({
      calls: [...steps[1]!.calls, ...steps[2]!.calls],
      label: 'step s1 step s2',
      startMs: steps[1]!.startMs,
      endMs: steps[2]!.endMs,
      isEdited: true,
    });
    expect(merged[1]?.code.split('\n')).toHaveLength(2);
  });

  it('ignores a merge of non-adjacent steps', () => {
    expect(previewSteps(steps, { op: 'merge', stepIds: ['s0', 's2'] })).toEqual(steps);
  });

  it('splits a typing step at a code point', () => {
    const typing = [
      makeStep('t', 0, { kind: 'write', calls: [{ name: 'write', args: { message: 'héllo' } }] }),
    ];
    expect(typedText(typing[0]!)).toBe('héllo');
    expect(canSplitAt(typing[0]!, 0)).toBe(false);
    expect(canSplitAt(typing[0]!, 5)).toBe(false);
    const split = previewSteps(typing, { op: 'split', stepId: 't', at: 2 }, 7);
    expect(split.map((s) => s.calls)).toEqual([
      [{ name: 'write', args: { message: 'hé' } }],
      [{ name: 'write', args: { message: 'llo' } }],
    ]);
    expect(split[1]?.id).toBe('pending:split:7');
  });

  it('inserts wait and terminate steps', () => {
    const atStart = previewSteps(steps, { op: 'insert', afterStepId: null, kind: 'wait' }, 3);
    expect(ids(atStart).slice(0, 2)).toEqual(['0:pending:insert:3', '1:s0']);
    expect(atStart[0]?.code).toBe('computer.wait()');
    const end = previewSteps(
      steps,
      { op: 'insert', afterStepId: 's3', kind: 'terminate', status: 'failure' },
      4,
    );
    expect(end[4]).toMatchObject({
      kind: 'terminate',
      code: "computer.terminate(status='failure')",
    });
    expect(previewSteps(steps, { op: 'insert', afterStepId: 'nope', kind: 'wait' })).toEqual(steps);
  });

  it('trims by start time', () => {
    // steps start at 1000, 2000, 3000, 4000 ms
    const trimmed = previewSteps(steps, { op: 'trim', startMs: 1500, endMs: 3000 });
    expect(ids(trimmed)).toEqual(['0:s1', '1:s2']);
    expect(previewSteps(steps, { op: 'trim', startMs: null, endMs: null })).toHaveLength(4);
  });

  it('replaces the action and its code', () => {
    const next = previewSteps(steps, {
      op: 'set-action',
      stepId: 's0',
      calls: [{ name: 'rightClick', args: { x: { float: 0.1 }, y: { float: 0.2 } } }],
    });
    expect(next[0]).toMatchObject({
      kind: 'rightClick',
      code: 'pyautogui.rightClick(x=0.1, y=0.2)',
    });
  });
});

describe('previewEdit', () => {
  it('records the trim and allows undo', () => {
    const rec = previewEdit(makeRecording(2), { op: 'trim', startMs: 1500, endMs: null });
    expect(rec.trim).toEqual({ startMs: 1500, endMs: null });
    expect(rec.canUndo).toBe(true);
    expect(rec.canRedo).toBe(false);
  });
});

describe('neighbourAfterRemoval', () => {
  const before = makeRecording(3).steps;
  it.each([
    ['s0', 's1'],
    ['s1', 's2'],
    ['s2', 's1'], // the last: its predecessor
  ])('removing %s selects %s', (removed, expected) => {
    const after = previewSteps(before, { op: 'delete', stepId: removed });
    expect(neighbourAfterRemoval(before, after, removed)).toBe(expected);
  });
});
