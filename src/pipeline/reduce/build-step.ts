// Drafts + move ownership → Step objects (docs/action-reduction.md §C.7, §C.9, §C.10).
import type { RawEvent } from '../../shared/domain/raw-event';
import type { PreMove, Step } from '../../shared/domain/step';
import type { ScreenSize, ScrollTick } from '../code';
import type { Described } from './describe';
import {
  describeHotkey,
  describePointer,
  describeRun,
  describeScroll,
  describeTap,
  callsLabel,
  pointerLabel,
  runLabel,
} from './describe';
import type { AgentNetTarget, ElementContext } from '../agentnet/accessibility';
import {
  elementItself,
  elementTarget,
  lastElementBefore,
  matchElement,
} from '../agentnet/accessibility';
import type { Draft, StrokeDraft } from './drafts';
import { stampMs } from './drafts';
import type { DraftMoves } from './moves';
import type { PreparedEvents } from './prepare';
import type {
  AgentNetRowFields,
  KeystrokeRecord,
  PathPoint,
  ReducedStepExtra,
  ScrollTickRecord,
} from './types';

/** A built step with its sort key (`step.index` is set once all steps are sorted). */
export type OrderedStep = {
  step: Step;
  /** Start in seconds (sort key). */
  startS: number;
};

function ascending(positions: readonly number[]): number[] {
  return [...positions].sort((a, b) => a - b);
}

function eventAt(prepared: PreparedEvents, pos: number): RawEvent {
  const event = prepared.events[pos];
  if (event === undefined) {
    throw new Error(`Assertion failed: no event at position ${pos}`);
  }
  return event;
}

function idxList(prepared: PreparedEvents, positions: readonly number[]): number[] {
  const list: number[] = [];
  for (const pos of positions) {
    list.push(eventAt(prepared, pos).idx);
  }
  return list;
}

function pathPoints(prepared: PreparedEvents, positions: readonly number[]): PathPoint[] {
  return positions.map((pos) => {
    const event = eventAt(prepared, pos);
    return { idx: event.idx, x: event.x ?? 0, y: event.y ?? 0, tMs: event.tMs };
  });
}

function keystrokes(prepared: PreparedEvents, strokes: readonly StrokeDraft[]): KeystrokeRecord[] {
  return strokes.map((stroke) => ({
    idx: eventAt(prepared, stroke.pos).idx,
    key: stroke.key,
    rawKey: stroke.rawKey,
    text: stroke.text,
    isRepeat: stroke.isRepeat,
    tMs: eventAt(prepared, stroke.pos).tMs,
  }));
}

function setKeyFields(
  agentnet: AgentNetRowFields,
  prepared: PreparedEvents,
  strokes: readonly StrokeDraft[],
): void {
  agentnet.key_names = strokes.map((stroke) => stroke.rawKey);
  agentnet.time_trace = strokes.map((stroke) => prepared.tS[stroke.pos] ?? 0);
}

/** Kind-specific results; the kind fields are written into `extra` and `agentnet` directly. */
type KindParts = {
  described: Described;
  coordinate: { x: number; y: number } | null;
};

