// The action reducer: raw input events → steps, pure and deterministic.
// docs/action-reduction.md §C
import type { RawEvent } from '../../shared/domain/raw-event';
import type { Step } from '../../shared/domain/step';
import { buildStep } from './build-step';
import type { OrderedStep } from './build-step';
import { assertReduceContext, REDUCER_VERSION, resolveConstants } from './constants';
import type { Draft } from './drafts';
import { ReductionMachine } from './machine';
import { assignMoves } from './moves';
import { prepareEvents } from './prepare';
import type {
  ReduceConstants,
  ReduceContext,
  ReduceDiagnostic,
  ReduceResult,
  UnownedEvent,
} from './types';

function minOf(values: readonly number[]): number {
  let min = Infinity;
  for (const value of values) {
    min = value < min ? value : min;
  }
  return min;
}

function byStart(a: OrderedStep, b: OrderedStep): number {
  return a.startS - b.startS || (a.step.eventStartIdx ?? 0) - (b.step.eventStartIdx ?? 0);
}

function byIdx(a: ReduceDiagnostic, b: ReduceDiagnostic): number {
  return (
    (a.idx ?? Infinity) - (b.idx ?? Infinity) || (a.code < b.code ? -1 : a.code > b.code ? 1 : 0)
  );
}

// Reduces raw events to steps: every event ends up owned by exactly one step or in `unowned`.
export function reduce(
  events: readonly RawEvent[],
  context: ReduceContext,
  options?: Partial<ReduceConstants>,
): ReduceResult {
  assertReduceContext(context);
  const constants = resolveConstants(context, options);
  const prepared = prepareEvents(events, context);
  const { drafts, ownerOf } = new ReductionMachine(prepared, context, constants).run();
  const live = drafts.filter((draft) => draft.mergedInto === null && draft.main.length > 0);
  const anchorOf = new Map<Draft, number>(live.map((draft) => [draft, minOf(draft.main)]));
  const moves = assignMoves(prepared, drafts, ownerOf, anchorOf);

  const unordered = live.map((draft) =>
    buildStep(draft, moves.get(draft), prepared, context.screen, context.elements),
  );
  unordered.sort(byStart);
  const steps: Step[] = unordered.map(({ step }, index) => {
    step.index = index;
    return step;
  });

  const unowned: UnownedEvent[] = [];
  for (let pos = 0; pos < prepared.unowned.length; pos += 1) {
    const reason = prepared.unowned.get(pos);
    const event = prepared.events[pos];
    if (reason !== null && event !== undefined) {
      unowned.push({ idx: event.idx, reason });
    }
  }
  const diagnostics: ReduceDiagnostic[] = [...prepared.diagnostics];
  for (const draft of live) {
    for (const { code, pos, detail } of draft.diagnostics) {
      const idx = prepared.events[pos]?.idx;
      diagnostics.push(idx === undefined ? { code, detail } : { code, idx, detail });
    }
  }
  diagnostics.sort(byIdx);
  return { steps, unowned, diagnostics, reducerVersion: REDUCER_VERSION, constants };
}
