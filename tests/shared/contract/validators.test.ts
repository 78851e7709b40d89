// Payload validators: valid payloads pass unchanged, invalid ones name the offending field.
import { describe, expect, it } from 'vitest';
import {
  API_EVENTS,
  API_METHODS,
  EVENT_VALIDATORS,
  METHOD_VALIDATORS,
  validateActionCall,
  validateMethodInput,
  type ApiMethod,
} from '../../../src/shared/contract';

const f = (v: number) => ({ float: v });
const i = (v: number) => ({ int: v });

/** [call, offending field or null when valid]. */
const CALLS: [unknown, string | null][] = [
  [{ name: 'click', args: { x: f(0.5), y: f(0) } }, null],
  [{ name: 'click', args: { x: f(0.5), y: f(1), clicks: i(2), button: 'right' } }, null],
  [{ name: 'doubleClick', args: { x: f(0.1), y: f(0.2) } }, null],
  [{ name: 'tripleClick', args: { x: f(0.1), y: f(0.2) } }, null],
  [{ name: 'rightClick', args: { x: f(0.1), y: f(0.2) } }, null],
  [{ name: 'middleClick', args: { x: f(0.1), y: f(0.2) } }, null],
  [{ name: 'moveTo', args: { x: i(0), y: f(0.2) } }, null],
  [{ name: 'dragTo', args: { x: f(0.1), y: i(1), button: 'left' } }, null],
  [{ name: 'scroll', args: { clicks: i(-3) } }, null],
  [{ name: 'hscroll', args: { clicks: i(2) } }, null],
  [{ name: 'write', args: { message: 'héllo' } }, null],
  [{ name: 'press', args: { keys: ['enter'] } }, null],
  [{ name: 'hotkey', args: { keys: ['ctrl', 'c'] } }, null],
  [{ name: 'wait', args: {} }, null],
  [{ name: 'wait', args: { seconds: f(1.5) } }, null],
  [{ name: 'terminate', args: { status: 'failure' } }, null],
  // invalid
  [{ name: 'clickk', args: {} }, 'call.name'],
  [{ name: 'click', args: { x: f(1.5), y: f(0.5) } }, 'call.args.x'],
  [{ name: 'click', args: { x: i(1), y: f(0.5) } }, 'call.args.x'],
  [{ name: 'click', args: { x: 0.5, y: f(0.5) } }, 'call.args.x'],
  [{ name: 'click', args: { x: f(0.5) } }, 'call.args.y'],
  [{ name: 'click', args: { x: f(Number.NaN), y: f(0.5) } }, 'call.args.x'],
  [{ name: 'click', args: { x: f(0.5), y: f(0.5), speed: i(3) } }, 'call.args.speed'],
  [{ name: 'click', args: [f(0.5), f(0.5)] }, 'call.args'],
  [{ name: 'dragTo', args: { x: f(0.1), y: f(0.1) } }, 'call.args.button'],
  [{ name: 'dragTo', args: { x: f(0.1), y: f(0.1), button: 'up' } }, 'call.args.button'],
  [{ name: 'moveTo', args: { x: i(2), y: f(0.2) } }, 'call.args.x'],
  [{ name: 'scroll', args: { clicks: f(3) } }, 'call.args.clicks'],
  [{ name: 'scroll', args: {} }, 'call.args.clicks'],
  [{ name: 'write', args: { message: '' } }, 'call.args.message'],
  [{ name: 'write', args: { message: ['a'] } }, 'call.args.message'],
  [{ name: 'press', args: { keys: [] } }, 'call.args.keys'],
  [{ name: 'press', args: { keys: 'enter' } }, 'call.args.keys'],
  [{ name: 'hotkey', args: { keys: ['ctrl', ''] } }, 'call.args.keys[1]'],
  [{ name: 'hotkey', args: { keys: ['ctrl', 3] } }, 'call.args.keys[1]'],
  [{ name: 'wait', args: { seconds: f(-1) } }, 'call.args.seconds'],
  [{ name: 'terminate', args: {} }, 'call.args.status'],
  [{ name: 'terminate', args: { status: 'done' } }, 'call.args.status'],
  [{ name: 'click', args: { x: f(0.5), y: f(0.5) }, extra: 1 }, 'call.extra'],
  ['click(0.5, 0.5)', '(payload)'],
];

