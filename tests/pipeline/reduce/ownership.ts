// Ownership accounting of a reduce result: which step (or unowned reason) holds each raw idx.
import type { RawEvent } from '../../../src/shared/domain/raw-event';
import type { Step } from '../../../src/shared/domain/step';
import type { ReduceResult, ReducedStepExtra } from '../../../src/pipeline/reduce';

/** The reducer's typed view of `Step.extra`. */
export function extraOf(step: Step): ReducedStepExtra {
  return step.extra as ReducedStepExtra;
}

/** Every (idx → owners) claim of the result: step ids as `main:`/`path:`/`pre:`, or `unowned:`. */
export function ownershipClaims(result: ReduceResult): Map<number, string[]> {
  const claims = new Map<number, string[]>();
  const claim = (idx: number, who: string): void => {
    claims.set(idx, [...(claims.get(idx) ?? []), who]);
  };
  for (const step of result.steps) {
    const extra = extraOf(step);
    extra.mainIdx.forEach((idx) => claim(idx, `main:${step.id}`));
    extra.pathIdx.forEach((idx) => claim(idx, `path:${step.id}`));
    (extra.preMoveIdx ?? []).forEach((idx) => claim(idx, `pre:${step.id}`));
  }
  result.unowned.forEach(({ idx, reason }) => claim(idx, `unowned:${reason}`));
  return claims;
}

/** idx values claimed zero times or more than once (empty when the invariant of §C.0 holds). */
export function ownershipViolations(result: ReduceResult, events: readonly RawEvent[]): string[] {
  const claims = ownershipClaims(result);
  const problems: string[] = [];
  for (const event of events) {
    const owners = claims.get(event.idx) ?? [];
    if (owners.length !== 1) {
      problems.push(`idx ${event.idx} (${event.kind}): ${owners.join(', ') || 'no owner'}`);
    }
  }
  if (claims.size !== events.length) {
    problems.push(`claims for ${claims.size} idx values, ${events.length} events`);
  }
  return problems;
}
