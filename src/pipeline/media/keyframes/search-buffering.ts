// How each similarity search gets its frames within the memory budget (docs/keyframes.md §6
// step 3). A backward search must hold its probes until its reference (its last frame) arrives:
// with a ffprobe timeline it gets a reversed decode (reference first) when ffmpeg may hold its
// frames within the budget; decoded forward, it buffers its probes' RGB unless that exceeds the
// budget, and then its reference is decoded beforehand (prefetched). Pure.
import type { KeyframePlan, KeyframeSearchPlan } from '../../keyframes/plan';

/** A step (its index) or the terminate step. */
export type Target = number | 'terminate';

/** One similarity search of the plan and the step it serves. */
export type PlannedSearch = { target: Target; plan: KeyframeSearchPlan };

/** The searches of a plan and how they are decoded (by identity of the search objects). */
export type SearchDecodes = {
  /** Every search: the case A steps in order, then a forward terminate. */
  searches: PlannedSearch[];
  /** Searches given a reversed decode (needs a timeline). */
  reversed: Set<PlannedSearch>;
  /** Forward-decoded searches whose reference is decoded beforehand. */
  prefetched: PlannedSearch[];
};

/** Inputs of {@link planSearchDecodes}. */
export type SearchBudget = {
  /** Frames that exist (the plan's count, capped by the index or timeline). */
  frameLimit: number;
  /** Pixels of one frame (width · height). */
  pixelCount: number;
  /** Bytes one decode slot's buffering searches may hold. */
  searchBudget: number;
  /** A ffprobe timeline is available (reversed decodes possible). */
  hasTimeline: boolean;
};

// Lists the plan's searches and decides which get a reversed decode and which a prefetched
// reference.
export function planSearchDecodes(plan: KeyframePlan, budget: SearchBudget): SearchDecodes {
  const { frameLimit, pixelCount, searchBudget } = budget;
  const searches: PlannedSearch[] = plan.steps.flatMap((step, index) =>
    step.rule === 'A' ? [{ target: index, plan: step.search }] : [],
  );
  if (plan.terminate?.rule === 'forward') {
    searches.push({ target: 'terminate', plan: plan.terminate.search });
  }
  // pixels a backward search must hold until its reference arrives; null for searches that
  // never buffer (forward, or a reference outside the video)
  const bufferedPixels = new Map(
    searches.map((search) => {
      const { plan: p } = search;
      const isBuffering = p.direction === 'backward' && p.isRefInRange && p.refFrame < frameLimit;
      return [search, isBuffering ? bufferedFrameCount(p, frameLimit) * pixelCount : null];
    }),
  );
  // with a timeline, a backward search gets a reversed decode (reference first) when ffmpeg
  // may hold its selected frames (YUV 4:2:0, 1.5 bytes per pixel) within the budget
  const reversed = new Set(
    budget.hasTimeline
      ? searches.filter((search) => {
          const pixels = bufferedPixels.get(search) ?? null;
          return pixels !== null && pixels * 1.5 <= searchBudget;
        })
      : [],
  );
  // a forward-decoded backward search buffers its probes' RGB until its reference arrives,
  // unless that exceeds the budget: then the reference is decoded beforehand
  const prefetched = searches.filter(
    (search) => !reversed.has(search) && (bufferedPixels.get(search) ?? 0) * 3 > searchBudget,
  );
  return { searches, reversed, prefetched };
}

/** Frames a backward search holds before its reference arrives (probes and candidates). */
export function bufferedFrameCount(search: KeyframeSearchPlan, frameLimit: number): number {
  const frames = new Set<number>();
  for (const probe of search.probes) {
    for (const frame of [probe.frame, probe.resultFrame]) {
      if (frame >= 0 && frame < frameLimit && frame < search.refFrame) {
        frames.add(frame);
      }
    }
  }
  return frames.size;
}
