// The decode units on their own, fed frames by hand: a fixed unit keeps or lets go of its frame;
// a search unit compares probes with its reference as both arrive, walks the loop as far as the
// verdicts allow, is done as soon as its chosen frame is held (a reversed decode stops early),
// and keeps only the pixels it may still choose (docs/keyframes.md §1.2, §6 step 3).
import { describe, expect, it } from 'vitest';
import { rgbToGray } from '../../../../src/pipeline/keyframes/gray';
import { FixedUnit } from '../../../../src/pipeline/media/keyframes/decode-unit';
import { SearchUnit } from '../../../../src/pipeline/media/keyframes/search-unit';
import { BACKWARD, solid } from './units';

describe('FixedUnit', () => {
  it('wants its frame, is done once it arrives, and keeps the pixels when told to', () => {
    const unit = new FixedUnit(12, 100, () => true);
    expect(unit.frames).toEqual([12]);
    unit.onFrame(11, solid(1));
    expect(unit.isDone()).toBe(false);
    const rgb = solid(2);
    unit.onFrame(12, rgb);
    expect(unit.isDone()).toBe(true);
    expect(unit.holds(12)).toBe(true);
    expect(unit.pixels(12)).toBe(rgb);
    expect(unit.pixels(11)).toBeUndefined();
  });

  it('lets the pixels go when its callback says so (a prefetched reference)', () => {
    const seen: Buffer[] = [];
    const unit = new FixedUnit(12, 100, (rgb) => {
      seen.push(rgb);
      return false;
    });
    unit.onFrame(12, solid(2));
    expect(seen).toHaveLength(1);
    expect(unit.isDone()).toBe(true);
    expect(unit.holds(12)).toBe(false);
  });

  it('wants nothing and is done at once for a frame outside the video', () => {
    for (const frame of [-1, 100]) {
      const unit = new FixedUnit(frame, 100, () => true);
      expect(unit.frames).toEqual([]);
      expect(unit.isDone()).toBe(true);
    }
  });
});

