// Non-destructive edits of a recording's steps: an ordered log applied over the reduced steps.
// The edit and call schemas are the payload of `edits:apply` (docs/architecture.md §3).
import * as v from 'valibot';
import {
  ACTION_NAMES,
  CALL_BUTTONS,
  PII_KINDS,
  TERMINATE_STATUSES,
  type ActionCall,
  type ActionName,
} from '../domain';
import {
  fields,
  finiteField,
  got,
  idField,
  integer,
  isPlainObject,
  oneOf,
  show,
  text,
} from './fields';

/** Every step mark: a reviewer's mark on one step (AgentNet `last_step_correct` /
 * `last_step_redundant`). */
export const STEP_MARKS = ['correct', 'incorrect', 'redundant'] as const;
/** One of {@link STEP_MARKS}. */
export const StepMarkSchema = oneOf(STEP_MARKS);
/** Reviewer's mark on one step. */
export type StepMark = v.InferOutput<typeof StepMarkSchema>;

/** Every edit op name. */
export const EDIT_OPS = [
  'relabel',
  'set-action',
  'delete',
  'merge',
  'split',
  'insert',
  'trim',
  'mark',
  'redact-box',
  'pii-accept',
  'redact-text',
] as const;

/** Kinds of step an `insert` edit adds. */
export const INSERT_KINDS = ['wait', 'terminate'] as const;

/** Prefix of the ids of steps an edit created (`edit:<edit id>`: inserted steps, split halves). */
export const EDIT_STEP_ID_PREFIX = 'edit:';

/** Most calls in one step. */
export const MAX_CALLS = 100;

// ---- action calls: keyword arguments of the action space, checked per call name -------------

const FLOAT_LIKE = 'like {"float": 0.5}';
const isFloat = (x: unknown): x is { float: number } =>
  isPlainObject(x) && Object.keys(x).length === 1 && Number.isFinite(x.float);
const isInt = (x: unknown): x is { int: number } =>
  isPlainObject(x) && Object.keys(x).length === 1 && Number.isSafeInteger(x.int);

/** Click-family coordinates: a Python float in [0, 1] (normalised by the screen size). */
const unitFloat = v.custom<{ float: number }>(
  (x) => isFloat(x) && x.float >= 0 && x.float <= 1,
  got(`must be a float in [0, 1] ${FLOAT_LIKE}`),
);
/** Move/drag coordinates: a float in [0, 1], or the ints 0/1 the OpenCUA conversion clamps to. */
const unitPoint = v.custom<{ float: number } | { int: number }>(
  (x) => (isInt(x) && (x.int === 0 || x.int === 1)) || (isFloat(x) && x.float >= 0 && x.float <= 1),
  got(`must be a float in [0, 1] ${FLOAT_LIKE}`),
);
const pyInt = v.custom<{ int: number }>(isInt, got('must be an int like {"int": -3}'));
const positiveInt = v.custom<{ int: number }>(
  (x) => isInt(x) && x.int >= 1,
  got('must be a positive int like {"int": 2}'),
);
/** Seconds (intervals, durations, waits): a non-negative int or float. */
const seconds = v.custom<{ float: number } | { int: number }>(
  (x) => (isFloat(x) && x.float >= 0) || (isInt(x) && x.int >= 0),
  got('must be a non-negative number like {"float": 1.0}'),
);
const button = oneOf(CALL_BUTTONS);
const keys = v.pipe(
  v.array(text(100, 1), got('must be a non-empty list of key names')),
  v.minLength(1, got('must be a non-empty list of key names')),
);

/** The keyword arguments of one call name (a plain object; a positional list is refused). */
/* @__NO_SIDE_EFFECTS__ */
function kwargs<const E extends v.ObjectEntries>(name: ActionName, entries: E) {
  return v.optional(
    v.pipe(
      v.custom<Record<string, unknown>>(isPlainObject, (issue) =>
        Array.isArray(issue.input)
          ? 'must be keyword arguments (an object), not a positional list'
          : `must be an object, got ${show(issue.input)}`,
      ),
      fields(entries, ` for ${name}`),
    ),
    {},
  );
}

/* @__NO_SIDE_EFFECTS__ */
function call<const N extends ActionName, const E extends v.ObjectEntries>(name: N, args: E) {
  return fields({ name: v.literal(name), args: kwargs(name, args) });
}

const POINT = { x: unitFloat, y: unitFloat };
const CLICK_TIMING = { interval: v.optional(seconds), button: v.optional(button) };
const DURATION = { duration: v.optional(seconds) };
const INTERVAL = { interval: v.optional(seconds) };
const AT = { x: v.optional(unitPoint), y: v.optional(unitPoint) };

