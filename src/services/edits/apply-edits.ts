// The edit log applied over the reduced steps (pure): the steps every view and export sees.
// Edits apply in log order; an edit that no longer fits (its step vanished on a re-reduction,
// its merge partner is no longer adjacent, …) is skipped and reported, never fatal. The base
// steps are never mutated; untouched steps keep every field (only `index` follows their new
// position), so exports of untouched steps stay byte-identical.
import type { ActionCall, PyValue, Step } from '../../shared/domain';
import { splitCalls, splitStepLabels, stepKindOfCalls, writtenTextOf } from '../../shared/domain';
import type { SkippedEdit, StepEdit, StepMark, StoredEdit } from '../../shared/contract';
import { EDIT_STEP_ID_PREFIX } from '../../shared/contract';
import { assertNever } from '../../shared/assert';
import { SPLIT_BOUNDARY_KEY } from '../../pipeline/export/trajectory';
import { callPoint, describeCalls, toPixels, type ScreenSize } from './describe-calls';

/** Options of {@link applyEdits}. */
export type ApplyEditsOptions = {
  /** Screen size in px: needed to write AgentNet descriptions and coordinates of edited steps
   * (without it edited steps get no description). */
  screen?: ScreenSize;
};

/** The trim window (recording clock, ms; null = open). */
export type TrimWindow = { startMs: number | null; endMs: number | null };

/** The steps after the edit log. */
export type AppliedEdits = {
  /** Steps in order after every edit and the trim; `index` = position. */
  steps: Step[];
  /** Marks of the resulting steps. */
  marks: Map<string, StepMark>;
  trim: TrimWindow;
  /** Ids of resulting steps that an edit changed or created. */
  editedIds: Set<string>;
  /** Active edits that could not be applied. */
  skipped: SkippedEdit[];
  /** Steps left out by the trim. */
  trimmedOut: number;
};

type State = {
  steps: Step[];
  marks: Map<string, StepMark>;
  trim: TrimWindow;
  editedIds: Set<string>;
  /** Steps whose label a relabel edit set (a split keeps the reviewer's words). */
  relabelled: Set<string>;
  screen: ScreenSize | undefined;
};

class Skip extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

function skip(code: string, message: string): never {
  throw new Skip(code, message);
}

function find(state: State, stepId: string): number {
  const i = state.steps.findIndex((s) => s.id === stepId);
  if (i < 0) {
    return skip('STEP_MISSING', `step ${stepId} does not exist (any more)`);
  }
  return i;
}

function at(state: State, i: number): Step {
  const step = state.steps[i];
  if (!step) {
    return skip('STEP_MISSING', `no step at position ${i}`);
  }
  return step;
}

// ---- calls ----------------------------------------------------------------------------------

function kwargs(call: ActionCall): Record<string, PyValue> {
  return Array.isArray(call.args) ? {} : call.args;
}

function writeText(call: ActionCall): string | null {
  const m = kwargs(call).message;
  return call.name === 'write' && typeof m === 'string' ? m : null;
}

function isPlainWrite(call: ActionCall): boolean {
  return writeText(call) !== null && Object.keys(kwargs(call)).length === 1;
}

function clicksOf(call: ActionCall): number {
  const c = kwargs(call).clicks;
  return c && typeof c === 'object' && !Array.isArray(c) && 'int' in c ? c.int : 0;
}

/** `[moveTo?, scroll | hscroll …]`: a step that only scrolls. */
function isScrollOnly(calls: readonly ActionCall[]): boolean {
  const rest = calls[0]?.name === 'moveTo' ? calls.slice(1) : calls;
  return rest.length > 0 && rest.every((c) => c.name === 'scroll' || c.name === 'hscroll');
}

/** Joined calls of two merged steps: adjacent plain writes become one, two scrolls add up. */
export function mergeCalls(a: readonly ActionCall[], b: readonly ActionCall[]): ActionCall[] {
  if (isScrollOnly(a) && isScrollOnly(b)) {
    const all = [...a, ...b];
    const dx = all.filter((c) => c.name === 'hscroll').reduce((n, c) => n + clicksOf(c), 0);
    const dy = all.filter((c) => c.name === 'scroll').reduce((n, c) => n + clicksOf(c), 0);
    if (dx !== 0 || dy !== 0) {
      // the order of OpenCUA's trace conversion: moveTo, hscroll, scroll
      return [
        ...(a[0]?.name === 'moveTo' ? [a[0]] : []),
        ...(dx !== 0 ? [{ name: 'hscroll' as const, args: { clicks: { int: dx } } }] : []),
        ...(dy !== 0 ? [{ name: 'scroll' as const, args: { clicks: { int: dy } } }] : []),
      ];
    }
  }
  const out: ActionCall[] = [];
  for (const call of [...a, ...b]) {
    const last = out[out.length - 1];
    if (last && isPlainWrite(last) && isPlainWrite(call)) {
      out[out.length - 1] = {
        name: 'write',
        args: { message: (writeText(last) ?? '') + (writeText(call) ?? '') },
      };
    } else {
      out.push(call);
    }
  }
  return out;
}

