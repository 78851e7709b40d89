// Payload validators: one hand-written guard per method and event. Each returns the payload
// rebuilt from its known fields, or the path of the first offending field
// (`edit.calls[0].args.x`) with a message saying what was expected and what came.
import { assertNever } from '../assert';
import { ACTION_NAMES, RECORDING_STATUSES, REVIEW_STATUSES } from '../domain';
import type { ActionCall, ActionName, PyValue } from '../domain';
import { EDIT_OPS, STEP_MARKS } from './edits';
import type { StepEdit } from './edits';
import {
  API_EVENTS,
  API_METHODS,
  KEYFRAME_JOB_PHASES,
  RECORDING_PAGE_MAX_LIMIT,
  UPLOAD_PHASES,
} from './methods';
import type {
  ApiEvent,
  ApiEvents,
  ApiMethod,
  ApiMethods,
  RecordingQuery,
  TaskLabels,
} from './methods';

/** Outcome of a validator: the clean value, or the offending field path and why. */
export type Validation<T> = { ok: true; value: T } | { ok: false; field: string; message: string };

/** A payload validator. */
export type Validator<T> = (payload: unknown) => Validation<T>;

// Compile-time proof that the runtime lists name every method and event of the type maps: a
// missing name makes the right-hand side `false` and this file stops compiling.
type MissingMethods = Exclude<ApiMethod, (typeof API_METHODS)[number]>;
type MissingEvents = Exclude<ApiEvent, (typeof API_EVENTS)[number]>;
const _everyMethodListed: [MissingMethods] extends [never] ? true : false = true;
const _everyEventListed: [MissingEvents] extends [never] ? true : false = true;

/** Path used for the payload itself. */
export const PAYLOAD_FIELD = '(payload)';
/** Longest accepted id (recording ids, step ids). */
const MAX_ID_LENGTH = 200;
/** Longest accepted free text (labels, descriptions, comments). */
const MAX_TEXT_LENGTH = 100_000;
/** Most calls in one step. */
const MAX_CALLS = 100;
/** Most recordings in one export run. */
const MAX_EXPORT_IDS = 10_000;
/** Most recordings in one upload request. */
const MAX_UPLOAD_IDS = 10_000;

class Invalid extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
  }
}

function fail(field: string, message: string): never {
  throw new Invalid(field, message);
}

function show(v: unknown): string {
  if (v === undefined) {
    return 'nothing';
  }
  let text: string;
  try {
    text = JSON.stringify(v) ?? typeof v;
  } catch {
    text = typeof v;
  }
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

function join(path: string, key: string | number): string {
  if (typeof key === 'number') {
    return `${path}[${key}]`;
  }
  return path === '' ? key : `${path}.${key}`;
}

function label(path: string): string {
  return path === '' ? PAYLOAD_FIELD : path;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) {
    return false;
  }
  const proto = Object.getPrototypeOf(v) as unknown;
  return proto === Object.prototype || proto === null;
}

/** A plain object whose keys are all in `allowed`. */
function object(v: unknown, path: string, allowed: readonly string[]): Record<string, unknown> {
  if (!isPlainObject(v)) {
    return fail(label(path), `must be an object, got ${show(v)}`);
  }
  for (const key of Object.keys(v)) {
    if (!allowed.includes(key)) {
      return fail(join(path, key), `is not a known field (expected one of ${allowed.join(', ')})`);
    }
  }
  return v;
}

function has(o: Record<string, unknown>, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(o, key) && o[key] !== undefined;
}

function text(v: unknown, path: string, options: { min?: number; max?: number } = {}): string {
  const min = options.min ?? 0;
  const max = options.max ?? MAX_TEXT_LENGTH;
  if (typeof v !== 'string') {
    return fail(path, `must be a string, got ${show(v)}`);
  }
  if (v.length < min) {
    return fail(path, min === 1 ? 'must not be empty' : `must have at least ${min} characters`);
  }
  if (v.length > max) {
    return fail(path, `must have at most ${max} characters, got ${v.length}`);
  }
  return v;
}