// Built by a function marked free of side effects, so that a bundle that never checks a call (the
// renderer) drops it whole: the spreads of its argument lists would otherwise be kept.
/* @__NO_SIDE_EFFECTS__ */
function callSchemas() {
  return v.variant(
    'name',
    [
      call('click', { ...POINT, clicks: v.optional(positiveInt), ...CLICK_TIMING, ...DURATION }),
      call('doubleClick', { ...POINT, ...CLICK_TIMING, ...DURATION }),
      call('tripleClick', { ...POINT, ...CLICK_TIMING, ...DURATION }),
      call('rightClick', { ...POINT, ...DURATION }),
      call('middleClick', { ...POINT, ...DURATION }),
      call('moveTo', { x: unitPoint, y: unitPoint, ...DURATION }),
      call('dragTo', { x: unitPoint, y: unitPoint, button, ...DURATION }),
      call('scroll', { clicks: pyInt, ...AT }),
      call('hscroll', { clicks: pyInt, ...AT }),
      call('write', { message: text(undefined, 1), ...INTERVAL }),
      call('press', { keys, ...INTERVAL }),
      call('hotkey', { keys, ...INTERVAL }),
      call('wait', { seconds: v.optional(seconds) }),
      call('terminate', { status: oneOf(TERMINATE_STATUSES) }),
    ],
    got(`must be one of ${ACTION_NAMES.join(', ')}`),
  );
}
const callVariant = callSchemas();
/** One call of the action space as an edit may set it: a known name with its keyword arguments
 * (required ones present, each of its type). The output is a domain {@link ActionCall}. */
export const ActionCallInputSchema: v.GenericSchema<unknown, ActionCall> = v.pipe(
  v.custom<Record<string, unknown>>(isPlainObject, got('must be an object')),
  callVariant,
);

// ---- edits ----------------------------------------------------------------------------------

const stepId = idField;

