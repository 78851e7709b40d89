// The kind of a step from its calls: the one answer the review page's preview, the edit service
// and the AgentNet import give (issue 26 item 16). It agrees with the kinds the reducer writes
// for the calls it makes (pipeline/reduce/describe.ts).
import type { ActionCall } from './action';
import type { StepKind } from './step';

/**
 * The main action of a call list:
 * - a drag (`moveTo` + `dragTo`) is `dragTo`;
 * - a scroll is `scroll` when it scrolls vertically at all (a diagonal one too, as the reducer
 *   names it), `hscroll` when it scrolls only sideways: `hscroll` is a kind of the contract;
 * - typing (only `write`/`press` calls) is `write` when anything is written, else `press`;
 * - otherwise the first call that is not a pre-move: `[moveTo, click]` is a click; a lone
 *   `moveTo` is `moveTo`; no calls at all is `unknown`.
 */
export function stepKindOfCalls(calls: readonly ActionCall[]): StepKind {
  const names = calls.map((c) => c.name);
  if (names.length === 0) {
    return 'unknown';
  }
  if (names.includes('dragTo')) {
    return 'dragTo';
  }
  if (names.includes('scroll')) {
    return 'scroll';
  }
  if (names.includes('hscroll')) {
    return 'hscroll';
  }
  if (names.every((n) => n === 'write' || n === 'press')) {
    return names.includes('write') ? 'write' : 'press';
  }
  return names.find((n) => n !== 'moveTo') ?? 'moveTo';
}