/** The typed text of a step: its write messages joined (null when it has none). */
export function typedTextOf(calls: readonly ActionCall[]): string | null {
  const texts = calls.map(writeText).filter((t): t is string => t !== null);
  return texts.length ? texts.join('') : null;
}

// ---- step building --------------------------------------------------------------------------

const POINTER_CALLS: ReadonlySet<string> = new Set([
  'click',
  'doubleClick',
  'tripleClick',
  'rightClick',
  'middleClick',
  'dragTo',
  'moveTo',
]);

/** Wheel notches: dy > 0 = up, dx > 0 = right. */
type ScrollTotals = { dx: number; dy: number };

function scrollTotals(calls: readonly ActionCall[]): ScrollTotals {
  let dx = 0;
  let dy = 0;
  for (const c of calls) {
    if (c.name === 'hscroll') {
      dx += clicksOf(c);
    } else if (c.name === 'scroll') {
      dy += clicksOf(c);
    }
  }
  return { dx, dy };
}

/** The notches the step's raw wheel events add up to: its calls until an edit changed them
 * (then carried in `extra.rawScroll`). */
function rawScrollOf(step: Step): ScrollTotals {
  const raw = step.extra.rawScroll as Partial<ScrollTotals> | undefined;
  return typeof raw?.dx === 'number' && typeof raw.dy === 'number'
    ? { dx: raw.dx, dy: raw.dy }
    : scrollTotals(step.calls);
}

/**
 * A step whose calls an edit set: kind, AgentNet description and coordinate follow the calls;
 * the imported AgentNet rows (which describe the old action) are dropped from `extra`. The
 * exporter writes a scroll row's trace from the raw wheel events and OpenCUA converts that
 * trace, so scroll calls that disagree with `rawScroll` get no description.
 */
function withCalls(
  base: Step,
  calls: ActionCall[],
  state: State,
  provenance: { op: StepEdit['op']; editId: number; from: string[] },
  rawScroll: ScrollTotals,
): Step {
  const screen = state.screen ?? { width: 0, height: 0 };
  let described = describeCalls(calls, screen);
  const totals = scrollTotals(calls);
  if (
    described.agentnetAction === 'scroll' &&
    (totals.dx !== rawScroll.dx || totals.dy !== rawScroll.dy)
  ) {
    described = {
      description: '',
      agentnetAction: '',
      coordinate: described.coordinate,
      reason:
        `the recorded wheel ticks add up to dx=${rawScroll.dx}, dy=${rawScroll.dy} but the ` +
        `calls to dx=${totals.dx}, dy=${totals.dy} (AgentNet rows carry the recorded ticks)`,
    };
  }
  const pointer = calls.find((c) => POINTER_CALLS.has(c.name));
  const point = pointer ? callPoint(pointer) : null;
  const button = calls.map((c) => kwargs(c).button).find((b): b is string => typeof b === 'string');
  const diagnostics = base.diagnostics.filter((d) => !d.startsWith('AGENTNET_UNREPRESENTABLE'));
  if (!described.description) {
    diagnostics.push(
      `AGENTNET_UNREPRESENTABLE: ${described.reason ?? 'no AgentNet description'}; the ` +
        'agentnet-raw export skips this step (standardized and JSONL exports keep it)',
    );
  }
  return {
    ...base,
    kind: stepKindOfCalls(calls),
    calls,
    description: described.description,
    coordinate:
      described.coordinate ?? (point && screen.width > 0 ? toPixels(point, screen) : null),
    extra: {
      edit: provenance,
      // a reviewer's split stays apart from the step before it in every export
      ...(base.extra[SPLIT_BOUNDARY_KEY] === true ? { [SPLIT_BOUNDARY_KEY]: true } : {}),
      ...(button ? { button } : {}),
      ...(rawScroll.dx !== 0 || rawScroll.dy !== 0 ? { rawScroll } : {}),
    },
    diagnostics,
  };
}

/** Time of the split point: the key-down of the first character of the second half when the
 * step's keystrokes spell its text, else proportional to the offset. */