function id(v: unknown, path: string): string {
  const s = text(v, path, { min: 1, max: MAX_ID_LENGTH });
  // eslint-disable-next-line no-control-regex -- ids never contain control characters
  if (/[\u0000-\u001f\u007f]/.test(s)) {
    return fail(path, `must not contain control characters, got ${show(s)}`);
  }
  return s;
}

function oneOf<T extends string>(v: unknown, path: string, values: readonly T[]): T {
  if (typeof v !== 'string' || !(values as readonly string[]).includes(v)) {
    return fail(path, `must be one of ${values.join(', ')}, got ${show(v)}`);
  }
  return v as T;
}

function finite(v: unknown, path: string): number {
  if (typeof v !== 'number' || !Number.isFinite(v)) {
    return fail(path, `must be a finite number, got ${show(v)}`);
  }
  return v;
}

function integer(v: unknown, path: string, min: number, max: number): number {
  if (typeof v !== 'number' || !Number.isSafeInteger(v)) {
    return fail(path, `must be an integer, got ${show(v)}`);
  }
  if (v < min || v > max) {
    return fail(path, `must be between ${min} and ${max}, got ${v}`);
  }
  return v;
}

function bool(v: unknown, path: string): boolean {
  if (typeof v !== 'boolean') {
    return fail(path, `must be true or false, got ${show(v)}`);
  }
  return v;
}

function nullable<T>(
  check: (v: unknown, path: string) => T,
): (v: unknown, path: string) => T | null {
  return (v, path) => (v === null ? null : check(v, path));
}

function absolutePath(v: unknown, path: string): string {
  const s = text(v, path, { min: 1, max: 4096 });
  if (s.includes('\0')) {
    return fail(path, 'must not contain NUL characters');
  }
  if (!/^(\/|[A-Za-z]:[\\/]|\\\\)/.test(s)) {
    return fail(path, `must be an absolute path, got ${show(s)}`);
  }
  return s;
}

// ---- action calls ---------------------------------------------------------------------------

type ArgCheck = (v: unknown, path: string) => PyValue;

function pyFloatObject(v: unknown): number | null {
  if (isPlainObject(v) && Object.keys(v).length === 1 && typeof v.float === 'number') {
    return Number.isFinite(v.float) ? v.float : null;
  }
  return null;
}

function pyIntObject(v: unknown): number | null {
  if (isPlainObject(v) && Object.keys(v).length === 1 && typeof v.int === 'number') {
    return Number.isSafeInteger(v.int) ? v.int : null;
  }
  return null;
}

/** Click-family coordinates: a Python float in [0, 1] (normalised by the screen size). */
const unitFloat: ArgCheck = (v, path) => {
  const f = pyFloatObject(v);
  if (f === null || f < 0 || f > 1) {
    return fail(path, `must be a float in [0, 1] like {"float": 0.5}, got ${show(v)}`);
  }
  return { float: f };
};

/** Move/drag coordinates: a float in [0, 1], or the ints 0/1 the OpenCUA conversion clamps to. */
const unitPoint: ArgCheck = (v, path) => {
  const i = pyIntObject(v);
  if (i === 0 || i === 1) {
    return { int: i };
  }
  return unitFloat(v, path);
};

const pyIntArg: ArgCheck = (v, path) => {
  const i = pyIntObject(v);
  if (i === null) {
    return fail(path, `must be an int like {"int": -3}, got ${show(v)}`);
  }
  return { int: i };
};

const positiveIntArg: ArgCheck = (v, path) => {
  const i = pyIntObject(v);
  if (i === null || i < 1) {
    return fail(path, `must be a positive int like {"int": 2}, got ${show(v)}`);
  }
  return { int: i };
};

/** Seconds (intervals, durations, waits): a non-negative int or float. */
const secondsArg: ArgCheck = (v, path) => {
  const f = pyFloatObject(v);
  if (f !== null && f >= 0) {
    return { float: f };
  }
  const i = pyIntObject(v);
  if (i !== null && i >= 0) {
    return { int: i };
  }
  return fail(path, `must be a non-negative number like {"float": 1.0}, got ${show(v)}`);
};

