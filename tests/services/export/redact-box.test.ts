// Box redactions and excluded intervals in every export (issue 14, item 3), on the example
// recording: keyframes chosen on the original and then blacked out exactly in the box, stored
// keyframes not reused unredacted, the exported video re-encoded at the same rate and frame
// count, undo giving back the byte-identical export, and an excluded interval blanked whole.
// On the example's 10-second clip (2 steps and terminate: 3 keyframe images): every export here
// decodes or re-encodes the video, and nothing checked needs the whole example's 122 s.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyEdit, undoLastEdit } from '../../../src/services/edits/edit-service';
import { exportRecordings } from '../../../src/services/export/export-service';
import {
  keyframeStaleness,
  refreshStaleKeyframes,
  storedExportKeyframes,
} from '../../../src/services/keyframes/keyframes';
import { writeRedactedVideo } from '../../../src/services/privacy/redact-media';
import { decodePng } from '../../../src/pipeline/media/png';
import { EXCLUDED_MARK_KIND } from '../../../src/shared/domain/privacy';
import { getRecording, insertMark, listKeyframes } from '../../../src/store';
import { exampleClipDir } from '../../helpers/example-clip';
import { exampleLibrary } from '../../helpers/example-library';
import { compareVideo, probe as probeVideo, rawFrame } from '../../helpers/video-frames';

const OPTS = { appVersion: '0.0.0-test' };
const VIDEO = '2024-11-05 18-56-31.mp4';
const BOX = { x: 601, y: 301, width: 41, height: 29 };
/** Frame count by decoding every frame. */
const probe = (file: string) => probeVideo(file, 'frames');
let t: Awaited<ReturnType<typeof exampleLibrary>>;
let clipDir = '';
const outRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'cua-redact-'));
let id = '';
let seq = 0;
/** Recording-clock time of each keyframe's video frame (startMs + frame·1000/fps) by image
 * index (steps, then terminate): redactions cover frames by these times. */
let frameTimes: number[] = [];
let baseline: Map<string, Buffer>;

beforeAll(async () => {
  // imported with its keyframes computed and stored
  t = await exampleLibrary({ clip: true });
  id = t.id;
  clipDir = await exampleClipDir();
  seq = getRecording(t.lib.db, id).seq;
  const rows = listKeyframes(t.lib.db, seq);
  const steps = keyframeStaleness(t.lib, seq).steps;
  const v = getRecording(t.lib.db, id).videos[0]!;
  const at = (stepId: string) => v.startMs + (rows.get(stepId)!.frame! * 1000) / v.fps;
  frameTimes = [...steps.map((s) => at(s.id)), at(':terminate')];
  baseline = await exportFiles('agentnet-jsonl', 'base');
}, 120_000);
afterAll(() => {
  t?.cleanup();
  fs.rmSync(outRoot, { recursive: true, force: true });
});

async function exportFiles(
  format: 'agentnet-jsonl' | 'standardized' | 'agentnet-raw',
  name: string,
): Promise<Map<string, Buffer>> {
  const outDir = path.join(outRoot, name);
  await exportRecordings(t.lib, [id], { ...OPTS, format, outDir });
  const files = new Map<string, Buffer>();
  for (const e of fs.readdirSync(outDir, { recursive: true, withFileTypes: true })) {
    if (e.isFile()) {
      const full = path.join(e.parentPath, e.name);
      files.set(path.relative(outDir, full), fs.readFileSync(full));
    }
  }
  return files;
}

/** The agentnet-jsonl images in trajectory order (`<episode>_<k>.png`). */
function images(files: Map<string, Buffer>): Buffer[] {
  return [...files.entries()]
    .filter(([k]) => k.startsWith('images/'))
    .sort(([a], [b]) => Number(/_(\d+)\.png$/.exec(a)![1]) - Number(/_(\d+)\.png$/.exec(b)![1]))
    .map(([, v]) => v);
}

type Pixels = { width: number; height: number; rgb: Uint8Array };
function pixels(png: Buffer): Pixels {
  const d = decodePng(png);
  return { width: d.width, height: d.height, rgb: d.rgb };
}

function inBox(x: number, y: number, b: typeof BOX): boolean {
  return x >= b.x && x < b.x + b.width && y >= b.y && y < b.y + b.height;
}

/** Counts: inside-box pixels equal to the original, non-black inside, changed outside. */
function compare(redacted: Pixels, original: Pixels, box: typeof BOX) {
  let equalInside = 0;
  let nonBlackInside = 0;
  let changedOutside = 0;
  for (let y = 0; y < original.height; y += 1) {
    for (let x = 0; x < original.width; x += 1) {
      const o = (y * original.width + x) * 3;
      const same =
        redacted.rgb[o] === original.rgb[o] &&
        redacted.rgb[o + 1] === original.rgb[o + 1] &&
        redacted.rgb[o + 2] === original.rgb[o + 2];
      if (inBox(x, y, box)) {
        equalInside += same ? 1 : 0;
        nonBlackInside += redacted.rgb[o] || redacted.rgb[o + 1] || redacted.rgb[o + 2] ? 1 : 0;
      } else {
        changedOutside += same ? 0 : 1;
      }
    }
  }
  return { equalInside, nonBlackInside, changedOutside };
}

