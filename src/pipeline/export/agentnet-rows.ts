// Steps → line-aligned `reduced_events_complete.jsonl` / `reduced_events_vis.jsonl` rows
// (docs/agentnet-raw-format.md §10, §11, §13; docs/keyframes.md §7).
import { msToSeconds } from '../../shared/clock';
import type { PreMove, RawEvent, Step } from '../../shared/domain';
import type { AgentNetRowFields } from '../reduce';
import {
  elementTarget,
  matchElement,
  type AgentNetTarget,
  type ElementContext,
} from '../agentnet/accessibility';

/** One pair of rows; `null` when the step cannot be represented (with the reason). */
export type AgentNetRowPair =
  { complete: Record<string, unknown>; vis: Record<string, unknown> } | { skipped: string };

/** What row building needs besides the step. */
export type RowContext = {
  /** Raw events by idx (for pre-move, drag and scroll traces, key names). */
  eventsByIdx: ReadonlyMap<number, RawEvent>;
  /** Raw idx → exported `event_idx`. */
  rowOfIdx: ReadonlyMap<number, number>;
  /** Video frame 0 on the clock, seconds: pre-move points earlier than this are dropped. */
  videoStartS: number;
  /** Row id to write. */
  id: number;
  /** Element records and window trees for targets and `axtree` (absent: none). */
  accessibility?: RowAccessibility;
  /** True when a trim left events out: imported rows' event indices are renumbered. */
  isTrimmed?: boolean;
};

/** The accessibility data rows draw on. */
export type RowAccessibility = {
  /** Element records, time-sorted. */
  elements: readonly ElementContext[];
  /** The window tree (row form, AgentNet shape) attached to a step starting at `startS`. */
  windowTreeAt: (startS: number) => unknown;
};

type AgentNetExtra = { complete?: Record<string, unknown>; vis?: Record<string, unknown> };

function importedRows(step: Step): AgentNetExtra | null {
  const a = step.extra.agentnet as AgentNetExtra | undefined;
  return a?.complete && a.vis ? a : null;
}

// The reducer's row fields. Only steps whose action no edit changed have them: an edit of the
// action replaces `extra` (a relabel keeps it), and imported steps carry their rows instead.
function reducedFields(step: Step): AgentNetRowFields | null {
  const fields = step.extra.agentnet as Partial<AgentNetRowFields> | undefined;
  return typeof fields?.action === 'string' ? (fields as AgentNetRowFields) : null;
}

function ownedRange(step: Step): [number, number] | null {
  const r = step.extra.ownedIdx;
  return Array.isArray(r) && typeof r[0] === 'number' && typeof r[1] === 'number'
    ? [r[0], r[1]]
    : null;
}

function eventsIn(step: Step, ctx: RowContext, kinds: RawEvent['kind'][]): RawEvent[] {
  const range = ownedRange(step);
  const out: RawEvent[] = [];
  for (const e of ctx.eventsByIdx.values()) {
    const inside = range
      ? e.idx >= range[0] && e.idx <= range[1]
      : e.tMs >= step.startMs && e.tMs <= step.endMs;
    if (inside && kinds.includes(e.kind)) {
      out.push(e);
    }
  }
  return out.sort((a, b) => a.idx - b.idx);
}

// Raw idx of the pre-move's moves: the reducer lists them, as events owned by no step (a lone
// modifier tap, the recorder's own hotkeys) can lie between them; edited steps keep only the
// first idx and the count.
function preMoveIdx(step: Step, preMove: PreMove): number[] {
  const listed = step.extra.preMoveIdx;
  return Array.isArray(listed)
    ? (listed as number[])
    : Array.from({ length: preMove.count }, (_, i) => preMove.eventStartIdx + i);
}

function preMoveRow(step: Step, ctx: RowContext): Record<string, unknown> | null {
  if (!step.preMove) {
    return null;
  }
  const moves: RawEvent[] = [];
  for (const idx of preMoveIdx(step, step.preMove)) {
    const e = ctx.eventsByIdx.get(idx);
    if (e && e.kind === 'move' && msToSeconds(e.tMs) >= ctx.videoStartS) {
      moves.push(e);
    }
  }
  const first = moves[0];
  const last = moves[moves.length - 1];
  if (!first || !last) {
    return null;
  }
  return {
    action: 'move',
    event_start_idx: ctx.rowOfIdx.get(first.idx) ?? first.idx,
    complete: true,
    start_time: msToSeconds(first.tMs),
    end_time: msToSeconds(last.tMs),
    vis: false,
    exception: false,
    depth: 0,
    trace: moves.map((m) => [m.x, m.y]),
    time_trace: moves.map((m) => msToSeconds(m.tMs)),
  };
}