const buttonArg: ArgCheck = (v, path) => oneOf(v, path, ['left', 'right', 'middle'] as const);

const messageArg: ArgCheck = (v, path) => text(v, path, { min: 1 });

const keysArg: ArgCheck = (v, path) => {
  if (!Array.isArray(v) || v.length === 0) {
    return fail(path, `must be a non-empty list of key names, got ${show(v)}`);
  }
  return v.map((key, i) => text(key, join(path, i), { min: 1, max: 100 }));
};

const statusArg: ArgCheck = (v, path) => oneOf(v, path, ['success', 'failure'] as const);

type CallSpec = { required: Record<string, ArgCheck>; optional: Record<string, ArgCheck> };

const POINT = { x: unitFloat, y: unitFloat };
const CALL_SPECS: Record<ActionName, CallSpec> = {
  click: {
    required: POINT,
    optional: {
      clicks: positiveIntArg,
      interval: secondsArg,
      button: buttonArg,
      duration: secondsArg,
    },
  },
  doubleClick: {
    required: POINT,
    optional: { interval: secondsArg, button: buttonArg, duration: secondsArg },
  },
  tripleClick: {
    required: POINT,
    optional: { interval: secondsArg, button: buttonArg, duration: secondsArg },
  },
  rightClick: { required: POINT, optional: { duration: secondsArg } },
  middleClick: { required: POINT, optional: { duration: secondsArg } },
  moveTo: { required: { x: unitPoint, y: unitPoint }, optional: { duration: secondsArg } },
  dragTo: {
    required: { x: unitPoint, y: unitPoint, button: buttonArg },
    optional: { duration: secondsArg },
  },
  scroll: { required: { clicks: pyIntArg }, optional: { x: unitPoint, y: unitPoint } },
  hscroll: { required: { clicks: pyIntArg }, optional: { x: unitPoint, y: unitPoint } },
  write: { required: { message: messageArg }, optional: { interval: secondsArg } },
  press: { required: { keys: keysArg }, optional: { interval: secondsArg } },
  hotkey: { required: { keys: keysArg }, optional: { interval: secondsArg } },
  wait: { required: {}, optional: { seconds: secondsArg } },
  terminate: { required: { status: statusArg }, optional: {} },
};

function actionCall(v: unknown, path: string): ActionCall {
  const o = object(v, path, ['name', 'args']);
  const name = oneOf(o.name, join(path, 'name'), ACTION_NAMES);
  const argsPath = join(path, 'args');
  if (Array.isArray(o.args)) {
    return fail(argsPath, 'must be keyword arguments (an object), not a positional list');
  }
  const spec = CALL_SPECS[name];
  const allowed = [...Object.keys(spec.required), ...Object.keys(spec.optional)];
  const args = object(o.args ?? {}, argsPath, allowed);
  const checked = new Map<string, PyValue>();
  for (const [key, check] of Object.entries(spec.required)) {
    if (!has(args, key)) {
      return fail(join(argsPath, key), `is required for ${name}`);
    }
    checked.set(key, check(args[key], join(argsPath, key)));
  }
  for (const [key, check] of Object.entries(spec.optional)) {
    if (has(args, key)) {
      checked.set(key, check(args[key], join(argsPath, key)));
    }
  }
  // keyword order is kept as sent: it is the order the code prints in
  const out: Record<string, PyValue> = {};
  for (const key of Object.keys(args)) {
    const value = checked.get(key);
    if (value !== undefined) {
      out[key] = value;
    }
  }
  return { name, args: out };
}

/** Validates one call of the action space (name, required args and their types). */
export function validateActionCall(payload: unknown, field = 'call'): Validation<ActionCall> {
  return guard(() => actionCall(payload, field));
}

// ---- edits ----------------------------------------------------------------------------------