// Fills the kind-specific fields (objects are extended in place: object spread is slow in V8).
function fillKindParts(
  draft: Draft,
  prepared: PreparedEvents,
  screen: ScreenSize,
  extra: ReducedStepExtra,
  agentnet: AgentNetRowFields,
): KindParts {
  switch (draft.type) {
    case 'pointer': {
      const [first] = draft.presses;
      const coordinate = { x: first?.x ?? 0, y: first?.y ?? 0 };
      const hold = ascending(draft.hold);
      const described = describePointer(draft, screen);
      extra.button = draft.button;
      extra.clickCount = draft.presses.length;
      extra.longPress = draft.shape === 'long';
      extra.modifiers = [...draft.modifiers];
      extra.presses = draft.presses.map((press) => ({
        downIdx: eventAt(prepared, press.downPos).idx,
        upIdx: press.upPos === null ? null : eventAt(prepared, press.upPos).idx,
        x: press.x,
        y: press.y,
        upX: press.upX,
        upY: press.upY,
        startMs: stampMs(press.start),
        endMs: stampMs(press.end),
      }));
      extra.dragPath = pathPoints(prepared, hold);
      agentnet.action = described.agentnetAction;
      agentnet.click_type = draft.shape === 'drag' ? 1 : draft.presses.length;
      agentnet.button = draft.button;
      agentnet.coordinate = coordinate;
      agentnet.time_trace = draft.presses.map((press) => ({
        start_time: press.start.s,
        end_time: press.end.s,
      }));
      if (draft.shape === 'drag' && first !== undefined) {
        extra.dragTo = { x: first.upX, y: first.upY };
        agentnet.drag_trace = hold.map((pos) => {
          const event = eventAt(prepared, pos);
          return [event.x ?? 0, event.y ?? 0];
        });
        agentnet.drag_time_trace = hold.map((pos) => prepared.tS[pos] ?? 0);
      }
      return { described, coordinate };
    }
    case 'scroll': {
      const ticks: ScrollTickRecord[] = draft.ticks.map((pos) => {
        const event = eventAt(prepared, pos);
        return {
          idx: event.idx,
          x: event.x ?? 0,
          y: event.y ?? 0,
          dx: event.dx ?? 0,
          dy: event.dy ?? 0,
          tMs: event.tMs,
        };
      });
      const trace: ScrollTick[] = ticks.map(({ x, y, dx, dy }) => ({ x, y, dx, dy }));
      const [first] = ticks;
      extra.ticks = ticks;
      extra.modifiers = [...draft.modifiers];
      agentnet.trace = trace;
      agentnet.time_trace = draft.ticks.map((pos) => prepared.tS[pos] ?? 0);
      return {
        described: describeScroll(draft, trace, screen),
        coordinate: first === undefined ? null : { x: first.x, y: first.y },
      };
    }
    case 'run':
      extra.keystrokes = keystrokes(prepared, draft.strokes);
      setKeyFields(agentnet, prepared, draft.strokes);
      return { described: describeRun(draft, screen), coordinate: null };
    case 'hotkey':
      extra.keys = [...draft.keys];
      extra.modifiers = [...draft.modifiers];
      extra.keystrokes = keystrokes(prepared, draft.strokes);
      setKeyFields(agentnet, prepared, draft.strokes);
      agentnet.key_name = draft.keys.join('+');
      return { described: describeHotkey(draft, screen), coordinate: null };
    case 'tap':
      extra.keystrokes = keystrokes(prepared, draft.strokes);
      setKeyFields(agentnet, prepared, draft.strokes);
      return { described: describeTap(draft, screen), coordinate: null };
  }
}

function mergeAscending(a: readonly number[], b: readonly number[]): number[] {
  return a.length === 0 ? [...b] : b.length === 0 ? ascending(a) : ascending([...a, ...b]);
}

// Fills the pre-move fields of a step that has moves before its first main event.
function fillPreMove(
  positions: readonly number[],
  prepared: PreparedEvents,
  extra: ReducedStepExtra,
  agentnet: AgentNetRowFields,
): PreMove | null {
  const count = positions.length;
  const firstPos = positions[0];
  const lastPos = positions[count - 1];
  if (firstPos === undefined || lastPos === undefined) {
    return null;
  }
  const first = eventAt(prepared, firstPos);
  const idx: number[] = [];
  const trace: [number, number][] = [];
  const timeTrace: number[] = [];
  for (const pos of positions) {
    const event = eventAt(prepared, pos);
    idx.push(event.idx);
    trace.push([event.x ?? 0, event.y ?? 0]);
    timeTrace.push(prepared.tS[pos] ?? 0);
  }
  extra.preMoveIdx = idx;
  agentnet.pre_move = {
    event_start_idx: first.idx,
    start_time: prepared.tS[firstPos] ?? 0,
    end_time: prepared.tS[lastPos] ?? 0,
    trace,
    time_trace: timeTrace,
  };
  return {
    startMs: first.tMs,
    endMs: eventAt(prepared, lastPos).tMs,
    eventStartIdx: first.idx,
    count,
  };
}