const CLICK_TYPE: Partial<Record<Step['kind'], number>> = {
  click: 1,
  doubleClick: 2,
  tripleClick: 3,
  rightClick: 1,
  middleClick: 1,
};

function buttonOf(step: Step): string {
  if (step.kind === 'rightClick') {
    return 'right';
  }
  if (step.kind === 'middleClick') {
    return 'middle';
  }
  return typeof step.extra.button === 'string' ? step.extra.button : 'left';
}

const POINTER_KINDS: ReadonlySet<Step['kind']> = new Set([
  'click',
  'doubleClick',
  'tripleClick',
  'rightClick',
  'middleClick',
  'dragTo',
]);

function isAgentNetTarget(v: unknown): v is AgentNetTarget {
  const t = v as Partial<AgentNetTarget> | null;
  return !!t && typeof t.control_type === 'string' && typeof t.title === 'string';
}

// The step's target: the one the reducer stored, else the element recorded at its press
// (steps reduced before targets were stored, edited steps); null when there is none.
function targetOf(step: Step, ctx: RowContext): AgentNetTarget | null {
  if (isAgentNetTarget(step.target)) {
    return { control_type: step.target.control_type, title: step.target.title, mark: true };
  }
  const elements = ctx.accessibility?.elements;
  if (!elements?.length || !POINTER_KINDS.has(step.kind) || !step.coordinate) {
    return null;
  }
  const record = matchElement(elements, { tMs: step.startMs, ...step.coordinate });
  return record ? elementTarget(record) : null;
}

/** Target and window tree of a rebuilt step (imported steps carry their own). */
type StepAccessibility = { target: AgentNetTarget | null; axtree: unknown };

function stepAccessibility(step: Step, ctx: RowContext): StepAccessibility {
  return {
    target: targetOf(step, ctx),
    axtree: ctx.accessibility?.windowTreeAt(msToSeconds(step.startMs)) ?? null,
  };
}

function visRow(
  step: Step,
  id: number,
  description: string,
  ax: StepAccessibility,
): Record<string, unknown> {
  const stored = step.target && Object.keys(step.target).length ? step.target : null;
  return {
    action: step.label,
    axtree: ax.axtree,
    depth: 0,
    description,
    end_time: msToSeconds(step.endMs),
    id,
    start_time: msToSeconds(step.startMs),
    target: ax.target ?? stored ?? { mark: false },
  };
}

// The class fields of a reduced step's complete row (docs/agentnet-raw-format.md §10), keyed and
// ordered like the rebuilt rows below; press rows also keep the chord key's key_names/time_trace.
function reducedClassFields(fields: AgentNetRowFields): Record<string, unknown> {
  switch (fields.action) {
    case 'scroll':
      return { trace: fields.trace, time_trace: fields.time_trace };
    case 'type':
      return { key_names: fields.key_names, time_trace: fields.time_trace };
    case 'press':
      return {
        key_name: fields.key_name,
        pressed: true,
        key_names: fields.key_names,
        time_trace: fields.time_trace,
      };
    default: {
      // click, mouse_press, drag
      const { coordinate } = fields;
      return {
        click_type: fields.click_type,
        button: fields.button,
        pressed: true,
        coordinate,
        coordinates: coordinate ? [coordinate] : [],
        time_trace: fields.time_trace,
        ...(fields.drag_trace
          ? { drag_trace: fields.drag_trace, drag_time_trace: fields.drag_time_trace }
          : {}),
      };
    }
  }
}

// The row pair of a representable step, given its complete row up to the class fields.
function rowPair(
  step: Step,
  ctx: RowContext,
  complete: Record<string, unknown>,
  ax: StepAccessibility,
): AgentNetRowPair {
  complete.id = ctx.id;
  const pre = preMoveRow(step, ctx);
  if (pre) {
    complete.pre_move = pre;
  }
  return { complete, vis: visRow(step, ctx.id, step.description, ax) };
}

// Imported rows name raw `event_idx` values; after a trim dropped events they are renumbered
// to the exported rows (pre-move and children too), and pre-move points before the cut go.
function renumberedImported(
  row: Record<string, unknown>,
  ctx: RowContext,
): Record<string, unknown> {
  const out: Record<string, unknown> = { ...row };
  const idx = out.event_start_idx;
  if (typeof idx === 'number') {
    out.event_start_idx = ctx.rowOfIdx.get(idx) ?? idx;
  }
  const pre = out.pre_move as Record<string, unknown> | undefined;
  if (pre && Array.isArray(pre.time_trace) && Array.isArray(pre.trace)) {
    const times = pre.time_trace as number[];
    const first = times.findIndex((t) => t >= ctx.videoStartS);
    if (first === -1) {
      delete out.pre_move;
    } else {
      const shift = typeof pre.event_start_idx === 'number' ? pre.event_start_idx + first : null;
      out.pre_move = {
        ...pre,
        event_start_idx: shift === null ? pre.event_start_idx : (ctx.rowOfIdx.get(shift) ?? shift),
        start_time: times[first],
        trace: (pre.trace as unknown[]).slice(first),
        time_trace: times.slice(first),
      };
    }
  }
  if (Array.isArray(out.children)) {
    out.children = (out.children as Record<string, unknown>[]).map((c) =>
      renumberedImported(c, ctx),
    );
  }
  return out;
}