describe('SearchUnit (backward search, reference at frame 30)', () => {
  it('wants lo, the reference, the probes and their candidates, ascending', () => {
    expect(new SearchUnit(BACKWARD, 100, null).frames).toEqual([20, 24, 27, 30, 33]);
    // frames past the end of the video are not wanted
    expect(new SearchUnit(BACKWARD, 31, null).frames).toEqual([20, 24, 27, 30]);
  });

  it('ascending: buffers the probes until the reference arrives, then picks the first differing one', () => {
    const unit = new SearchUnit(BACKWARD, 100, null);
    unit.onFrame(20, solid(5));
    unit.onFrame(24, solid(5));
    unit.onFrame(27, solid(9)); // differs from the reference
    expect(unit.isDone()).toBe(false);
    expect([unit.holds(24), unit.holds(27)]).toEqual([true, true]);
    const ref = solid(5);
    unit.onFrame(30, ref);
    // probe 1 (frame 27) differs: the search returns its candidate, frame 30, already held
    expect(unit.outcome()).toEqual({ isRefRead: true, differs: [false, true] });
    expect(unit.comparisons).toBe(1);
    expect(unit.isDone()).toBe(true);
    expect(unit.pixels(30)).toBe(ref);
    // nothing else is kept
    expect([20, 24, 27].map((frame) => unit.holds(frame))).toEqual([false, false, false]);
  });

  it('falls back to lo when no probe differs', () => {
    const unit = new SearchUnit(BACKWARD, 100, null);
    const lo = solid(5);
    for (const [frame, rgb] of [
      [20, lo],
      [24, solid(5)],
      [27, solid(5)],
      [30, solid(5)],
    ] as const) {
      unit.onFrame(frame, rgb);
    }
    expect(unit.outcome()).toEqual({ isRefRead: true, differs: [false, false, false] });
    expect(unit.isDone()).toBe(true);
    expect(unit.pixels(20)).toBe(lo);
  });

  it('descending (a reversed decode): decides at the first differing probe without lo or later probes', () => {
    const unit = new SearchUnit(BACKWARD, 100, null, 'descending');
    unit.onFrame(33, solid(1));
    const ref = solid(5);
    unit.onFrame(30, ref);
    expect(unit.isDone()).toBe(false);
    unit.onFrame(27, solid(9));
    expect(unit.isDone()).toBe(true); // frames 24 and 20 are never needed
    expect(unit.outcome()).toEqual({ isRefRead: true, differs: [false, true] });
    expect(unit.pixels(30)).toBe(ref);
    expect(unit.holds(33)).toBe(false);
  });

  it('with a prefetched gray reference: compares each probe on arrival instead of holding it', () => {
    const unit = new SearchUnit(BACKWARD, 100, rgbToGray(solid(5)));
    expect(unit.frames).toEqual([20, 24, 27, 30, 33]); // 30 only as probe 1's candidate
    unit.onFrame(20, solid(5));
    unit.onFrame(24, solid(5));
    expect(unit.holds(24)).toBe(false); // compared already: same as the reference
    unit.onFrame(27, solid(9));
    expect(unit.comparisons).toBe(2);
    expect(unit.isDone()).toBe(false); // decided for frame 30, which has not arrived
    unit.onFrame(30, solid(7));
    expect(unit.isDone()).toBe(true);
    expect(unit.outcome()).toEqual({ isRefRead: true, differs: [false, true, false] });
  });

  it('hands the chosen frame to onChosen once decided and decoded, and holds nothing after', () => {
    const chosen: number[] = [];
    const unit = new SearchUnit(BACKWARD, 100, null, 'ascending', (frame) => {
      chosen.push(frame);
      return true;
    });
    unit.onFrame(20, solid(5));
    unit.onFrame(24, solid(5));
    unit.onFrame(27, solid(9)); // probe 1 differs: its candidate is frame 30
    expect(chosen).toEqual([]);
    unit.onFrame(30, solid(5));
    expect(chosen).toEqual([30]);
    expect(unit.isDone()).toBe(true);
    expect([20, 24, 27, 30].map((frame) => unit.holds(frame))).toEqual([
      false,
      false,
      false,
      false,
    ]);
    expect(unit.pixels(30)).toBeUndefined();
    expect(unit.outcome()).toEqual({ isRefRead: true, differs: [false, true] });
  });

  it('hands over a chosen frame that arrives after the decision (lo, no probe differing)', () => {
    const chosen: number[] = [];
    const unit = new SearchUnit(BACKWARD, 100, rgbToGray(solid(5)), 'ascending', (frame) => {
      chosen.push(frame);
      return true;
    });
    unit.onFrame(20, solid(5));
    unit.onFrame(24, solid(5));
    unit.onFrame(27, solid(5));
    expect(unit.isDone()).toBe(true);
    expect(chosen).toEqual([20]);
    expect(unit.holds(20)).toBe(false);
  });

  it('keeps the chosen frame itself when onChosen does not take it', () => {
    const unit = new SearchUnit(BACKWARD, 100, null, 'ascending', () => false);
    const lo = solid(5);
    for (const [frame, rgb] of [
      [20, lo],
      [24, solid(5)],
      [27, solid(5)],
      [30, solid(5)],
    ] as const) {
      unit.onFrame(frame, rgb);
    }
    expect(unit.isDone()).toBe(true);
    expect(unit.pixels(20)).toBe(lo);
  });

  it('with a reference found missing: only lo is wanted, and the outcome says so', () => {
    const unit = new SearchUnit(BACKWARD, 100, 'missing');
    expect(unit.frames).toEqual([20]);
    unit.onFrame(20, solid(5));
    expect(unit.isDone()).toBe(true);
    expect(unit.outcome().isRefRead).toBe(false);
  });
});
