// What the Replay panel and the step list read from the replay store.
import type { ReplayResultDto } from '../../../shared/contract';
import type { ReplayState } from './initialState';

const NONE: ReplayResultDto[] = [];

/** The results shown: those of the run under way, else those of the last report. */
function results(s: ReplayState): ReplayResultDto[] {
  const st = s.status;
  if (!st) {
    return NONE;
  }
  if (st.running) {
    return st.results;
  }
  return st.report?.steps ?? NONE;
}

// Results by step id (steps only), memoised on the array they come from.
let lastResults: ReplayResultDto[] | null = null;
let lastByStep: ReadonlyMap<string, ReplayResultDto> = new Map();
function byStep(s: ReplayState): ReadonlyMap<string, ReplayResultDto> {
  const list = results(s);
  if (list !== lastResults) {
    lastResults = list;
    lastByStep = new Map(
      list.filter((r) => r.kind === 'step' && r.stepId !== null).map((r) => [r.stepId!, r]),
    );
  }
  return lastByStep;
}

/** The replay store's selectors. */
export const replaySelectors = {
  /** True when the state is of recording `id`. */
  isFor: (s: ReplayState, id: string): boolean => s.recordingId === id,
  /** Replay is on: the settings name a display. */
  isEnabled: (s: ReplayState): boolean => (s.status?.display ?? '') !== '',
  isRunning: (s: ReplayState): boolean => s.status?.running ?? false,
  results,
  byStep,
  /** The result of one step, for its badge in the step list (undefined: none). */
  ofStep: (s: ReplayState, stepId: string): ReplayResultDto | undefined => byStep(s).get(stepId),
  /** `done / total` of the run under way, else null (a new object: not a hook selector). */
  progress: (s: Pick<ReplayState, 'status'>): { done: number; total: number } | null =>
    s.status?.running ? { done: s.status.results.length, total: s.status.total } : null,
  /** The result shown side by side: the one selected, else the first divergent one. */
  selected: (s: ReplayState): ReplayResultDto | null => {
    const list = results(s);
    if (s.selectedIndex !== null) {
      return list.find((r) => r.index === s.selectedIndex) ?? null;
    }
    return list.find((r) => !r.ok && !r.masked) ?? null;
  },
};

/** A result in one word: `ok`, `diverges`, or `masked` (a password step: not replayed, not
 * scored). */
export function verdictText(
  r: Pick<ReplayResultDto, 'ok' | 'masked'>,
): 'ok' | 'diverges' | 'masked' {
  return r.masked ? 'masked' : r.ok ? 'ok' : 'diverges';
}

/** A screen difference as a percentage (`12.3 %`), or a dash when not compared. */
export function screenDiffText(diff: number | null): string {
  return diff === null ? '–' : `${(diff * 100).toFixed(1)} %`;
}

/** The element comparison in words. */
export function elementText(r: Pick<ReplayResultDto, 'elementMatch'>): string {
  return r.elementMatch === null ? 'not recorded' : r.elementMatch ? 'match' : 'differs';
}
