import { describe, expect, it } from 'vitest';
import {
  boxesAt,
  covers,
  defaultRange,
  displayToVideo,
  draftProblem,
  dragToVideoBox,
  fittedRect,
  frameTimeMs,
  isExcludedAt,
  videoBoxToDisplay,
} from '../../../src/renderer/lib/redaction-box';

const HD = { width: 1920, height: 1080 };

describe('fittedRect (object-fit: contain)', () => {
  it('letterboxes a wide video in a tall element (bars above and below)', () => {
    expect(fittedRect({ width: 960, height: 700 }, HD)).toEqual({
      left: 0,
      top: (700 - 540) / 2,
      width: 960,
      height: 540,
    });
  });
  it('pillarboxes in a wide element (bars left and right)', () => {
    expect(fittedRect({ width: 1000, height: 270 }, HD)).toEqual({
      left: (1000 - 480) / 2,
      top: 0,
      width: 480,
      height: 270,
    });
  });
  it('is empty before anything is measured', () => {
    expect(fittedRect({ width: 0, height: 0 }, HD)).toEqual({
      left: 0,
      top: 0,
      width: 0,
      height: 0,
    });
    expect(fittedRect({ width: 100, height: 100 }, { width: 0, height: 0 }).width).toBe(0);
  });
});

describe('display ↔ video mapping', () => {
  const rect = fittedRect({ width: 960, height: 700 }, HD); // scale 0.5, 80 px bars
  it('maps element px to video px through the bars and the scale, clamped to the picture', () => {
    expect(displayToVideo({ x: 0, y: 80 }, rect, HD)).toEqual({ x: 0, y: 0 });
    expect(displayToVideo({ x: 480, y: 350 }, rect, HD)).toEqual({ x: 960, y: 540 });
    expect(displayToVideo({ x: 960, y: 620 }, rect, HD)).toEqual({ x: 1920, y: 1080 });
    // in the bars or past the edge: clamped
    expect(displayToVideo({ x: -10, y: 10 }, rect, HD)).toEqual({ x: 0, y: 0 });
    expect(displayToVideo({ x: 2000, y: 690 }, rect, HD)).toEqual({ x: 1920, y: 1080 });
  });

  it('turns a drag (either direction) into a whole-pixel video box, and back', () => {
    const box = dragToVideoBox({ x: 100, y: 130 }, { x: 40, y: 100 }, rect, HD);
    expect(box).toEqual({ x: 80, y: 40, width: 120, height: 60 });
    expect(videoBoxToDisplay(box!, rect, HD)).toEqual({
      left: 40,
      top: 100,
      width: 60,
      height: 30,
    });
    // fractional positions round to the nearest pixel
    expect(dragToVideoBox({ x: 10.3, y: 90.2 }, { x: 20.6, y: 100.9 }, rect, HD)).toEqual({
      x: 21,
      y: 20,
      width: 20,
      height: 22,
    });
  });

  it('clips a drag that leaves the picture and refuses clicks and drags wholly outside', () => {
    expect(dragToVideoBox({ x: 900, y: 600 }, { x: 1200, y: 900 }, rect, HD)).toEqual({
      x: 1800,
      y: 1040,
      width: 120,
      height: 40,
    });
    expect(dragToVideoBox({ x: 10, y: 100 }, { x: 12, y: 200 }, rect, HD)).toBeNull();
    expect(dragToVideoBox({ x: 10, y: 100 }, { x: 100, y: 101 }, rect, HD)).toBeNull();
    // wholly in the top bar: nothing of the picture
    expect(dragToVideoBox({ x: 10, y: 5 }, { x: 100, y: 60 }, rect, HD)).toBeNull();
    // wholly in the bottom bar: nothing either
    expect(dragToVideoBox({ x: 10, y: 630 }, { x: 100, y: 690 }, rect, HD)).toBeNull();
  });
});

describe('which redactions show at the playhead', () => {
  const video = { startMs: 500, fps: 10 };
  it('maps the playhead to the time of the frame shown (frame n = startMs + n·1000/fps)', () => {
    expect(frameTimeMs(0, video)).toBe(500);
    expect(frameTimeMs(0.19, video)).toBe(600);
    expect(frameTimeMs(0.2, video)).toBe(700); // no float slip below the frame boundary
    expect(frameTimeMs(1.25, { startMs: 0, fps: 0 })).toBe(1250);
  });

  it('includes both ends of a range, an open excluded interval runs on', () => {
    const boxes = [
      { editId: 1, startMs: 600, endMs: 800, box: { x: 0, y: 0, width: 1, height: 1 } },
      { editId: 2, startMs: 700, endMs: 700, box: { x: 1, y: 1, width: 1, height: 1 } },
    ];
    expect(boxesAt(boxes, 500)).toEqual([]);
    expect(boxesAt(boxes, 600).map((b) => b.editId)).toEqual([1]);
    expect(boxesAt(boxes, frameTimeMs(0.2, video)).map((b) => b.editId)).toEqual([1, 2]);
    expect(boxesAt(boxes, 800).map((b) => b.editId)).toEqual([1]);
    expect(boxesAt(boxes, 900)).toEqual([]);
    const excluded = [
      { startMs: 100, endMs: 200 },
      { startMs: 5000, endMs: null },
    ];
    expect([50, 100, 200, 201, 4999, 5000, 1e9].map((t) => isExcludedAt(excluded, t))).toEqual([
      false,
      true,
      true,
      false,
      false,
      true,
      true,
    ]);
    expect(covers({ startMs: 0, endMs: 100 }, 100.0000001)).toBe(true);
  });
});

describe('the draft', () => {
  it('defaults to the playhead and one second later, in whole ms', () => {
    expect(defaultRange(1234.6)).toEqual({ startMs: 1235, endMs: 2235 });
    expect(defaultRange(-3)).toEqual({ startMs: 0, endMs: 1000 });
  });
  it('says what is missing before it can be applied', () => {
    const box = { x: 0, y: 0, width: 5, height: 5 };
    expect(draftProblem({ box: null, startMs: 0, endMs: 1 })).toMatch(/Drag/);
    expect(draftProblem({ box, startMs: 2000, endMs: 1000 })).toMatch(/before the start/);
    expect(draftProblem({ box, startMs: Number.NaN, endMs: 1000 })).toMatch(/start and an end/);
    expect(draftProblem({ box, startMs: 1000, endMs: 1000 })).toBeNull();
  });
});
