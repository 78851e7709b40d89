// The pure parts of pixel redaction (src/pipeline/privacy/redact-box.ts): which frames a time
// range covers, clipping, filling an RGB frame exactly in the box, the drawbox filter of a cut.
import { describe, expect, it } from 'vitest';
import {
  boxesAtFrame,
  clipBox,
  drawboxFilter,
  fillRgbBoxes,
  redactedFrames,
  redactionsKey,
} from '../../../src/pipeline/privacy/redact-box';

const TIMING = { startMs: 1000, fps: 30, frameCount: 100 };

describe('redact-box', () => {
  it('covers the frames whose time lies in [startMs, endMs], ends included, clamped', () => {
    // frame n at 1000 + n·33.33 ms
    expect(
      redactedFrames({ startMs: 1000 + 10000 / 30, endMs: 1000 + 20000 / 30 }, TIMING),
    ).toEqual({ first: 10, last: 20 });
    expect(redactedFrames({ startMs: 1334, endMs: 1367 }, TIMING)).toEqual({
      first: 11,
      last: 11,
    });
    expect(redactedFrames({ startMs: 1335, endMs: 1340 }, TIMING)).toBeNull();
    expect(redactedFrames({ startMs: 0, endMs: 1e12 }, TIMING)).toEqual({ first: 0, last: 99 });
    expect(redactedFrames({ startMs: 0, endMs: 999 }, TIMING)).toBeNull();
  });

  it('clips boxes to the frame; null is the whole frame', () => {
    expect(clipBox({ x: 90, y: -5, width: 20, height: 10 }, 100, 50)).toEqual({
      x: 90,
      y: 0,
      width: 10,
      height: 5,
    });
    expect(clipBox({ x: 100, y: 0, width: 5, height: 5 }, 100, 50)).toBeNull();
    expect(clipBox(null, 100, 50)).toEqual({ x: 0, y: 0, width: 100, height: 50 });
  });

  it('fills exactly the box with black and nothing else', () => {
    const w = 7;
    const h = 5;
    const rgb = new Uint8Array(w * h * 3).fill(200);
    fillRgbBoxes(rgb, w, h, [{ x: 5, y: 1, width: 4, height: 2 }]);
    for (let y = 0; y < h; y += 1) {
      for (let x = 0; x < w; x += 1) {
        const inside = x >= 5 && y >= 1 && y < 3;
        const o = (y * w + x) * 3;
        expect([...rgb.subarray(o, o + 3)], `${x},${y}`).toEqual(
          inside ? [0, 0, 0] : [200, 200, 200],
        );
      }
    }
    expect(boxesAtFrame([{ startMs: 1000, endMs: 1100, box: null }], 3, TIMING, w, h)).toEqual([
      { x: 0, y: 0, width: w, height: h },
    ]);
    expect(boxesAtFrame([{ startMs: 1000, endMs: 1100, box: null }], 4, TIMING, w, h)).toEqual([]);
  });

  it('draws on the frames of a cut counted from its first kept frame; nothing when outside', () => {
    const r = [
      {
        startMs: 1000 + 10000 / 30,
        endMs: 1000 + 20000 / 30,
        box: { x: 1, y: 2, width: 3, height: 4 },
      },
    ];
    expect(drawboxFilter(r, TIMING, 64, 48)).toBe(
      "drawbox=x=1:y=2:w=3:h=4:color=black:t=fill:enable='between(n,10,20)'",
    );
    expect(drawboxFilter(r, TIMING, 64, 48, { startFrame: 15, endFrame: 50 })).toBe(
      "drawbox=x=1:y=2:w=3:h=4:color=black:t=fill:enable='between(n,0,5)'",
    );
    expect(drawboxFilter(r, TIMING, 64, 48, { startFrame: 21, endFrame: 50 })).toBeNull();
    expect(drawboxFilter([], TIMING, 64, 48)).toBeNull();
    expect(redactionsKey([])).toBeNull();
    expect(redactionsKey([...r, { startMs: 1, endMs: 2, box: null }])).toBe(
      redactionsKey([{ startMs: 1, endMs: 2, box: null }, ...r]),
    );
  });
});