// The edit schema, built like the call schema (a bundle that never checks an edit drops it).
/* @__NO_SIDE_EFFECTS__ */
function stepEditSchema() {
  return v.pipe(
    v.custom<Record<string, unknown>>(isPlainObject, got('must be an edit object with an op')),
    v.variant(
      'op',
      [
        fields({ op: v.literal('relabel'), stepId, label: text() }),
        /** Replace the step's calls (validated: a well-formed action of the action space). */
        fields({
          op: v.literal('set-action'),
          stepId,
          calls: v.pipe(
            v.array(ActionCallInputSchema, got(`must be a list of 1 to ${MAX_CALLS} calls`)),
            v.minLength(1, got(`must be a list of 1 to ${MAX_CALLS} calls`)),
            v.maxLength(MAX_CALLS, got(`must be a list of 1 to ${MAX_CALLS} calls`)),
          ),
        }),
        fields({ op: v.literal('delete'), stepId }),
        /**
         * Merge two adjacent steps (the first keeps its id and position; calls and time spans are
         * joined, adjacent writes become one write, two scrolls add up; distinct non-empty labels
         * are joined with a space).
         */
        v.pipe(
          fields({
            op: v.literal('merge'),
            stepIds: v.pipe(
              v.array(stepId, got('must be a list of two step ids')),
              v.length(2, got('must be a list of two step ids')),
              v.transform((ids): [string, string] => [ids[0]!, ids[1]!]),
            ),
          }),
          v.forward(
            v.check((e) => e.stepIds[0] !== e.stepIds[1], 'must differ from the first step id'),
            ['stepIds', 1],
          ),
        ),
        /**
         * Split a typing step's write message at a character offset (Unicode code points over the
         * step's write messages in order, 0 < at < length) into two steps; the second half gets
         * the id `edit:<edit id>`.
         */
        fields({ op: v.literal('split'), stepId, at: integer(1) }),
        /**
         * Insert a wait or terminate step after the given step (null = at the start). `status`
         * only for terminate (default success), `seconds` only for wait (default: pyautogui's own
         * wait). A terminate must be inserted after the last step.
         */
        v.pipe(
          fields({
            op: v.literal('insert'),
            afterStepId: v.nullable(stepId),
            kind: oneOf(INSERT_KINDS),
            status: v.optional(oneOf(TERMINATE_STATUSES)),
            seconds: v.optional(
              v.pipe(
                finiteField,
                v.minValue(0, (i) => `must be between 0 and 3600, got ${show(i.input)}`),
                v.maxValue(3600, (i) => `must be between 0 and 3600, got ${show(i.input)}`),
              ),
            ),
          }),
          v.forward(
            v.check(
              (e) => e.status === undefined || e.kind === 'terminate',
              'is only allowed when kind is terminate',
            ),
            ['status'],
          ),
          v.forward(
            v.check(
              (e) => e.seconds === undefined || e.kind === 'wait',
              'is only allowed when kind is wait',
            ),
            ['seconds'],
          ),
        ),
        /** Trim the recording: steps starting before startMs or after endMs are left out. */
        v.pipe(
          fields({
            op: v.literal('trim'),
            startMs: v.nullable(finiteField),
            endMs: v.nullable(finiteField),
          }),
          v.forward(
            v.check(
              (e) => e.startMs === null || e.endMs === null || e.endMs >= e.startMs,
              (issue) => {
                const e = issue.input as { startMs: number; endMs: number };
                return `must not be before startMs (${e.startMs}), got ${e.endMs}`;
              },
            ),
            ['endMs'],
          ),
        ),
        fields({ op: v.literal('mark'), stepId, mark: v.nullable(StepMarkSchema) }),
        /**
         * Black out a box of the video over a time range (recording clock, ms, both ends
         * included) in every export and upload; `box` is in recording pixels (the video's pixel
         * space, top-left 0,0). Steps are unchanged; the raw video is never touched.
         */
        v.pipe(
          fields({
            op: v.literal('redact-box'),
            stepId: v.null(got('must be null (a box redaction belongs to no step)')),
            startMs: v.pipe(finiteField, v.minValue(0, got('must be a time in ms ≥ 0'))),
            endMs: v.pipe(finiteField, v.minValue(0, got('must be a time in ms ≥ 0'))),
            box: fields({
              x: integer(0),
              y: integer(0),
              width: integer(1),
              height: integer(1),
            }),
          }),
          v.forward(
            v.check(
              (e) => e.endMs >= e.startMs,
              (issue) => {
                const e = issue.input as { startMs: number; endMs: number };
                return `must not be before startMs (${e.startMs}), got ${e.endMs}`;
              },
            ),
            ['endMs'],
          ),
        ),
        /**
         * The reviewer marks a PII finding (the `id` of a `privacy:scan` finding) acceptable: it
         * no longer blocks export and upload (docs/privacy.md). Steps are unchanged.
         */
        fields({
          op: v.literal('pii-accept'),
          findingId: text(200, 1),
          note: v.optional(text(2000)),
        }),
        /**
         * Redact a PII finding's text (the `id` of a `privacy:scan` finding, its matched text and
         * kind): every occurrence leaves as the kind's placeholder (`[EMAIL]`, …) in every export
         * and upload (docs/privacy.md). Steps and raw rows are unchanged.
         */
        fields({
          op: v.literal('redact-text'),
          findingId: text(200, 1),
          text: text(10_000, 1),
          kind: oneOf(PII_KINDS),
        }),
      ] satisfies { entries: { op: v.LiteralSchema<(typeof EDIT_OPS)[number], undefined> } }[],
      got(`must be one of ${EDIT_OPS.join(', ')}`),
    ),
  );
}
/** One edit. Step ids are the stable ids of steps (inserted steps get `edit:<edit id>`). */
export const StepEditSchema = stepEditSchema();
/** One edit. Step ids are the stable ids of steps (inserted steps get `edit:<edit id>`). */
export type StepEdit = v.InferOutput<typeof StepEditSchema>;

/** Where an edit stands in the undo history. */
export type EditState =
  /** Applied. */
  | 'active'
  /** Undone; a redo applies it again. */
  | 'undone'
  /** Undone and then superseded by a new edit: never applied again (the dropped redo tail). */
  | 'discarded';

/** One row of a recording's edit log. */
export type StoredEdit = {
  /** Log id, increasing in the order the edits were made. */
  id: number;
  /** When the edit was made (epoch ms). */
  atMs: number;
  author: string | null;
  edit: StepEdit;
  state: EditState;
};

/** An edit the log holds but that could not be applied (e.g. its step vanished on re-reduction). */
export const SkippedEditSchema = v.strictObject({
  editId: v.number(),
  op: v.picklist(EDIT_OPS),
  /** Stable reason: STEP_MISSING, NOT_ADJACENT, NOT_SPLITTABLE, NOT_LAST, … */
  code: v.string(),
  message: v.string(),
});
/** An edit the log holds but that could not be applied. */
export type SkippedEdit = v.InferOutput<typeof SkippedEditSchema>;

// Compile-time proof that the edit schema has one option per op and the call schema one per
// action name: a missing one makes the right-hand side `false` and this file stops compiling.
type MissingOps = Exclude<(typeof EDIT_OPS)[number], StepEdit['op']>;
const _everyOpParsed: [MissingOps] extends [never] ? true : false = true;
type MissingNames = Exclude<ActionName, v.InferOutput<typeof callVariant>['name']>;
const _everyNameParsed: [MissingNames] extends [never] ? true : false = true;