const EDIT_FIELDS: Record<StepEdit['op'], readonly string[]> = {
  relabel: ['op', 'stepId', 'label'],
  'set-action': ['op', 'stepId', 'calls'],
  delete: ['op', 'stepId'],
  merge: ['op', 'stepIds'],
  split: ['op', 'stepId', 'at'],
  insert: ['op', 'afterStepId', 'kind', 'status', 'seconds'],
  trim: ['op', 'startMs', 'endMs'],
  mark: ['op', 'stepId', 'mark'],
};

function required(o: Record<string, unknown>, key: string, path: string): unknown {
  if (!Object.prototype.hasOwnProperty.call(o, key) || o[key] === undefined) {
    return fail(join(path, key), 'is required');
  }
  return o[key];
}

function stepEdit(v: unknown, path: string): StepEdit {
  if (!isPlainObject(v)) {
    return fail(label(path), `must be an edit object with an op, got ${show(v)}`);
  }
  const op = oneOf(v.op, join(path, 'op'), EDIT_OPS);
  const o = object(v, path, EDIT_FIELDS[op]);
  const f = (key: string) => join(path, key);
  const stepId = () => id(required(o, 'stepId', path), f('stepId'));
  switch (op) {
    case 'relabel':
      return { op, stepId: stepId(), label: text(required(o, 'label', path), f('label')) };
    case 'set-action': {
      const calls = required(o, 'calls', path);
      if (!Array.isArray(calls) || calls.length === 0 || calls.length > MAX_CALLS) {
        return fail(f('calls'), `must be a list of 1 to ${MAX_CALLS} calls, got ${show(calls)}`);
      }
      return {
        op,
        stepId: stepId(),
        calls: calls.map((c, i) => actionCall(c, join(f('calls'), i))),
      };
    }
    case 'delete':
      return { op, stepId: stepId() };
    case 'merge': {
      const ids = required(o, 'stepIds', path);
      if (!Array.isArray(ids) || ids.length !== 2) {
        return fail(f('stepIds'), `must be a list of two step ids, got ${show(ids)}`);
      }
      const first = id(ids[0], join(f('stepIds'), 0));
      const second = id(ids[1], join(f('stepIds'), 1));
      if (first === second) {
        return fail(join(f('stepIds'), 1), 'must differ from the first step id');
      }
      return { op, stepIds: [first, second] };
    }
    case 'split':
      return {
        op,
        stepId: stepId(),
        at: integer(required(o, 'at', path), f('at'), 1, Number.MAX_SAFE_INTEGER),
      };
    case 'insert': {
      const after = required(o, 'afterStepId', path);
      const kind = oneOf(required(o, 'kind', path), f('kind'), ['wait', 'terminate'] as const);
      const edit: Extract<StepEdit, { op: 'insert' }> = {
        op,
        afterStepId: after === null ? null : id(after, f('afterStepId')),
        kind,
      };
      if (has(o, 'status')) {
        if (kind !== 'terminate') {
          return fail(f('status'), 'is only allowed when kind is terminate');
        }
        edit.status = oneOf(o.status, f('status'), ['success', 'failure'] as const);
      }
      if (has(o, 'seconds')) {
        if (kind !== 'wait') {
          return fail(f('seconds'), 'is only allowed when kind is wait');
        }
        const seconds = finite(o.seconds, f('seconds'));
        if (seconds < 0 || seconds > 3600) {
          return fail(f('seconds'), `must be between 0 and 3600, got ${seconds}`);
        }
        edit.seconds = seconds;
      }
      return edit;
    }
    case 'trim': {
      const ms = nullable(finite);
      const startMs = ms(required(o, 'startMs', path), f('startMs'));
      const endMs = ms(required(o, 'endMs', path), f('endMs'));
      if (startMs !== null && endMs !== null && endMs < startMs) {
        return fail(f('endMs'), `must not be before startMs (${startMs}), got ${endMs}`);
      }
      return { op, startMs, endMs };
    }
    case 'mark': {
      const mark = required(o, 'mark', path);
      return {
        op,
        stepId: stepId(),
        mark: mark === null ? null : oneOf(mark, f('mark'), STEP_MARKS),
      };
    }
    default:
      return assertNever(op, 'edit op');
  }
}

