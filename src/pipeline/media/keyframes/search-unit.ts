// The search unit (docs/keyframes.md §6 step 3): one similarity search (a backward case A search,
// §1.2, or the forward terminate search, §1.5) fed frames by a decode. It compares each probe
// with the reference as soon as both are decoded, walks the loop as far as the verdicts allow,
// holds only the pixels it may still choose (and lets the reference go once the walk is
// decided), hands its chosen frame to `onChosen` as soon as it is known and decoded (which may
// keep it, e.g. as a PNG, instead of this unit), and reports the verdicts resolve.ts needs.
import { rgbDiffersFromGray, rgbFramesDiffer } from '../../keyframes/gray';
import type { KeyframeSearchPlan } from '../../keyframes/plan';
import type { KeyframeSearchOutcome } from '../../keyframes/resolve';
import type { DecodeUnit } from './decode-unit';

const FALLBACK = -1;

/** One similarity search (backward case A or forward terminate) during the main pass. */
export class SearchUnit implements DecodeUnit {
  readonly frames: number[];
  readonly isOpenEnded: boolean;
  comparisons = 0;
  private readonly probesAt = new Map<number, number[]>();
  private readonly probesByCandidate = new Map<number, number[]>();
  private readonly wanted: Set<number>;
  private readonly differs: (boolean | undefined)[] = [];
  private readonly held = new Map<number, Buffer>();
  private refRgb: Buffer | null = null;
  /** A prefetched reference, kept as gray (a third of its RGB) until the walk is decided. */
  private refGray: Uint8Array | null = null;
  /** The reference was read (its pixels are let go once the walk is decided). */
  private isRefRead = false;
  /** The chosen frame's pixels went to `onChosen`, which kept them. */
  private isChosenTaken = false;
  /** The reference was prefetched (or found missing) before this pass. */
  private readonly isRefPreset: boolean;
  /** Lowest loop index known to differ (eager comparisons). */
  private bestDiffering: number | null = null;
  /** Next probe of the walk; the walk is decided when `decided` is set. */
  private walk = 0;
  /** Loop index of the winning probe, FALLBACK (lo), or null while undecided. */
  private decided: number | null = null;
  /** Latest frame decoded so far. */
  private lastArrived: number;

  constructor(
    private readonly plan: KeyframeSearchPlan,
    private readonly frameLimit: number,
    /** The prefetched reference as gray (rgbToGray), 'missing' when it could not be read, null
     * when this pass decodes it. */
    preset: Uint8Array | 'missing' | null,
    /** Order the frames arrive in (descending: a reversed decode, reference first). */
    private readonly arrival: 'ascending' | 'descending' = 'ascending',
    /** Sees the chosen frame once the walk is decided and the frame decoded; true: it kept the
     * pixels (this unit then lets them go and {@link pixels} no longer has them). */
    private readonly onChosen?: (frame: number, rgb: Buffer) => boolean,
  ) {
    this.lastArrived = arrival === 'ascending' ? -1 : Number.POSITIVE_INFINITY;
    this.isOpenEnded = plan.direction === 'forward';
    this.isRefPreset = preset !== null;
    this.refGray = preset === 'missing' ? null : preset;
    this.isRefRead = this.refGray !== null;
    const wanted = new Set<number>();
    const want = (frame: number): void => {
      if (frame >= 0 && frame < frameLimit) {
        wanted.add(frame);
      }
    };
    want(plan.fallbackFrame);
    if (!plan.isRefInRange || preset === 'missing') {
      this.decided = FALLBACK; // only lo can be chosen (resolve reports the missing reference)
    } else {
      if (!this.isRefPreset) {
        want(plan.refFrame);
      }
      for (const [index, probe] of plan.probes.entries()) {
        if (probe.frame === plan.refFrame) {
          // the reference compared with itself: similarity 1 (the decode is deterministic)
          this.differs[index] = false;
        } else {
          const list = this.probesAt.get(probe.frame) ?? [];
          list.push(index);
          this.probesAt.set(probe.frame, list);
          want(probe.frame);
        }
        const candidates = this.probesByCandidate.get(probe.resultFrame) ?? [];
        candidates.push(index);
        this.probesByCandidate.set(probe.resultFrame, candidates);
        want(probe.resultFrame);
      }
    }
    this.wanted = wanted;
    this.frames = [...wanted].sort((a, b) => a - b);
  }

  onFrame(frame: number, rgb: Buffer): void {
    if (!this.wanted.has(frame)) {
      return;
    }
    this.lastArrived = frame;
    this.held.set(frame, rgb);
    if (this.decided === null) {
      if (frame === this.plan.refFrame && this.refRgb === null && !this.isRefPreset) {
        this.refRgb = Buffer.from(rgb); // the pool may reuse `rgb` once the unit lets it go
        this.isRefRead = true;
      }
      if (this.refGray !== null) {
        this.compareEagerly(frame, rgb);
      }
      this.advance();
    }
    if (this.decided !== null) {
      // no comparison is left to make
      this.refRgb = null;
      this.refGray = null;
      this.handOverChosen();
    }
    this.prune();
  }

