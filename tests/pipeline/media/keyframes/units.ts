// Shared pieces of the keyframes/ unit tests: a hand-made backward search and solid RGB frames.
import type { KeyframeSearchPlan } from '../../../../src/pipeline/keyframes/plan';
import type { DecodeUnit } from '../../../../src/pipeline/media/keyframes/decode-unit';

/** Pixels of the test frames (10 × 10). */
export const PIXELS = 100;

/** A solid RGB24 frame of `value`. */
export function solid(value: number): Buffer {
  return Buffer.alloc(PIXELS * 3, value);
}

/**
 * A backward search with its reference at frame 30: probe 0 is the reference itself, probes 1
 * and 2 look at frames 27 and 24 (returning the frame 0.1 s later), lo is frame 20.
 */
export const BACKWARD: KeyframeSearchPlan = {
  direction: 'backward',
  loS: 20 / 30,
  hiS: 1,
  refTimeS: 1,
  refFrame: 30,
  isRefInRange: true,
  probes: [
    { timeS: 1, frame: 30, resultTimeS: 1.1, resultFrame: 33 },
    { timeS: 0.9, frame: 27, resultTimeS: 1, resultFrame: 30 },
    { timeS: 0.8, frame: 24, resultTimeS: 0.9, resultFrame: 27 },
  ],
  stopProbe: null,
  fallbackTimeS: 20 / 30,
  fallbackFrame: 20,
};

/** A unit that only wants `frames` (for the plans, which look at nothing else). */
export function framesUnit(frames: number[], isOpenEnded = false): DecodeUnit {
  return {
    frames,
    isOpenEnded,
    onFrame: () => undefined,
    isDone: () => false,
    holds: () => false,
  };
}

/** Frames first…last. */
export function range(first: number, last: number): number[] {
  return Array.from({ length: last - first + 1 }, (_, i) => first + i);
}