function splitTimeMs(step: Step, at: number, length: number): { tMs: number; idx: number | null } {
  const strokes = step.extra.keystrokes;
  if (Array.isArray(strokes)) {
    const list = strokes as { text?: unknown; tMs?: unknown; idx?: unknown }[];
    const spelled = list.map((k) => (typeof k.text === 'string' ? k.text : '')).join('');
    if (spelled === typedTextOf(step.calls)) {
      let seen = 0;
      for (const k of list) {
        const n = typeof k.text === 'string' ? Array.from(k.text).length : 0;
        if (n > 0 && seen + n > at && typeof k.tMs === 'number') {
          return { tMs: k.tMs, idx: typeof k.idx === 'number' ? k.idx : null };
        }
        seen += n;
      }
    }
  }
  return { tMs: step.startMs + ((step.endMs - step.startMs) * at) / length, idx: null };
}

function insertedStep(
  edit: Extract<StepEdit, { op: 'insert' }>,
  editId: number,
  after: Step | null,
  next: Step | null,
): Step {
  const startMs = after ? after.endMs : (next?.startMs ?? 0);
  const calls: ActionCall[] =
    edit.kind === 'wait'
      ? [
          {
            name: 'wait',
            args: edit.seconds === undefined ? {} : { seconds: { float: edit.seconds } },
          },
        ]
      : [{ name: 'terminate', args: { status: edit.status ?? 'success' } }];
  return {
    id: `${EDIT_STEP_ID_PREFIX}${editId}`,
    index: 0,
    kind: edit.kind,
    description: '',
    label: edit.kind,
    calls,
    startMs,
    endMs: startMs + (edit.kind === 'wait' ? (edit.seconds ?? 0) * 1000 : 0),
    eventStartIdx: null,
    coordinate: null,
    preMove: null,
    target: null,
    extra: { edit: { op: 'insert', editId, from: [] } },
    diagnostics: [],
  };
}

// ---- ops ------------------------------------------------------------------------------------