/** A step's element target and the label naming it (both null: keep the type word). */
type ElementLabel = { target: AgentNetTarget | null; label: string | null };

// The element a pointer step pressed on, or the text field a keyboard run typed into.
function labelFromElements(
  draft: Draft,
  described: Described,
  prepared: PreparedEvents,
  elements: readonly ElementContext[],
): ElementLabel {
  if (draft.type === 'pointer') {
    const [first] = draft.presses;
    if (first === undefined) {
      return { target: null, label: null };
    }
    const tMs = eventAt(prepared, first.downPos).tMs;
    const record = matchElement(elements, { tMs, x: first.x, y: first.y });
    const target = record ? elementTarget(record) : null;
    return { target, label: target ? pointerLabel(draft, target) : null };
  }
  if (draft.type === 'run') {
    const [stroke] = draft.strokes;
    const record =
      stroke === undefined ? null : lastElementBefore(elements, eventAt(prepared, stroke.pos).tMs);
    const element = record ? elementItself(record) : null;
    return { target: null, label: element ? runLabel(described.calls, element) : null };
  }
  return { target: null, label: null };
}

// Builds the step of one surviving draft (`index` is set by the caller after ordering).
export function buildStep(
  draft: Draft,
  moves: DraftMoves | undefined,
  prepared: PreparedEvents,
  screen: ScreenSize,
  elements?: readonly ElementContext[],
): OrderedStep {
  const main = ascending(draft.main);
  const path = mergeAscending(draft.hold, moves?.path ?? []);
  const preMovePositions = moves?.preMove ?? [];
  const firstMain = main[0];
  const lastMain = main[main.length - 1];
  if (firstMain === undefined || lastMain === undefined) {
    throw new Error('Assertion failed: a step owns at least one non-move event');
  }
  const eventStartIdx = eventAt(prepared, firstMain).idx;
  const firstOwned = Math.min(firstMain, preMovePositions[0] ?? Infinity, path[0] ?? Infinity);
  const lastOwned = Math.max(lastMain, path[path.length - 1] ?? -Infinity);
  const agentnet: AgentNetRowFields = { action: '' };
  const extra: ReducedStepExtra = {
    ownedIdx: [eventAt(prepared, firstOwned).idx, eventAt(prepared, lastOwned).idx],
    mainIdx: idxList(prepared, main),
    pathIdx: idxList(prepared, path),
    agentnet,
  };
  const { described, coordinate } = fillKindParts(draft, prepared, screen, extra, agentnet);
  agentnet.action = described.agentnetAction;
  const preMove = fillPreMove(preMovePositions, prepared, extra, agentnet);
  const named = elements ? labelFromElements(draft, described, prepared, elements) : null;
  const step: Step = {
    id: `r:${eventStartIdx}`,
    index: 0,
    kind: described.kind,
    description: described.description,
    // recorded steps that name no element say what they do ("Press ctrl+c", "Scroll down 3
    // times"); AgentNet imports and the goldens (no elements) keep the type words
    label:
      named?.label ??
      (elements ? callsLabel(described.kind, described.calls) : null) ??
      described.agentnetAction,
    calls: described.calls,
    startMs: stampMs(draft.start),
    endMs: stampMs(draft.end),
    eventStartIdx,
    coordinate,
    preMove,
    target: named?.target ?? null,
    extra,
    diagnostics: [...new Set(draft.diagnostics.map((diagnostic) => diagnostic.code))],
  };
  return { step, startS: draft.start.s };
}