describe('validateActionCall', () => {
  it('keeps the keyword order as sent (the order the code prints in)', () => {
    const call = {
      name: 'dragTo',
      args: { y: f(0.2), duration: f(0.5), x: f(0.1), button: 'left' },
    };
    const r = validateActionCall(call);
    expect(r.ok && Object.keys(r.value.args)).toEqual(['y', 'duration', 'x', 'button']);
  });

  for (const [call, field] of CALLS) {
    it(`${JSON.stringify(call)} → ${field ?? 'valid'}`, () => {
      const r = validateActionCall(call, call === 'click(0.5, 0.5)' ? '' : 'call');
      if (field === null) {
        expect(r).toEqual({ ok: true, value: call });
      } else {
        expect(r.ok).toBe(false);
        expect(r.ok ? '' : r.field).toBe(field);
      }
    });
  }
});

const EDIT_OK = { id: 'rec', edit: { op: 'relabel', stepId: 'agentnet:1', label: 'Click OK' } };

/** [method, payload, offending field or null when valid]. */
const PAYLOADS: [ApiMethod, unknown, string | null][] = [
  ['recordings:list', {}, null],
  [
    'recordings:list',
    {
      search: 'x',
      status: 'complete',
      reviewStatus: 'accepted',
      os: 'linux',
      fromMs: 1,
      toMs: 2,
      sort: 'steps',
      order: 'asc',
      offset: 0,
      limit: 5000,
    },
    null,
  ],
  ['recordings:list', { limit: 5001 }, 'limit'],
  ['recordings:list', { limit: 1.5 }, 'limit'],
  ['recordings:list', { sort: 'size' }, 'sort'],
  ['recordings:list', { status: 'done' }, 'status'],
  ['recordings:list', { offset: -1 }, 'offset'],
  ['recordings:list', { q: 'x' }, 'q'],
  ['recordings:get', { id: 'abc' }, null],
  ['recordings:get', {}, 'id'],
  ['recordings:get', { id: '' }, 'id'],
  ['recordings:get', { id: 'a\u0000b' }, 'id'],
  ['recordings:get', 'abc', '(payload)'],
  ['recordings:get', null, '(payload)'],
  ['recordings:update-task', { id: 'a', task: 'New task' }, null],
  ['recordings:update-task', { id: 'a', description: '' }, null],
  ['recordings:update-task', { id: 'a' }, 'task'],
  ['recordings:update-task', { id: 'a', task: '   ' }, 'task'],
  ['recordings:delete', { id: 'a' }, null],
  ['edits:apply', EDIT_OK, null],
  ['edits:apply', { id: 'a', edit: { op: 'delete', stepId: 's' } }, null],
  ['edits:apply', { id: 'a', edit: { op: 'merge', stepIds: ['s1', 's2'] } }, null],
  ['edits:apply', { id: 'a', edit: { op: 'split', stepId: 's', at: 3 } }, null],
  [
    'edits:apply',
    { id: 'a', edit: { op: 'insert', afterStepId: null, kind: 'terminate', status: 'failure' } },
    null,
  ],
  [
    'edits:apply',
    { id: 'a', edit: { op: 'insert', afterStepId: 's', kind: 'wait', seconds: 2 } },
    null,
  ],
  ['edits:apply', { id: 'a', edit: { op: 'trim', startMs: null, endMs: 100 } }, null],
  ['edits:apply', { id: 'a', edit: { op: 'mark', stepId: 's', mark: null } }, null],
  ['edits:apply', { id: 'a', edit: { op: 'mark', stepId: 's', mark: 'redundant' } }, null],
  [
    'edits:apply',
    {
      id: 'a',
      edit: {
        op: 'set-action',
        stepId: 's',
        calls: [
          { name: 'moveTo', args: { x: f(0.1), y: f(0.1) } },
          { name: 'dragTo', args: { x: f(0.2), y: f(0.2), button: 'left' } },
        ],
      },
    },
    null,
  ],
  // invalid edits name the nested field
  [
    'edits:apply',
    {
      id: 'a',
      edit: {
        op: 'set-action',
        stepId: 's',
        calls: [{ name: 'click', args: { x: f(2), y: f(0) } }],
      },
    },
    'edit.calls[0].args.x',
  ],
  [
    'edits:apply',
    {
      id: 'a',
      edit: {
        op: 'set-action',
        stepId: 's',
        calls: [
          { name: 'write', args: { message: 'a' } },
          { name: 'hotkey', args: { keys: [] } },
        ],
      },
    },
    'edit.calls[1].args.keys',
  ],
  ['edits:apply', { id: 'a', edit: { op: 'set-action', stepId: 's', calls: [] } }, 'edit.calls'],
  ['edits:apply', { id: 'a', edit: { op: 'rename', stepId: 's' } }, 'edit.op'],
  ['edits:apply', { id: 'a', edit: { op: 'relabel', stepId: 's' } }, 'edit.label'],
  ['edits:apply', { id: 'a', edit: { op: 'relabel', label: 'x' } }, 'edit.stepId'],
  ['edits:apply', { id: 'a', edit: { op: 'delete', stepId: 's', label: 'x' } }, 'edit.label'],
  ['edits:apply', { id: 'a', edit: { op: 'merge', stepIds: ['s1'] } }, 'edit.stepIds'],
  ['edits:apply', { id: 'a', edit: { op: 'merge', stepIds: ['s1', 's1'] } }, 'edit.stepIds[1]'],
  ['edits:apply', { id: 'a', edit: { op: 'merge', stepIds: ['s1', 7] } }, 'edit.stepIds[1]'],
  ['edits:apply', { id: 'a', edit: { op: 'split', stepId: 's', at: 0 } }, 'edit.at'],
  ['edits:apply', { id: 'a', edit: { op: 'split', stepId: 's', at: 1.5 } }, 'edit.at'],
  ['edits:apply', { id: 'a', edit: { op: 'insert', kind: 'wait' } }, 'edit.afterStepId'],
  [
    'edits:apply',
    { id: 'a', edit: { op: 'insert', afterStepId: null, kind: 'click' } },
    'edit.kind',
  ],
  [
    'edits:apply',
    { id: 'a', edit: { op: 'insert', afterStepId: null, kind: 'wait', status: 'success' } },
    'edit.status',
  ],
  [
    'edits:apply',
    { id: 'a', edit: { op: 'insert', afterStepId: null, kind: 'terminate', seconds: 1 } },
    'edit.seconds',
  ],
  ['edits:apply', { id: 'a', edit: { op: 'trim', startMs: 5, endMs: 1 } }, 'edit.endMs'],
  ['edits:apply', { id: 'a', edit: { op: 'trim', startMs: 5 } }, 'edit.endMs'],
  ['edits:apply', { id: 'a', edit: { op: 'mark', stepId: 's', mark: 'good' } }, 'edit.mark'],
  ['edits:apply', { id: 'a', edit: 'delete s' }, 'edit'],
  ['edits:apply', { id: 'a' }, 'edit'],
  ['edits:undo', { id: 'a' }, null],
  ['edits:redo', { id: 'a', extra: true }, 'extra'],
  [
    'labels:save',
    {
      id: 'a',
      labels: { taskCompleted: null, taskDifficulty: 0, alignmentScore: 10, efficiencyScore: null },
    },
    null,
  ],
  [
    'labels:save',
    {
      id: 'a',
      labels: {
        taskCompleted: 'yes',
        taskDifficulty: 0,
        alignmentScore: 10,
        efficiencyScore: null,
      },
    },
    'labels.taskCompleted',
  ],
  [
    'labels:save',
    {
      id: 'a',
      labels: {
        taskCompleted: true,
        taskDifficulty: 11,
        alignmentScore: 10,
        efficiencyScore: null,
      },
    },
    'labels.taskDifficulty',
  ],
  [
    'labels:save',
    { id: 'a', labels: { taskCompleted: true, taskDifficulty: 1, alignmentScore: 1 } },
    'labels.efficiencyScore',
  ],
  [
    'reviews:set-status',
    { id: 'a', status: 'accepted', comment: 'ok', grade: 'A', reviewer: 'r' },
    null,
  ],
  ['reviews:set-status', { id: 'a', status: 'approved' }, 'status'],
  ['reviews:set-status', { id: 'a', status: 'accepted', comment: 3 }, 'comment'],
  ['keyframes:compute', { id: 'a' }, null],
  ['axtree:get', { id: 'a', stepId: 's' }, null],
  ['axtree:get', { id: 'a' }, 'stepId'],
  ['exports:run', { ids: ['a'], format: 'standardized', outDir: '/tmp/out' }, null],
  ['exports:run', { ids: ['a'], format: 'agentnet-raw', outDir: 'C:\\out' }, null],
  ['exports:run', { ids: [], format: 'standardized', outDir: '/tmp/out' }, 'ids'],
  ['exports:run', { ids: ['a', ''], format: 'standardized', outDir: '/tmp/out' }, 'ids[1]'],
  ['exports:run', { ids: ['a'], format: 'zip', outDir: '/tmp/out' }, 'format'],
  ['exports:run', { ids: ['a'], format: 'standardized', outDir: 'out' }, 'outDir'],
  ['privacy:redact', { id: 'a', findingIds: ['f1', 'f2'] }, null],
  ['privacy:redact', { id: 'a', findingIds: ['f1'], force: true }, null],
  ['privacy:redact', { id: 'a', findingIds: [] }, 'findingIds'],
  ['privacy:redact', { id: 'a', findingIds: ['f1', ''] }, 'findingIds[1]'],
  ['privacy:redact', { id: 'a' }, 'findingIds'],
  ['privacy:redactions', { id: 'a' }, null],
  ['recordings:check', { id: 'a' }, null],
  ['recordings:check', {}, 'id'],
  ['replay:start', { id: 'a' }, null],
  ['replay:start', { id: 'a', speed: 2.5 }, null],
  ['replay:start', { id: 'a', speed: 0 }, 'speed'],
  ['replay:start', { id: 'a', speed: 101 }, 'speed'],
  ['replay:start', { id: 'a', display: ':0' }, 'display'],
  ['replay:status', { id: 'a' }, null],
  ['replay:status', {}, 'id'],
  ['replay:cancel', { id: 'a' }, null],
  ['settings:set', { replayDisplay: ':99' }, null],
  ['settings:set', { replayDisplay: '' }, null],
  ['settings:set', { replayDisplay: ':99 && xterm' }, 'replayDisplay'],
];