/** Validates one edit (op, fields, and the calls of a set-action). */
export function validateStepEdit(payload: unknown, field = 'edit'): Validation<StepEdit> {
  return guard(() => stepEdit(payload, field));
}

// ---- methods --------------------------------------------------------------------------------

function guard<T>(fn: () => T): Validation<T> {
  try {
    return { ok: true, value: fn() };
  } catch (e) {
    if (e instanceof Invalid) {
      return { ok: false, field: e.field, message: e.message };
    }
    throw e;
  }
}

function idOnly(v: unknown): { id: string } {
  const o = object(v, '', ['id']);
  return { id: id(required(o, 'id', ''), 'id') };
}

/** The optional `force` of the edit methods (edit an accepted recording). */
function force(o: Record<string, unknown>): { force?: boolean } {
  return has(o, 'force') ? { force: bool(o.force, 'force') } : {};
}

function idAndForce(v: unknown): { id: string; force?: boolean } {
  const o = object(v, '', ['id', 'force']);
  return { id: id(required(o, 'id', ''), 'id'), ...force(o) };
}

function uploadIdOnly(v: unknown): { uploadId: number } {
  const o = object(v, '', ['uploadId']);
  return {
    uploadId: integer(required(o, 'uploadId', ''), 'uploadId', 1, Number.MAX_SAFE_INTEGER),
  };
}

function recordingQuery(v: unknown): RecordingQuery {
  const o = object(v ?? {}, '', [
    'search',
    'status',
    'reviewStatus',
    'os',
    'fromMs',
    'toMs',
    'sort',
    'order',
    'offset',
    'limit',
  ]);
  const q: RecordingQuery = {};
  if (has(o, 'search')) {
    q.search = text(o.search, 'search', { max: 500 });
  }
  if (has(o, 'status')) {
    q.status = oneOf(o.status, 'status', RECORDING_STATUSES);
  }
  if (has(o, 'reviewStatus')) {
    q.reviewStatus = oneOf(o.reviewStatus, 'reviewStatus', REVIEW_STATUSES);
  }
  if (has(o, 'os')) {
    q.os = text(o.os, 'os', { min: 1, max: 50 });
  }
  if (has(o, 'fromMs')) {
    q.fromMs = finite(o.fromMs, 'fromMs');
  }
  if (has(o, 'toMs')) {
    q.toMs = finite(o.toMs, 'toMs');
  }
  if (has(o, 'sort')) {
    q.sort = oneOf(o.sort, 'sort', ['created', 'task', 'duration', 'steps', 'status'] as const);
  }
  if (has(o, 'order')) {
    q.order = oneOf(o.order, 'order', ['asc', 'desc'] as const);
  }
  if (has(o, 'offset')) {
    q.offset = integer(o.offset, 'offset', 0, Number.MAX_SAFE_INTEGER);
  }
  if (has(o, 'limit')) {
    q.limit = integer(o.limit, 'limit', 1, RECORDING_PAGE_MAX_LIMIT);
  }
  return q;
}

const score = nullable((v, path) => integer(v, path, 0, 10));

function taskLabels(v: unknown, path: string): TaskLabels {
  const o = object(v, path, [
    'taskCompleted',
    'taskDifficulty',
    'alignmentScore',
    'efficiencyScore',
  ]);
  return {
    taskCompleted: nullable(bool)(required(o, 'taskCompleted', path), join(path, 'taskCompleted')),
    taskDifficulty: score(required(o, 'taskDifficulty', path), join(path, 'taskDifficulty')),
    alignmentScore: score(required(o, 'alignmentScore', path), join(path, 'alignmentScore')),
    efficiencyScore: score(required(o, 'efficiencyScore', path), join(path, 'efficiencyScore')),
  };
}

type Input<M extends ApiMethod> = ApiMethods[M]['input'];