/** Builds the complete/vis rows of one step (imported rows are re-emitted with the current label). */
export function agentNetRowsOf(step: Step, ctx: RowContext): AgentNetRowPair {
  const imported = importedRows(step);
  if (imported?.complete && imported.vis) {
    // copies: the exporter fills in missing fields and must not change the caller's steps
    const complete = ctx.isTrimmed
      ? renumberedImported(imported.complete, ctx)
      : { ...imported.complete };
    return { complete, vis: { ...imported.vis, action: step.label } };
  }
  if (!step.description) {
    return { skipped: `AGENTNET_UNREPRESENTABLE_STEP: ${step.kind} has no AgentNet description` };
  }
  const startS = msToSeconds(step.startMs);
  const endS = msToSeconds(step.endMs);
  const firstIdx = step.eventStartIdx ?? -1;
  const ax = stepAccessibility(step, ctx);
  const common: Record<string, unknown> = {
    event_start_idx: ctx.rowOfIdx.get(firstIdx) ?? firstIdx,
    complete: true,
    start_time: startS,
    end_time: endS,
    description: step.description,
    vis: true,
    exception: false,
    depth: 0,
  };
  // AgentNet's order: …, depth, target, axtree, then the class fields (docs/agentnet-raw-format.md §10); both only
  // where there is one
  if (ax.target) {
    common.target = ax.target;
  }
  if (ax.axtree !== null) {
    common.axtree = ax.axtree;
  }
  // The reducer's fields are exact; a rebuild from the events in the step's range is not (the
  // range also holds the pre-move, modifier keys and events no step owns, and it lists keys in
  // press order), so only steps without them (edited actions) are rebuilt.
  const reduced = reducedFields(step);
  if (reduced) {
    const classFields = reducedClassFields(reduced);
    return rowPair(step, ctx, { action: reduced.action, ...common, ...classFields }, ax);
  }
  let complete: Record<string, unknown>;
  const coordinate = step.coordinate ? { x: step.coordinate.x, y: step.coordinate.y } : null;
  switch (step.kind) {
    case 'click':
    case 'doubleClick':
    case 'tripleClick':
    case 'rightClick':
    case 'middleClick':
    case 'dragTo': {
      const isDrag = step.kind === 'dragTo';
      const isLong = step.extra.longPress === true;
      complete = {
        action: isDrag ? 'drag' : isLong ? 'mouse_press' : 'click',
        ...common,
        click_type: CLICK_TYPE[step.kind] ?? 1,
        button: buttonOf(step),
        pressed: true,
        coordinate,
        coordinates: coordinate ? [coordinate] : [],
        time_trace: [{ start_time: startS, end_time: endS }],
      };
      if (isDrag) {
        const hold = eventsIn(step, ctx, ['move']);
        complete.drag_trace = hold.map((m) => [m.x, m.y]);
        complete.drag_time_trace = hold.map((m) => msToSeconds(m.tMs));
      }
      break;
    }
    case 'scroll':
    case 'hscroll': {
      const ticks = eventsIn(step, ctx, ['wheel']);
      complete = {
        action: 'scroll',
        ...common,
        trace: ticks.map((t) => ({ x: t.x, y: t.y, dx: t.dx ?? 0, dy: t.dy ?? 0 })),
        time_trace: ticks.map((t) => msToSeconds(t.tMs)),
      };
      break;
    }
    case 'write':
    case 'press': {
      const keys = eventsIn(step, ctx, ['keydown']);
      complete = {
        action: 'type',
        ...common,
        key_names: keys.map((k) => k.key),
        time_trace: keys.map((k) => msToSeconds(k.tMs)),
      };
      break;
    }
    case 'hotkey': {
      const keys = eventsIn(step, ctx, ['keydown']);
      complete = {
        action: 'press',
        ...common,
        key_name: keys.map((k) => k.key).join('+'),
        pressed: true,
      };
      break;
    }
    default:
      return {
        skipped: `AGENTNET_UNREPRESENTABLE_STEP: ${step.kind} cannot be written as an AgentNet row`,
      };
  }
  return rowPair(step, ctx, complete, ax);
}