function applyOne(state: State, stored: StoredEdit): void {
  const edit = stored.edit;
  const editId = stored.id;
  switch (edit.op) {
    case 'relabel': {
      const i = find(state, edit.stepId);
      state.steps[i] = { ...at(state, i), label: edit.label };
      state.editedIds.add(edit.stepId);
      state.relabelled.add(edit.stepId);
      return;
    }
    case 'set-action': {
      const i = find(state, edit.stepId);
      const step = at(state, i);
      state.steps[i] = withCalls(
        step,
        edit.calls,
        state,
        { op: edit.op, editId, from: [edit.stepId] },
        rawScrollOf(step),
      );
      state.editedIds.add(edit.stepId);
      return;
    }
    case 'delete': {
      const i = find(state, edit.stepId);
      state.steps.splice(i, 1);
      return;
    }
    case 'merge': {
      const [aId, bId] = edit.stepIds;
      const i = find(state, aId);
      const j = find(state, bId);
      if (j !== i + 1) {
        return skip('NOT_ADJACENT', `step ${bId} does not directly follow step ${aId}`);
      }
      const a = at(state, i);
      const b = at(state, j);
      const labels = [a.label, b.label].filter(
        (l, k, all) => l.trim() !== '' && all.indexOf(l) === k,
      );
      const merged = withCalls(
        {
          ...a,
          label: labels.join(' '),
          startMs: Math.min(a.startMs, b.startMs),
          endMs: Math.max(a.endMs, b.endMs),
          diagnostics: [...new Set([...a.diagnostics, ...b.diagnostics])],
        },
        mergeCalls(a.calls, b.calls),
        state,
        { op: edit.op, editId, from: [aId, bId] },
        { dx: rawScrollOf(a).dx + rawScrollOf(b).dx, dy: rawScrollOf(a).dy + rawScrollOf(b).dy },
      );
      state.steps.splice(i, 2, merged);
      state.editedIds.add(aId);
      return;
    }
    case 'split': {
      const i = find(state, edit.stepId);
      const step = at(state, i);
      const text = typedTextOf(step.calls);
      const length = text === null ? 0 : Array.from(text).length;
      if (text === null) {
        return skip('NOT_SPLITTABLE', `step ${edit.stepId} types no text (no write call)`);
      }
      if (edit.at <= 0 || edit.at >= length) {
        return skip(
          'NOT_SPLITTABLE',
          `offset ${edit.at} is outside 1..${length - 1} of step ${edit.stepId}'s ${length} characters`,
        );
      }
      const [firstCalls, secondCalls] = splitCalls(step.calls, edit.at);
      const cut = splitTimeMs(step, edit.at, length);
      const provenance = { op: edit.op, editId, from: [edit.stepId] };
      // typing steps have no wheel ticks
      const noScroll = { dx: 0, dy: 0 };
      // each half's label names its own text, unless a reviewer wrote the label
      const isRelabelled = state.relabelled.has(edit.stepId);
      const [firstLabel, secondLabel] = isRelabelled
        ? [step.label, step.label]
        : splitStepLabels(step.label, writtenTextOf(step.calls), [
            writtenTextOf(firstCalls),
            writtenTextOf(secondCalls),
          ]);
      const first = withCalls(
        { ...step, label: firstLabel, endMs: cut.tMs },
        firstCalls,
        state,
        provenance,
        noScroll,
      );
      const second = withCalls(
        {
          ...step,
          id: `${EDIT_STEP_ID_PREFIX}${editId}`,
          label: secondLabel,
          startMs: cut.tMs,
          eventStartIdx: cut.idx,
          preMove: null,
          coordinate: null,
          // the reviewer's boundary: the exports keep the halves apart (issue 26 item 15)
          extra: { ...step.extra, [SPLIT_BOUNDARY_KEY]: true },
        },
        secondCalls,
        state,
        provenance,
        noScroll,
      );
      state.steps.splice(i, 1, first, second);
      state.editedIds.add(first.id).add(second.id);
      if (isRelabelled) {
        state.relabelled.add(second.id);
      }
      return;
    }
    case 'insert': {
      const i = edit.afterStepId === null ? -1 : find(state, edit.afterStepId);
      if (edit.kind === 'terminate') {
        if (state.steps.some((s) => s.kind === 'terminate')) {
          return skip('TERMINATE_EXISTS', 'the recording already ends with a terminate step');
        }
        if (i !== state.steps.length - 1) {
          return skip('TERMINATE_NOT_LAST', 'a terminate step can only follow the last step');
        }
      }
      const step = insertedStep(edit, editId, state.steps[i] ?? null, state.steps[i + 1] ?? null);
      state.steps.splice(i + 1, 0, step);
      state.editedIds.add(step.id);
      return;
    }
    case 'trim':
      state.trim = { startMs: edit.startMs, endMs: edit.endMs };
      return;
    case 'mark': {
      find(state, edit.stepId);
      if (edit.mark === null) {
        state.marks.delete(edit.stepId);
      } else {
        state.marks.set(edit.stepId, edit.mark);
      }
      return;
    }
    case 'redact-box':
      // pixels only: applied to frames and videos by the exports (services/privacy/redact-media.ts)
      return;
    case 'pii-accept':
      // a review decision read by the export/upload policy (services/privacy/policy.ts)
      return;
    case 'redact-text':
      // applied to what leaves by the exports and the upload (services/privacy/text-redaction.ts)
      return;
    default:
      return assertNever(edit, 'edit');
  }
}

/** True when a step lies inside the trim window (by its start). */
export function isInsideTrim(step: Pick<Step, 'startMs'>, trim: TrimWindow): boolean {
  return (
    (trim.startMs === null || step.startMs >= trim.startMs) &&
    (trim.endMs === null || step.startMs <= trim.endMs)
  );
}

// Applies the active edits of `edits` (log order) over `baseSteps`.
export function applyEdits(
  baseSteps: readonly Step[],
  edits: readonly StoredEdit[],
  options: ApplyEditsOptions = {},
): AppliedEdits {
  const state: State = {
    steps: [...baseSteps],
    marks: new Map(),
    trim: { startMs: null, endMs: null },
    editedIds: new Set(),
    relabelled: new Set(),
    screen: options.screen,
  };
  const skipped: SkippedEdit[] = [];
  for (const stored of [...edits].sort((a, b) => a.id - b.id)) {
    if (stored.state !== 'active') {
      continue;
    }
    try {
      applyOne(state, stored);
    } catch (e) {
      if (!(e instanceof Skip)) {
        throw e;
      }
      skipped.push({ editId: stored.id, op: stored.edit.op, code: e.code, message: e.message });
    }
  }
  const kept = state.steps.filter((s) => isInsideTrim(s, state.trim));
  const steps = kept.map((s, index) => (s.index === index ? s : { ...s, index }));
  const ids = new Set(steps.map((s) => s.id));
  return {
    steps,
    marks: new Map([...state.marks].filter(([id]) => ids.has(id))),
    trim: state.trim,
    editedIds: new Set([...state.editedIds].filter((id) => ids.has(id))),
    skipped,
    trimmedOut: state.steps.length - kept.length,
  };
}