  /** Gives the chosen frame to `onChosen` once it is decided and decoded. */
  private handOverChosen(): void {
    if (this.onChosen === undefined || this.isChosenTaken) {
      return;
    }
    const chosen = this.chosenFrame();
    const rgb = this.held.get(chosen);
    if (rgb !== undefined && this.onChosen(chosen, rgb)) {
      this.isChosenTaken = true;
      this.held.delete(chosen);
    }
  }

  isDone(): boolean {
    if (this.decided === null) {
      return false;
    }
    const chosen = this.chosenFrame();
    return (
      this.isChosenTaken || !this.wanted.has(chosen) || this.held.has(chosen) || this.isPast(chosen)
    );
  }

  /** Whether `frame` would have arrived by now (a wanted frame that did not is missing). */
  private isPast(frame: number): boolean {
    return this.arrival === 'ascending' ? frame <= this.lastArrived : frame >= this.lastArrived;
  }

  /** Verdicts for resolveKeyframes. */
  outcome(): KeyframeSearchOutcome {
    return { isRefRead: this.isRefRead, differs: this.differs };
  }

  holds(frame: number): boolean {
    return this.held.has(frame);
  }

  /** Pixels of `frame` if this search kept them. */
  pixels(frame: number): Buffer | undefined {
    return this.held.get(frame);
  }

  private chosenFrame(): number {
    if (this.decided === null || this.decided === FALLBACK) {
      return this.plan.fallbackFrame;
    }
    return (this.plan.probes[this.decided] as { resultFrame: number }).resultFrame;
  }

  /** Prefetched reference: decide the probes on `frame` now instead of keeping the pixels. */
  private compareEagerly(frame: number, rgb: Buffer): void {
    for (const probe of this.probesAt.get(frame) ?? []) {
      if (this.differs[probe] !== undefined) {
        continue;
      }
      if (this.bestDiffering !== null && probe > this.bestDiffering) {
        continue; // the walk stops at bestDiffering before reaching this probe
      }
      const differs = this.differsFromRef(rgb);
      this.comparisons += 1;
      this.differs[probe] = differs;
      if (differs && (this.bestDiffering === null || probe < this.bestDiffering)) {
        this.bestDiffering = probe;
      }
    }
  }

  /** Walks the loop as far as the decoded frames allow (docs/keyframes.md §1.2 step 4, §1.5 step 4). */
  private advance(): void {
    if (this.refRgb === null && this.refGray === null) {
      return;
    }
    while (this.decided === null) {
      const probe = this.plan.probes[this.walk];
      if (probe === undefined) {
        this.decided = FALLBACK; // the loop ended by its bound or at the video end
        break;
      }
      let differs = this.differs[this.walk];
      if (differs === undefined) {
        const rgb = this.held.get(probe.frame);
        if (rgb !== undefined) {
          differs = this.differsFromRef(rgb);
          this.comparisons += 1;
          this.differs[this.walk] = differs;
        } else if (this.isPast(probe.frame) || probe.frame >= this.frameLimit) {
          this.decided = FALLBACK; // the probe's frame was not decoded: the loop ends with lo
          break;
        } else {
          break; // wait for the probe's frame
        }
      }
      if (differs) {
        this.decided = this.walk;
        break;
      }
      this.walk += 1;
    }
  }

  /** Whether a probe's pixels differ from the reference (docs/keyframes.md §4). */
  private differsFromRef(rgb: Buffer): boolean {
    if (this.refGray !== null) {
      return rgbDiffersFromGray(rgb, this.refGray);
    }
    return rgbFramesDiffer(rgb, this.refRgb as Buffer);
  }

  /** Drops pixels this search can no longer need. */
  private prune(): void {
    for (const frame of this.held.keys()) {
      if (!this.mayNeed(frame)) {
        this.held.delete(frame);
      }
    }
  }

  private mayNeed(frame: number): boolean {
    if (this.decided !== null) {
      return frame === this.chosenFrame() && !this.isChosenTaken;
    }
    if (frame === this.plan.fallbackFrame) {
      return true;
    }
    if (!this.isRefPreset && this.refRgb === null && this.probesAt.has(frame)) {
      return true; // a probe still to be compared once the reference arrives
    }
    if (!this.isRefPreset && this.refRgb !== null && this.probesAt.has(frame)) {
      // the walk waits for a later probe: keep the probes it has not reached
      if ((this.probesAt.get(frame) ?? []).some((probe) => this.differs[probe] === undefined)) {
        return true;
      }
    }
    return (this.probesByCandidate.get(frame) ?? []).some(
      (probe) =>
        this.differs[probe] !== false &&
        (this.bestDiffering === null || probe <= this.bestDiffering),
    );
  }
}
