// The contract's schemas: a wrong field deep in a payload is named with its path and what was
// expected; output schemas refuse results that drifted from the contract; event payloads too.
import { describe, expect, it } from 'vitest';
import * as v from 'valibot';
import {
  EVENT_VALIDATORS,
  METHOD_SCHEMAS,
  RecordingDtoSchema,
  StepDtoSchema,
  validateMethodInput,
  validateMethodOutput,
  validateWith,
  type StepDto,
} from '../../../src/shared/contract';
import { EXPORT_FORMATS } from '../../../src/shared/domain';

const f = (x: number) => ({ float: x });

function setAction(calls: unknown[]): unknown {
  return { id: 'rec', edit: { op: 'set-action', stepId: 's', calls } };
}

describe('payload errors name the nested field', () => {
  it.each([
    [
      setAction([
        { name: 'write', args: { message: 'a' } },
        { name: 'hotkey', args: { keys: ['ctrl', ''] } },
      ]),
      'edit.calls[1].args.keys[1]',
      'must not be empty',
    ],
    [
      setAction([{ name: 'click', args: { x: f(0.5), y: f(0.5), speed: { int: 3 } } }]),
      'edit.calls[0].args.speed',
      'is not a known field (expected one of x, y, clicks, interval, button, duration)',
    ],
    [
      setAction([{ name: 'click', args: { x: f(0.5) } }]),
      'edit.calls[0].args.y',
      'is required for click',
    ],
    [
      setAction([{ name: 'dragTo', args: { x: f(0.1), y: f(0.1), button: 'up' } }]),
      'edit.calls[0].args.button',
      'must be one of left, right, middle, got "up"',
    ],
    [
      setAction([{ name: 'clickk', args: {} }]),
      'edit.calls[0].name',
      expect.stringMatching(/^must be one of click, doubleClick, .*, terminate, got "clickk"$/),
    ],
    [
      { id: 'rec', edit: { op: 'merge', stepIds: ['a', 'a'] } },
      'edit.stepIds[1]',
      'must differ from the first step id',
    ],
    [
      { id: 'rec', edit: { op: 'trim', startMs: 9, endMs: 3 } },
      'edit.endMs',
      'must not be before startMs (9), got 3',
    ],
    [
      { id: 'rec', edit: { op: 'insert', afterStepId: 's', kind: 'wait', seconds: 4000 } },
      'edit.seconds',
      'must be between 0 and 3600, got 4000',
    ],
  ])('edits:apply %# → %s', (payload, field, message) => {
    expect(validateMethodInput('edits:apply', payload)).toEqual({ ok: false, field, message });
  });

  it('names fields of other nested payloads', () => {
    const labels = {
      taskCompleted: true,
      taskDifficulty: 11,
      alignmentScore: 1,
      efficiencyScore: null,
    };
    expect(validateMethodInput('labels:save', { id: 'a', labels })).toEqual({
      ok: false,
      field: 'labels.taskDifficulty',
      message: 'must be between 0 and 10, got 11',
    });
    expect(
      validateMethodInput('exports:run', {
        ids: ['a', 'b\u0007'],
        format: 'standardized',
        outDir: '/x',
      }),
    ).toEqual({
      ok: false,
      field: 'ids[1]',
      message: 'must not contain control characters, got "b\\u0007"',
    });
    expect(validateMethodInput('uploads:enqueue', { ids: ['a'], to: 'https://bucket' })).toEqual({
      ok: false,
      field: 'to',
      message: 'must be an s3://bucket/prefix URL, got "https://bucket"',
    });
    expect(validateMethodInput('recordings:update-task', { id: 'a' })).toEqual({
      ok: false,
      field: 'task',
      message: 'give task or description (or both)',
    });
  });

  it('treats an absent library query as the empty query', () => {
    expect(validateMethodInput('recordings:list', undefined)).toEqual({ ok: true, value: {} });
    expect(validateMethodInput('recordings:list', null)).toEqual({ ok: true, value: {} });
  });

  it('lists the domain export formats in the format error', () => {
    const r = validateMethodInput('exports:run', { ids: ['a'], format: 'zip', outDir: '/x' });
    expect(r).toEqual({
      ok: false,
      field: 'format',
      message: `must be one of ${EXPORT_FORMATS.join(', ')}, got "zip"`,
    });
    for (const format of EXPORT_FORMATS) {
      expect(validateMethodInput('exports:run', { ids: ['a'], format, outDir: '/x' }).ok).toBe(
        true,
      );
    }
  });
});

