// The visual cue against Pillow's (tests/helpers/cot-upstream.py on Debian's python3-pil): every
// pixel of the marked image and of the patch, on synthetic images (edges, corners, drags) and on
// the example recording's keyframes as the agentnet-jsonl export writes them.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cueCoordinates, drawCue, type RgbImage } from '../../../src/pipeline/cot/cue';
import { decodePng, encodePngRgb } from '../../../src/pipeline/media/png';
import { upstreamCue } from '../../helpers/cot-upstream';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cot-cue-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function noise(width: number, height: number, seed: number): RgbImage {
  const rgb = new Uint8Array(width * height * 3);
  let s = seed;
  for (let i = 0; i < rgb.length; i += 1) {
    s = (s * 1103515245 + 12345) >>> 0;
    rgb[i] = s >>> 24;
  }
  return { width, height, rgb };
}

function readRgb(file: string): RgbImage {
  const d = decodePng(fs.readFileSync(file));
  return { width: d.width, height: d.height, rgb: Uint8Array.from(d.rgb) };
}

/** Compares drawCue with Pillow on each (image, code); returns how many had a patch. */
function compareWithPillow(cases: { image: RgbImage; code: string }[]): number {
  const items = cases.map((c, i) => {
    const out = path.join(dir, `case-${Date.now()}-${i}`);
    fs.mkdirSync(out);
    const image = path.join(out, 'in.png');
    fs.writeFileSync(
      image,
      encodePngRgb(c.image.rgb, c.image.width, c.image.height, { compressionLevel: 1 }),
    );
    return { image, code: c.code, out };
  });
  const patches = upstreamCue(items);
  let withPatch = 0;
  cases.forEach((c, i) => {
    const ours = drawCue(c.image, c.code);
    const theirs = readRgb(path.join(items[i]!.out, 'image.png'));
    expect({ i, w: ours.image.width, h: ours.image.height }).toEqual({
      i,
      w: theirs.width,
      h: theirs.height,
    });
    // one byte comparison per image (a mismatch names the case)
    expect({ i, same: Buffer.from(ours.image.rgb).equals(Buffer.from(theirs.rgb)) }).toEqual({
      i,
      same: true,
    });
    expect({ i, patch: ours.patch !== null }).toEqual({ i, patch: patches[i] });
    if (ours.patch) {
      withPatch += 1;
      const p = readRgb(path.join(items[i]!.out, 'patch.png'));
      expect({ i, w: ours.patch.width, h: ours.patch.height }).toEqual({
        i,
        w: p.width,
        h: p.height,
      });
      expect({ i, same: Buffer.from(ours.patch.rgb).equals(Buffer.from(p.rgb)) }).toEqual({
        i,
        same: true,
      });
    }
  });
  return withPatch;
}

describe('cue coordinates (upstream draw_bounding_box_and_crop_patch rule)', () => {
  it('takes x=/y= of pointer calls in [0, 1], line by line, and nothing else', () => {
    expect(
      cueCoordinates(
        [
          'pyautogui.moveTo(x=0.4546, y=0.2682)',
          "  pyautogui.dragTo(x=0.4107, y=0.2773, button='left')",
          'pyautogui.scroll(-3)',
          "pyautogui.write(message='x=0.1 y=0.2')",
          'pyautogui.click(x=1.5, y=0.5)',
          'pyautogui.click(0.5, 0.5)',
          'computer.tripleClick(x=1, y=0)',
        ].join('\n'),
      ),
    ).toEqual([
      { x: 0.4546, y: 0.2682 },
      { x: 0.4107, y: 0.2773 },
      { x: 1, y: 0 },
    ]);
  });
});

describe('cue pixels equal Pillow 9.4 ImageDraw', () => {
  it('synthetic images: centre, edges, corners, drags, odd sizes, keyboard steps', () => {
    const codes = [
      'pyautogui.click(x=0.5, y=0.5)',
      'pyautogui.click(x=0, y=0)',
      'pyautogui.click(x=1, y=1)',
      'pyautogui.doubleClick(x=0.01, y=0.99)',
      'pyautogui.rightClick(x=0.999, y=0.003)',
      "pyautogui.moveTo(x=0.25, y=0.3)\npyautogui.dragTo(x=0.7, y=0.31, button='left')",
      'pyautogui.moveTo(x=0.396, y=0.7839)\npyautogui.scroll(-3)',
      "pyautogui.write(message='hello')",
      "computer.terminate(status='success')",
      'pyautogui.tripleClick(x=0.123456, y=0.654321)',
    ];
    const sizes: [number, number][] = [
      [1276, 718],
      [333, 201],
      [41, 37],
      [640, 480],
    ];
    const cases = sizes.flatMap(([w, h], k) =>
      codes.map((code, i) => ({ image: noise(w, h, k * 100 + i + 1), code })),
    );
    expect(compareWithPillow(cases)).toBe(sizes.length * 8);
  });
});
