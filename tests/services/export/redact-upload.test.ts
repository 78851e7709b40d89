// The upload bundle ships only redacted media (issue 14, item 3): with a box redaction its
// video/ is a re-encode with the box drawn (same rate and frame count, the library's video
// untouched), the stored keyframe PNGs stay home, and its keyframes/ are blacked out in the box.
// On the example's 10-second clip (2 steps): the whole video is re-encoded, whatever its length.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyEdit } from '../../../src/services/edits/edit-service';
import { buildBundle } from '../../../src/services/upload/bundle';
import { decodePng } from '../../../src/pipeline/media/png';
import { getRecording, listKeyframes } from '../../../src/store';
import { exampleClipDir } from '../../helpers/example-clip';
import { exampleLibrary } from '../../helpers/example-library';
import { probe } from '../../helpers/video-frames';

const APP = { appVersion: '0.0.0-test' };
const BOX = { x: 601, y: 301, width: 41, height: 29 };
const VIDEO = '2024-11-05 18-56-31.mp4';
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'cua-redact-upload-'));
let t: Awaited<ReturnType<typeof exampleLibrary>>;
let id = '';
let clipDir = '';

beforeAll(async () => {
  // imported with its keyframes computed and stored
  t = await exampleLibrary({ clip: true });
  id = t.id;
  clipDir = await exampleClipDir();
}, 120_000);
afterAll(() => {
  t?.cleanup();
  fs.rmSync(work, { recursive: true, force: true });
});

describe('upload bundle with a box redaction', () => {
  it('ships a redacted video (same rate and frame count) and redacted keyframes only', async () => {
    const rec = getRecording(t.lib.db, id);
    const v = rec.videos[0]!;
    const rows = listKeyframes(t.lib.db, rec.seq);
    const frame = rows.get('agentnet:1')!.frame!;
    const tMs = v.startMs + (frame * 1000) / v.fps;
    const storedPngs = [...rows.values()].map((r) => r.path!.split('/').pop()!);
    applyEdit(t.lib, id, {
      op: 'redact-box',
      stepId: null,
      startMs: tMs - 100,
      endMs: tMs + 100,
      box: BOX,
    });
    const stage = path.join(t.dir, 'uploads', 'stage');
    const bundle = await buildBundle(t.lib, id, stage, APP);

    const video = bundle.files.find((f) => f.role === 'video')!;
    expect(video.relKey).toBe(`video/${VIDEO}`);
    const shipped = t.lib.resolve(video.path);
    expect(shipped.startsWith(stage)).toBe(true);
    const original = t.lib.resolve(v.path);
    expect(probe(shipped)).toEqual(probe(original));
    // the box's interior (3 px in from its edges, where H.264 rings) in frame `frame`
    const crop = `crop=${BOX.width - 6}:${BOX.height - 6}:${BOX.x + 3}:${BOX.y + 3}`;
    const inBox = (file: string) => {
      const rgb = execFileSync(
        'ffmpeg',
        [
          ...['-v', 'error', '-i', file, '-vf', `select=eq(n\\,${frame}),${crop}`],
          ...['-frames:v', '1', '-f', 'rawvideo', '-pix_fmt', 'rgb24', '-'],
        ],
        { maxBuffer: 1 << 24 },
      );
      return rgb.reduce((m, b) => Math.max(m, b), 0);
    };
    expect(inBox(shipped)).toBeLessThanOrEqual(24);
    expect(inBox(original)).toBeGreaterThan(60);
    // the library's video is the one it stored
    expect(fs.readFileSync(original).equals(fs.readFileSync(path.join(clipDir, VIDEO)))).toBe(true);

    // no stored keyframe PNG leaves; the bundle's keyframe of step 1 is black in the box, that of
    // step 0 (outside the redaction's range) is not
    for (const f of bundle.files.filter((f) => f.role === 'file')) {
      expect(storedPngs).not.toContain(path.posix.basename(f.relKey));
    }
    const keyframes = bundle.files.filter((f) => f.role === 'keyframe');
    expect(keyframes).toHaveLength(3); // 2 steps and terminate
    const boxOf = (suffix: string) => {
      const k = keyframes.find((f) => f.relKey.endsWith(suffix))!;
      const png = decodePng(fs.readFileSync(t.lib.resolve(k.path)));
      const rows: Buffer[] = [];
      for (let y = BOX.y; y < BOX.y + BOX.height; y += 1) {
        const o = (y * png.width + BOX.x) * 3;
        rows.push(Buffer.from(png.rgb.subarray(o, o + BOX.width * 3)));
      }
      return Buffer.concat(rows);
    };
    expect(boxOf('_1.png').every((b) => b === 0)).toBe(true);
    expect(boxOf('_0.png').some((b) => b > 60)).toBe(true);
  }, 300_000);
});