/** A step as the review service builds it. */
const STEP: StepDto = {
  id: 'agentnet:0',
  index: 0,
  kind: 'click',
  label: 'Click OK',
  description: 'CLICK OK',
  calls: [{ name: 'click', args: { x: f(0.5), y: f(0.25) } }],
  code: 'pyautogui.click(x=0.5, y=0.25)',
  startMs: 10,
  endMs: 20,
  coordinate: { x: 960, y: 270 },
  preMove: null,
  keyframeMs: null,
  keyframeUrl: null,
  element: [{ role: 'ButtonControl', name: 'OK' }],
  windowTitle: 'Settings',
  mark: null,
  isEdited: false,
  diagnostics: [],
  overlay: { dragPath: [[1, 2]] },
};

describe('output schemas', () => {
  it('accept a step as built and refuse drifted ones, naming the field', () => {
    expect(v.is(StepDtoSchema, STEP)).toBe(true);
    const drifted: [unknown, string][] = [
      [{ ...STEP, kind: 'drag' }, 'result.kind'],
      [{ ...STEP, keyframeMs: undefined }, 'result.keyframeMs'],
      [{ ...STEP, keyframeTime: 3 }, 'result.keyframeTime'],
      [{ ...STEP, mark: 'good' }, 'result.mark'],
      [{ ...STEP, overlay: { dragPath: [[1, '2']] } }, 'result.overlay.dragPath[0][1]'],
      [{ ...STEP, calls: [{ name: 'click', args: { x: 0.5 } }] }, 'result.calls[0].args'],
    ];
    for (const [step, field] of drifted) {
      const r = validateWith(StepDtoSchema, step, 'result');
      expect(r.ok ? null : r.field, JSON.stringify(step)).toBe(field);
    }
    const noIndex: Record<string, unknown> = { ...STEP };
    delete noIndex.index;
    const r = validateWith(StepDtoSchema, noIndex, 'result');
    expect(r.ok ? null : r.field).toBe('result.index');
  });

  it('refuse a list result whose status is not the domain list', () => {
    const item = {
      id: 'a',
      task: 't',
      status: 'complete',
      reviewStatus: 'draft',
      source: 'agentnet-import',
      os: 'win32',
      createdAtMs: 1,
      recordedAt: null,
      durationMs: null,
      stepCount: 2,
      eventCount: 3,
    };
    expect(validateMethodOutput('recordings:list', { total: 1, items: [item] }).ok).toBe(true);
    const r = validateMethodOutput('recordings:list', {
      total: 1,
      items: [item, { ...item, reviewStatus: 'approved' }],
    });
    expect(r.ok ? null : r.field).toBe('result.items[1].reviewStatus');
    const s = validateMethodOutput('recordings:list', {
      total: 1,
      items: [{ ...item, source: 'scan' }],
    });
    expect(s.ok ? null : s.field).toBe('result.items[0].source');
  });

  it('exist for every method, and the recording DTO is one schema for all methods returning it', () => {
    for (const m of [
      'recordings:get',
      'recordings:update-task',
      'edits:apply',
      'labels:save',
      'reviews:set-status',
      'keyframes:compute',
      'privacy:redact',
    ] as const) {
      expect(METHOD_SCHEMAS[m].output).toBe(RecordingDtoSchema);
    }
  });
});

describe('event schemas', () => {
  it('name the wrong field of an event payload', () => {
    const progress = {
      uploadId: 1,
      recordingId: 'a',
      phase: 'uploading',
      bytesDone: 1,
      bytesTotal: 2,
      objectsDone: 0,
      objectsTotal: 1,
      detail: 'part 1/2',
    };
    expect(EVENT_VALIDATORS['uploads:progress'](progress)).toEqual({ ok: true, value: progress });
    const r = EVENT_VALIDATORS['uploads:progress']({ ...progress, phase: 'queued' });
    expect(r.ok ? null : r.field).toBe('phase');
    const k = EVENT_VALIDATORS['keyframes:progress']({
      recordingId: 'a',
      phase: 'failed',
      steps: 0,
      error: { code: '', message: 'no video' },
    });
    expect(k).toEqual({ ok: false, field: 'error.code', message: 'must not be empty' });
  });
});
