import { describe, expect, it } from 'vitest';
import { checkRecording, LONG_IDLE_MS, type CheckInput } from '../../../src/pipeline/quality/check';
import type { CheckCode } from '../../../src/shared/domain';
import { CHECK_CODES } from '../../../src/shared/domain';

type S = CheckInput['steps'][number];

function click(index: number, x = 100 + index * 10, y = 100): S {
  return {
    id: `s${index}`,
    index,
    kind: 'click',
    label: `click ${index}`,
    calls: [{ name: 'click', args: { x: { float: x / 1280 }, y: { float: y / 800 } } }],
    startMs: 1000 + index * 1000,
    endMs: 1000 + index * 1000 + 100,
    coordinate: { x, y },
  };
}

function terminate(index: number): S {
  return {
    id: `t${index}`,
    index,
    kind: 'terminate',
    label: 'terminate',
    calls: [{ name: 'terminate', args: { status: 'success' } }],
    startMs: 1000 + index * 1000,
    endMs: 1000 + index * 1000,
    coordinate: null,
  };
}

function clean(): CheckInput {
  return {
    task: 'Open the display settings',
    steps: [click(0), click(1), terminate(2)],
    screen: { width: 1280, height: 800 },
    video: { startMs: 500, endMs: 10_000 },
    keyframes: { staleStepIds: [], isTerminateStale: false },
    settings: { requireLabels: false },
    findings: [],
  };
}

// [code, stepIndex, severity] of each problem, in order
const summary = (input: CheckInput): [CheckCode, number | null, string][] =>
  checkRecording(input).problems.map((p) => [p.code, p.stepIndex, p.severity]);

describe('checkRecording', () => {
  it('passes a clean recording with no problems', () => {
    expect(checkRecording(clean())).toEqual({ ok: true, problems: [] });
  });

  it('TASK_MISSING: blank task text is an error', () => {
    const result = checkRecording({ ...clean(), task: '  ' });
    expect(result.ok).toBe(false);
    expect(result.problems).toEqual([
      {
        code: 'TASK_MISSING',
        stepIndex: null,
        message: 'The recording has no task text.',
        fix: expect.stringContaining('task instruction'),
        severity: 'error',
      },
    ]);
  });

  it('NO_ACTIONS: only a terminate step (or none at all)', () => {
    expect(summary({ ...clean(), steps: [terminate(0)] })).toEqual([['NO_ACTIONS', null, 'error']]);
    expect(summary({ ...clean(), steps: [] })).toEqual([['NO_ACTIONS', null, 'error']]);
  });

  it('KEYFRAME_MISSING: each stale step and the terminate keyframe', () => {
    const input = { ...clean(), keyframes: { staleStepIds: ['s1'], isTerminateStale: true } };
    expect(summary(input)).toEqual([
      ['KEYFRAME_MISSING', 1, 'error'],
      ['KEYFRAME_MISSING', null, 'error'],
    ]);
    expect(checkRecording(input).problems[0]!.fix).toContain('keyframes:compute');
  });

  it('COORDINATE_OFF_SCREEN: negative and past-the-edge points, not the last pixel', () => {
    const input = clean();
    input.steps = [click(0, -5, 10), click(1, 1280, 10), click(2, 1279, 799), terminate(3)];
    expect(summary(input)).toEqual([
      ['COORDINATE_OFF_SCREEN', 0, 'error'],
      ['COORDINATE_OFF_SCREEN', 1, 'error'],
    ]);
  });

  it('STEP_OUTSIDE_VIDEO: a step before the video starts or after it ends', () => {
    const input = clean();
    input.video = { startMs: 1500, endMs: 2500 };
    // step 0 at 1000 (before), step 1 at 2000 (inside), terminate at 3000 (after)
    expect(summary(input)).toEqual([
      ['STEP_OUTSIDE_VIDEO', 0, 'error'],
      ['STEP_OUTSIDE_VIDEO', 2, 'error'],
    ]);
    expect(summary({ ...input, video: null })).toEqual([]);
  });

  it('UNLABELLED_STEP only when the settings require labels', () => {
    const input = clean();
    input.steps = [{ ...click(0), label: ' ' }, click(1), terminate(2)];
    expect(summary(input)).toEqual([]);
    expect(summary({ ...input, settings: { requireLabels: true } })).toEqual([
      ['UNLABELLED_STEP', 0, 'error'],
    ]);
  });

  it('LONG_IDLE: a gap longer than the threshold is a warning on the step after it', () => {
    const input = clean();
    const late = { ...click(1), startMs: 1100 + LONG_IDLE_MS + 1, endMs: 1200 + LONG_IDLE_MS };
    const exact = { ...terminate(2), startMs: late.endMs + LONG_IDLE_MS };
    input.steps = [click(0), late, exact];
    input.video = { startMs: 0, endMs: 1_000_000 };
    const result = checkRecording(input);
    expect(result.ok).toBe(true);
    expect(result.problems.map((p) => [p.code, p.stepIndex, p.severity])).toEqual([
      ['LONG_IDLE', 1, 'warning'],
    ]);
    expect(result.problems[0]!.message).toContain('60.0 s');
  });

  it('DUPLICATE_STEP: the same click back to back, not typing, keys or scrolling', () => {
    const input = clean();
    const write = (index: number): S => ({
      ...click(index),
      kind: 'write',
      calls: [{ name: 'write', args: { message: 'a' } }],
      coordinate: null,
    });
    input.steps = [click(0, 50, 50), click(1, 50, 50), write(2), write(3), terminate(4)];
    expect(summary(input)).toEqual([['DUPLICATE_STEP', 1, 'warning']]);
  });

  it('NO_TERMINATE: the steps do not end with terminate (a warning)', () => {
    const result = checkRecording({ ...clean(), steps: [click(0), click(1)] });
    expect(result.ok).toBe(true);
    expect(result.problems.map((p) => [p.code, p.stepIndex, p.severity])).toEqual([
      ['NO_TERMINATE', null, 'warning'],
    ]);
  });

  it('PII_UNRESOLVED for open card/iban/secret, PII_FINDING for other open kinds', () => {
    const input: CheckInput = {
      ...clean(),
      findings: [
        { kind: 'card', source: 'typed', stepIndex: 1, resolved: null },
        { kind: 'secret', source: 'typed', stepIndex: 0, resolved: 'redacted' },
        { kind: 'email', source: 'task', stepIndex: null, resolved: null },
        { kind: 'iban', source: 'label', stepIndex: null, resolved: 'accepted' },
      ],
    };
    expect(summary(input)).toEqual([
      ['PII_UNRESOLVED', 1, 'error'],
      ['PII_FINDING', null, 'warning'],
    ]);
  });

  it('every code has a planted case above', () => {
    // keeps this file in step with the list: a new code needs its own test
    expect([...CHECK_CODES].sort()).toEqual(
      [
        'COORDINATE_OFF_SCREEN',
        'DUPLICATE_STEP',
        'KEYFRAME_MISSING',
        'LONG_IDLE',
        'NO_ACTIONS',
        'NO_TERMINATE',
        'PII_FINDING',
        'PII_UNRESOLVED',
        'STEP_OUTSIDE_VIDEO',
        'TASK_MISSING',
        'UNLABELLED_STEP',
      ].sort(),
    );
  });
});