const METHOD_CHECKS: { [M in ApiMethod]: (payload: unknown) => Input<M> } = {
  'recordings:list': recordingQuery,
  'recordings:get': idOnly,
  'recordings:update-task': (v) => {
    const o = object(v, '', ['id', 'task', 'description', 'force']);
    const out: Input<'recordings:update-task'> = { id: id(required(o, 'id', ''), 'id') };
    if (has(o, 'force')) {
      out.force = bool(o.force, 'force');
    }
    if (!has(o, 'task') && !has(o, 'description')) {
      return fail('task', 'give task or description (or both)');
    }
    if (has(o, 'task')) {
      out.task = text(o.task, 'task', { max: 10_000 });
      if (out.task.trim() === '') {
        return fail('task', 'must not be blank');
      }
    }
    if (has(o, 'description')) {
      out.description = text(o.description, 'description');
    }
    return out;
  },
  'recordings:delete': idOnly,
  'edits:apply': (v) => {
    const o = object(v, '', ['id', 'edit', 'force']);
    return {
      id: id(required(o, 'id', ''), 'id'),
      edit: stepEdit(required(o, 'edit', ''), 'edit'),
      ...force(o),
    };
  },
  'edits:undo': idAndForce,
  'edits:redo': idAndForce,
  'labels:save': (v) => {
    const o = object(v, '', ['id', 'labels', 'force']);
    return {
      id: id(required(o, 'id', ''), 'id'),
      labels: taskLabels(required(o, 'labels', ''), 'labels'),
      ...force(o),
    };
  },
  'reviews:set-status': (v) => {
    const o = object(v, '', ['id', 'status', 'comment', 'grade', 'reviewer']);
    const out: Input<'reviews:set-status'> = {
      id: id(required(o, 'id', ''), 'id'),
      status: oneOf(required(o, 'status', ''), 'status', REVIEW_STATUSES),
    };
    if (has(o, 'comment')) {
      out.comment = text(o.comment, 'comment', { max: 20_000 });
    }
    if (has(o, 'grade')) {
      out.grade = text(o.grade, 'grade', { max: 100 });
    }
    if (has(o, 'reviewer')) {
      out.reviewer = text(o.reviewer, 'reviewer', { max: 200 });
    }
    return out;
  },
  'keyframes:compute': idOnly,
  'axtree:get': (v) => {
    const o = object(v, '', ['id', 'stepId']);
    return { id: id(required(o, 'id', ''), 'id'), stepId: id(required(o, 'stepId', ''), 'stepId') };
  },
  'exports:run': (v) => {
    const o = object(v, '', ['ids', 'format', 'outDir', 'skipDamaged', 'overwrite']);
    const ids = required(o, 'ids', '');
    if (!Array.isArray(ids) || ids.length === 0 || ids.length > MAX_EXPORT_IDS) {
      return fail(
        'ids',
        `must be a list of 1 to ${MAX_EXPORT_IDS} recording ids, got ${show(ids)}`,
      );
    }
    return {
      ids: ids.map((x, i) => id(x, join('ids', i))),
      format: oneOf(required(o, 'format', ''), 'format', [
        'agentnet-raw',
        'agentnet-jsonl',
        'standardized',
      ] as const),
      outDir: absolutePath(required(o, 'outDir', ''), 'outDir'),
      ...(o.skipDamaged === undefined ? {} : { skipDamaged: bool(o.skipDamaged, 'skipDamaged') }),
      ...(o.overwrite === undefined ? {} : { overwrite: bool(o.overwrite, 'overwrite') }),
    };
  },
  'uploads:defaults': (v) => {
    object(v, '', []);
    return {};
  },
  'uploads:enqueue': (v) => {
    const o = object(v, '', ['ids', 'to', 'annotator']);
    const ids = required(o, 'ids', '');
    if (!Array.isArray(ids) || ids.length === 0 || ids.length > MAX_UPLOAD_IDS) {
      return fail(
        'ids',
        `must be a list of 1 to ${MAX_UPLOAD_IDS} recording ids, got ${show(ids)}`,
      );
    }
    const out: Input<'uploads:enqueue'> = { ids: ids.map((x, i) => id(x, join('ids', i))) };
    if (has(o, 'to')) {
      out.to = text(o.to, 'to', { min: 1, max: 1024 });
      if (!out.to.startsWith('s3://')) {
        return fail('to', `must be an s3://bucket/prefix URL, got ${show(o.to)}`);
      }
    }
    if (has(o, 'annotator')) {
      out.annotator = text(o.annotator, 'annotator', { min: 1, max: 64 });
    }
    return out;
  },
  'uploads:list': (v) => {
    object(v, '', []);
    return {};
  },
  'uploads:retry': uploadIdOnly,
  'uploads:cancel': uploadIdOnly,
};