describe('method validators', () => {
  it('exist for exactly the methods and events of the contract', () => {
    expect(Object.keys(METHOD_VALIDATORS).sort()).toEqual([...API_METHODS].sort());
    expect(Object.keys(EVENT_VALIDATORS).sort()).toEqual([...API_EVENTS].sort());
  });

  for (const [method, payload, field] of PAYLOADS) {
    it(`${method} ${JSON.stringify(payload)} → ${field ?? 'valid'}`, () => {
      const r = validateMethodInput(method, payload);
      if (field === null) {
        expect(r).toEqual({ ok: true, value: payload });
      } else {
        expect(r.ok).toBe(false);
        if (!r.ok) {
          expect(r.field).toBe(field);
          expect(r.message.length).toBeGreaterThan(5);
        }
      }
    });
  }

  it('says what was expected and what came', () => {
    const r = validateMethodInput('edits:apply', {
      id: 'a',
      edit: {
        op: 'set-action',
        stepId: 's',
        calls: [{ name: 'click', args: { x: f(2), y: f(0) } }],
      },
    });
    expect(r).toEqual({
      ok: false,
      field: 'edit.calls[0].args.x',
      message: 'must be a float in [0, 1] like {"float": 0.5}, got {"float":2}',
    });
  });

  it('validates events', () => {
    expect(EVENT_VALIDATORS['recordings:changed']({ id: 'a' })).toEqual({
      ok: true,
      value: { id: 'a' },
    });
    const r = EVENT_VALIDATORS['exports:progress']({
      done: -1,
      total: 2,
      recordingId: 'a',
      phase: 'x',
    });
    expect(r.ok ? null : r.field).toBe('done');
  });
});