describe('box redaction in exports', () => {
  it('blacks out exactly the box in the keyframes in its range, not reusing stale stored keyframes', async () => {
    // step 1 and terminate (images 1, 2) have their keyframes in the range; image 0 does not
    expect(frameTimes).toHaveLength(3);
    const startMs = frameTimes[1]! - 1;
    const endMs = frameTimes[2]! + 1;
    const inRange = frameTimes.map((tMs) => tMs >= startMs && tMs <= endMs);
    expect(inRange.filter(Boolean)).toHaveLength(2);
    const before = images(baseline);
    // the originals have no black pixel in the box: a blacked-out pixel differs from each
    for (const k of [1, 2]) {
      const p = pixels(before[k]!);
      const black = { ...p, rgb: new Uint8Array(p.rgb.length) };
      expect(compare(black, p, BOX).equalInside).toBe(0);
    }
    expect(keyframeStaleness(t.lib, seq).stale).toHaveLength(0);

    applyEdit(t.lib, id, { op: 'redact-box', stepId: null, startMs, endMs, box: BOX });
    // every stored keyframe is stale now: exports decode and redact instead of reusing them
    const staleness = keyframeStaleness(t.lib, seq);
    expect(staleness.stale).toHaveLength(staleness.steps.length);
    expect(staleness.isTerminateStale).toBe(true);
    expect(await storedExportKeyframes(t.lib, seq, staleness.steps)).toBeNull();

    const redacted = await exportFiles('agentnet-jsonl', 'redacted');
    const after = images(redacted);
    expect(after).toHaveLength(before.length);
    for (const [k, png] of after.entries()) {
      if (inRange[k]) {
        const c = compare(pixels(png), pixels(before[k]!), BOX);
        expect(c, `image ${k}`).toEqual({ equalInside: 0, nonBlackInside: 0, changedOutside: 0 });
      } else {
        expect(png.equals(before[k]!), `image ${k}`).toBe(true);
      }
    }
    // the JSON line and CoT input do not change
    for (const [k, v] of redacted) {
      if (!k.startsWith('images/')) {
        expect(v.equals(baseline.get(k)!), k).toBe(true);
      }
    }

    // standardized: the same images
    const std = await exportFiles('standardized', 'redacted-std');
    const stdImages = [...std.entries()].filter(([k]) => k.startsWith('images/'));
    expect(stdImages.length).toBeGreaterThan(0);
    const redactedSet = new Set(after.map((b) => b.toString('base64')));
    for (const [k, v] of stdImages) {
      expect(redactedSet.has(v.toString('base64')), k).toBe(true);
    }

    // stored keyframes recomputed with the redaction are redacted too, and reused by exports
    await refreshStaleKeyframes(t.lib, id);
    expect(keyframeStaleness(t.lib, seq).stale).toHaveLength(0);
    const stored = await storedExportKeyframes(t.lib, seq, keyframeStaleness(t.lib, seq).steps);
    expect(stored).not.toBeNull();
    for (const [k, png] of after.entries()) {
      expect(stored!.images[k]!.equals(png), `stored image ${k}`).toBe(true);
    }
  }, 180_000);

  it('undo gives back the byte-identical export', async () => {
    const undone = undoLastEdit(t.lib, id);
    expect(undone.edit.op).toBe('redact-box');
    const again = await exportFiles('agentnet-jsonl', 'undone');
    expect([...again.keys()].sort()).toEqual([...baseline.keys()].sort());
    for (const [k, v] of again) {
      expect(v.equals(baseline.get(k)!), k).toBe(true);
    }
    // agentnet-raw without redactions copies the video byte for byte (no re-encode)
    const raw = await exportFiles('agentnet-raw', 'raw-plain');
    const video = raw.get(`win10-display-settings/${VIDEO}`)!;
    expect(video.equals(fs.readFileSync(path.join(clipDir, VIDEO)))).toBe(true);
  }, 120_000);

  it('re-encodes a trimmed agentnet-raw video with the box drawn: same rate and frame count', async () => {
    const trimStart = frameTimes[0]! - 1000;
    const trimEnd = frameTimes[0]! + 1000;
    applyEdit(t.lib, id, { op: 'trim', startMs: trimStart, endMs: trimEnd });
    const plain = await exportFiles('agentnet-raw', 'trim-plain');
    const boxStart = frameTimes[0]! - 200;
    const boxEnd = frameTimes[0]! + 200;
    applyEdit(t.lib, id, {
      op: 'redact-box',
      stepId: null,
      startMs: boxStart,
      endMs: boxEnd,
      box: BOX,
    });
    const redacted = await exportFiles('agentnet-raw', 'trim-redacted');
    const videoKey = 'win10-display-settings/video.mp4';
    const a = path.join(outRoot, 'trim-plain', videoKey);
    const b = path.join(outRoot, 'trim-redacted', videoKey);
    expect(plain.has(videoKey) && redacted.has(videoKey)).toBe(true);
    const pa = probe(a);
    expect(probe(b)).toEqual(pa);
    expect(pa.frames).toBeGreaterThan(40);
    // frames of the cut: frame 0 at the kept range's first source frame
    const rec = getRecording(t.lib.db, id);
    const v = rec.videos[0]!;
    const firstSource = Math.ceil(((trimStart - v.startMs) * v.fps) / 1000 - 1e-6);
    const frameOf = (tMs: number) => Math.round(((tMs - v.startMs) * v.fps) / 1000) - firstSource;
    expect(frameOf(frameTimes[0]!)).toBeGreaterThan(0);
    const inside = frameOf(frameTimes[0]!);
    const orig = rawFrame(a, inside, v.width, v.height);
    const red = rawFrame(b, inside, v.width, v.height);
    // lossy H.264: inside the box near black, nothing equal to the original there
    const c = compareVideo(red, orig, v.width, BOX);
    expect(c.maxInside).toBeLessThanOrEqual(24);
    expect(c.equalInside).toBe(0);
    // a frame outside the redaction's range is not blacked out
    const outside = frameOf(boxEnd + 300);
    const c2 = compareVideo(
      rawFrame(b, outside, v.width, v.height),
      rawFrame(a, outside, v.width, v.height),
      v.width,
      BOX,
    );
    expect(c2.maxInside).toBeGreaterThan(60);
    undoLastEdit(t.lib, id);
    undoLastEdit(t.lib, id);
  }, 120_000);

  it('draws the boxes on an untrimmed video at the same rate and frame count', async () => {
    const clip = path.join(outRoot, 'clip.mp4');
    execFileSync('ffmpeg', [
      ...['-v', 'error', '-i', path.join(clipDir, VIDEO)],
      ...['-frames:v', '45', '-c', 'copy', '-an', '-y', clip],
    ]);
    const base = probe(clip);
    const out = path.join(outRoot, 'clip-redacted.mp4');
    const video = { startMs: 1000, fps: 30, frameCount: base.frames, width: 1276, height: 718 };
    // frames 10..20 (times 1000 + n·1000/30), plus a whole-frame blank of frames 30..32
    const wrote = await writeRedactedVideo({
      inputPath: clip,
      outputPath: out,
      video,
      redactions: [
        { startMs: 1000 + 10000 / 30, endMs: 1000 + 20000 / 30, box: BOX },
        { startMs: 1000 + 30000 / 30, endMs: 1000 + 32000 / 30, box: null },
      ],
      kept: null,
    });
    expect(wrote).toBe(true);
    expect(probe(out)).toEqual(base);
    for (const n of [10, 15, 20]) {
      const c = compareVideo(rawFrame(out, n, 1276, 718), rawFrame(clip, n, 1276, 718), 1276, BOX);
      expect(c.maxInside, `frame ${n}`).toBeLessThanOrEqual(24);
    }
    for (const n of [9, 21]) {
      const c = compareVideo(rawFrame(out, n, 1276, 718), rawFrame(clip, n, 1276, 718), 1276, BOX);
      expect(c.maxInside, `frame ${n}`).toBeGreaterThan(60);
    }
    const blank = rawFrame(out, 31, 1276, 718);
    expect(blank.reduce((m, b) => Math.max(m, b), 0)).toBeLessThanOrEqual(24);
    // nothing to draw: nothing written
    const none = await writeRedactedVideo({
      inputPath: clip,
      outputPath: path.join(outRoot, 'none.mp4'),
      video,
      redactions: [{ startMs: 0, endMs: 500, box: BOX }],
      kept: null,
    });
    expect(none).toBe(false);
    expect(fs.existsSync(path.join(outRoot, 'none.mp4'))).toBe(false);
  }, 120_000);

  it('blanks whole keyframes inside an excluded interval', async () => {
    insertMark(t.lib.db, seq, {
      tMs: frameTimes[1]! - 1,
      endMs: frameTimes[1]! + 1,
      kind: EXCLUDED_MARK_KIND,
      data: {},
    });
    const files = await exportFiles('agentnet-jsonl', 'excluded');
    const after = images(files);
    const before = images(baseline);
    for (const [k, png] of after.entries()) {
      if (k === 1) {
        const p = pixels(png);
        expect(p.rgb.every((b) => b === 0)).toBe(true);
      } else if (Math.abs(frameTimes[k]! - frameTimes[1]!) > 1) {
        expect(png.equals(before[k]!), `image ${k}`).toBe(true);
      }
    }
  }, 120_000);
});