/** The payload validator of every method. */
export const METHOD_VALIDATORS: { [M in ApiMethod]: Validator<Input<M>> } = Object.fromEntries(
  API_METHODS.map((m) => [m, (payload: unknown) => guard(() => METHOD_CHECKS[m](payload))]),
) as { [M in ApiMethod]: Validator<Input<M>> };

/** Validates the payload of `method` (a known method name). */
export function validateMethodInput<M extends ApiMethod>(
  method: M,
  payload: unknown,
): Validation<Input<M>> {
  return METHOD_VALIDATORS[method](payload);
}

// ---- events ---------------------------------------------------------------------------------

const EVENT_CHECKS: { [E in ApiEvent]: (payload: unknown) => ApiEvents[E] } = {
  'exports:progress': (v) => {
    const o = object(v, '', ['done', 'total', 'recordingId', 'phase']);
    return {
      done: integer(required(o, 'done', ''), 'done', 0, Number.MAX_SAFE_INTEGER),
      total: integer(required(o, 'total', ''), 'total', 0, Number.MAX_SAFE_INTEGER),
      recordingId: id(required(o, 'recordingId', ''), 'recordingId'),
      phase: text(required(o, 'phase', ''), 'phase', { min: 1, max: 100 }),
    };
  },
  'recordings:changed': idOnly,
  'keyframes:progress': (v) => {
    const o = object(v, '', ['recordingId', 'phase', 'steps', 'error']);
    const error = nullable((e, path) => {
      const eo = object(e, path, ['code', 'message']);
      return {
        code: text(required(eo, 'code', path), join(path, 'code'), { min: 1, max: 100 }),
        message: text(required(eo, 'message', path), join(path, 'message'), { max: 10_000 }),
      };
    })(required(o, 'error', ''), 'error');
    return {
      recordingId: id(required(o, 'recordingId', ''), 'recordingId'),
      phase: oneOf(required(o, 'phase', ''), 'phase', KEYFRAME_JOB_PHASES),
      steps: integer(required(o, 'steps', ''), 'steps', 0, Number.MAX_SAFE_INTEGER),
      error,
    };
  },
  'uploads:progress': (v) => {
    const o = object(v, '', [
      'uploadId',
      'recordingId',
      'phase',
      'bytesDone',
      'bytesTotal',
      'objectsDone',
      'objectsTotal',
      'detail',
    ]);
    const count = (key: string): number =>
      integer(required(o, key, ''), key, 0, Number.MAX_SAFE_INTEGER);
    return {
      uploadId: integer(required(o, 'uploadId', ''), 'uploadId', 1, Number.MAX_SAFE_INTEGER),
      recordingId: id(required(o, 'recordingId', ''), 'recordingId'),
      phase: oneOf(required(o, 'phase', ''), 'phase', UPLOAD_PHASES),
      bytesDone: count('bytesDone'),
      bytesTotal: count('bytesTotal'),
      objectsDone: count('objectsDone'),
      objectsTotal: count('objectsTotal'),
      detail: text(required(o, 'detail', ''), 'detail', { max: 2000 }),
    };
  },
};

/** The payload validator of every event. */
export const EVENT_VALIDATORS: { [E in ApiEvent]: Validator<ApiEvents[E]> } = Object.fromEntries(
  API_EVENTS.map((e) => [e, (payload: unknown) => guard(() => EVENT_CHECKS[e](payload))]),
) as { [E in ApiEvent]: Validator<ApiEvents[E]> };

/** True when `name` is a method of the contract. */
export function isApiMethod(name: string): name is ApiMethod {
  return (API_METHODS as readonly string[]).includes(name);
}
