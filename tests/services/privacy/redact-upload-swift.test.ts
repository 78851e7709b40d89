// Redaction before anything leaves, against a real S3 (Swift), on one small recording with a
// real video and several kinds of personal data: a card number typed in a step, an e-mail
// address in the task, an AWS access key in a window title, a GitHub token in an accessibility
// value, an excluded interval at the end. While the card is unresolved the upload is refused and
// nothing is sent; with allowPii it goes through and the search finds every text in the bucket;
// after `redact-text` edits for every finding (as `scan --redact-all` makes them) and a box
// redaction an upload to the same place replaces it without allowPii; then every object in it is
// downloaded and searched byte by byte (archives opened, JSON decoded; UTF-8, UTF-16, JSON
// escapes, the card's digits-only form) for the redacted texts, and the placeholders are found
// where the texts were; the uploaded video keeps the library video's rate and frame count with
// the box and the excluded interval black, and the keyframes are black there too. The local
// exports of the same recording are searched the same way.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  GetObjectCommand,
  HeadObjectCommand,
  ListMultipartUploadsCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveFfmpeg } from '../../../src/infra/ffmpeg/binary';
import { decodePng } from '../../../src/pipeline/media/png';
import { applyEdit, undoLastEdit } from '../../../src/services/edits/edit-service';
import { exportRecordings } from '../../../src/services/export/export-service';
import { scanWithResolutions } from '../../../src/services/privacy/policy';
import { redactAllFindings } from '../../../src/services/privacy/text-redaction';
import { reduceRecording } from '../../../src/services/reduce-service';
import { computeKeyframes, keyframeStaleness } from '../../../src/services/keyframes/keyframes';
import { effectiveSteps } from '../../../src/services/steps';
import { MANIFEST_NAME, parseManifest } from '../../../src/services/upload/manifest';
import { UploadQueue } from '../../../src/services/upload/queue';
import { exportToStore } from '../../../src/services/upload/export-s3';
import { S3ObjectStore } from '../../../src/services/upload/s3-client';
import type { UploadTarget } from '../../../src/services/upload/target';
import { RAW_EVENT_KINDS } from '../../../src/shared/domain';
import { EXCLUDED_MARK_KIND, EXCLUDED_WINDOW_TITLE } from '../../../src/shared/domain/privacy';
import { isAppError } from '../../../src/shared/errors';
import {
  getRecording,
  insertAxRecords,
  insertEvents,
  insertMark,
  insertVideo,
  insertWindows,
  listKeyframes,
} from '../../../src/store';
import { listUploads } from '../../../src/store/queries/uploads';
import { EventScript } from '../../pipeline/reduce/event-script';
import { blobsUnder, countIn, findLeaks, type Blob } from '../../helpers/leak-search';
import { tempLibrary } from '../../helpers/library';
import { makeRecording } from '../../helpers/store';
import { startSwift, type Swift } from '../../helpers/swift';
import { compareVideo, probe, rawFrame } from '../../helpers/video-frames';
import { createBucket, listObjects, rawClient, swiftTarget } from '../upload/helpers';

const CARD = '4111 1111 1111 1111';
const EMAIL = 'alice.smith@example.com';
const AWS_KEY = 'AKIAQ3EGRX7N5ZLW4HUT';
const GH_TOKEN = `ghp_${'R7xK2mQ9vL4nT8wZ3pY6sB1cF5hJ0dG2aE4u'}`;
/** Every redacted text (the card's digits-only form is searched for by the helper too). */
const SECRETS = [CARD, EMAIL, AWS_KEY, GH_TOKEN];
/** PII only the edit log keeps: a label relabelled since, and an undone label. */
const STRIPE_KEY = 'sk_live_4eC39HqLyjWDarjtT1zdp7dc';
const IBAN = 'DE89 3704 0044 0532 0130 00';
const LOG_ONLY = [STRIPE_KEY, IBAN];
const BUCKET = 'redact-upload';
const OPTS = { appVersion: '0.0.0-test' };
/** The video: 320×200 gray, 5 fps, 12 s. */
const W = 320;
const H = 200;
const FPS = 5;
const FRAMES = 60;
const BOX = { x: 40, y: 40, width: 60, height: 40 };
/** The excluded interval: from 100 ms before the last keyframe's frame (the last step's and
 * terminate's, on a still video) to the end. */
const EXCLUDED = { startMs: 0, endMs: 12_000 };

const t = tempLibrary();
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'cua-redact-swift-'));
let swift: Swift;
let client: S3Client;
let id = '';
let seq = 0;
/** Source frame of each keyframe image (steps, then terminate), chosen on the original. */
let keyframeFrames: number[] = [];
/** The box redaction's range (one keyframe's frame). */
let boxRange = { startMs: 0, endMs: 0 };
/** Every object of the bucket after the redacted upload. */
let objects: Blob[] = [];

const frameMs = (frame: number) => (frame * 1000) / FPS;

async function makeFixture(): Promise<void> {
  const rec = makeRecording(t.lib.db, {
    task: `Mail the receipt to ${EMAIL}`,
    durationMs: 12_000,
  });
  id = rec.id;
  seq = rec.seq;
  const s = new EventScript(1_000);
  s.moveTo(100, 100).click().wait(300);
  s.type(`card ${CARD}`, 40);
  s.wait(500).moveTo(300, 300).click().wait(300);
  s.type('thanks', 40);
  s.wait(500).moveTo(200, 150).click();
  insertEvents(t.lib.db, seq, s.events);
  insertWindows(t.lib.db, seq, [
    {
      tMs: 1_010,
      title: `Billing – ${AWS_KEY} – Console`,
      app: 'browser',
      pid: 1,
      bounds: null,
      windowId: '0x1',
    },
  ]);
  const node = (role: string, name: string, value: string | null, children: unknown[] = []) => ({
    role,
    name,
    ...(value === null ? {} : { value }),
    states: [],
    bounds: { x: 0, y: 0, width: 10, height: 10 },
    children,
  });
  insertAxRecords(t.lib.db, seq, [
    {
      tMs: 1_020,
      kind: 'window',
      source: 'atspi',
      x: null,
      y: null,
      nodeCount: 2,
      rootName: 'Console',
      treeJson: JSON.stringify(
        node('frame', 'Console', null, [node('text', 'Deploy token', GH_TOKEN)]),
      ),
      note: null,
    },
  ]);
  const videoPath = `recordings/${id}/screen.mp4`;
  fs.mkdirSync(path.dirname(t.lib.resolve(videoPath)), { recursive: true });
  execFileSync((await resolveFfmpeg()).path, [
    ...['-loglevel', 'error', '-f', 'lavfi', '-i', `color=c=gray:s=${W}x${H}:r=${FPS}:d=12`],
    ...['-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p'],
    t.lib.resolve(videoPath),
  ]);
  insertVideo(t.lib.db, seq, 0, {
    path: videoPath,
    width: W,
    height: H,
    fps: FPS,
    frameCount: FRAMES,
    durationMs: 12_000,
    startMs: 0,
    startMethod: 'test',
    codec: 'h264',
    sizeBytes: fs.statSync(t.lib.resolve(videoPath)).size,
    sha256: null,
  });
  reduceRecording(t.lib, id);
  await computeKeyframes(t.lib, id);
  const rows = listKeyframes(t.lib.db, seq);
  const steps = keyframeStaleness(t.lib, seq).steps;
  keyframeFrames = [...steps.map((st) => st.id), ':terminate'].map((k) => rows.get(k)!.frame!);
  // an excluded window came to the front after the last step (docs/privacy.md §2: its row
  // stores no title, app or pid; the mark marks the interval)
  EXCLUDED.startMs = frameMs(keyframeFrames.at(-1)!) - 100;
  insertWindows(t.lib.db, seq, [
    {
      tMs: EXCLUDED.startMs,
      title: EXCLUDED_WINDOW_TITLE,
      app: null,
      pid: null,
      bounds: null,
      windowId: '0x2',
    },
  ]);
  insertMark(t.lib.db, seq, {
    tMs: EXCLUDED.startMs,
    endMs: EXCLUDED.endMs,
    kind: EXCLUDED_MARK_KIND,
    data: { rule: 'app:KeePassXC', bounds: null },
  });
}

beforeAll(async () => {
  [swift] = await Promise.all([startSwift(), makeFixture()]);
  client = rawClient(swift);
  // a loaded machine's Swift can answer the first PUT with 503 SlowDown: try a few times
  for (let attempt = 1; ; attempt += 1) {
    try {
      await createBucket(client, BUCKET);
      break;
    } catch (e) {
      const status = (e as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
      if (status !== 503 || attempt === 5) {
        throw e;
      }
      await new Promise((r) => setTimeout(r, 500 * attempt));
    }
  }
}, 90_000);
afterAll(async () => {
  client?.destroy();
  await swift?.stop();
  t.cleanup();
  fs.rmSync(work, { recursive: true, force: true });
});

const queue = () =>
  new UploadQueue(t.lib, {
    openStore: (to: UploadTarget) =>
      new S3ObjectStore(to, { kind: 'static', credentials: swift.credentials }),
    engine: { appVersion: OPTS.appVersion, includeKeyframes: true },
  });

/** Every object under the bucket (any prefix): its bytes, plus its user metadata and the list of
 * keys as blobs of their own. */
async function downloadBucket(): Promise<Blob[]> {
  const keys = [...(await listObjects(client, BUCKET, '')).keys()];
  const out: Blob[] = [{ name: '(keys)', bytes: Buffer.from(keys.join('\n')) }];
  for (const key of keys) {
    const got = await client.send(new GetObjectCommand({ Bucket: BUCKET, Key: key }));
    out.push({ name: key, bytes: Buffer.from(await got.Body!.transformToByteArray()) });
    const head = await client.send(new HeadObjectCommand({ Bucket: BUCKET, Key: key }));
    out.push({
      name: `${key}#metadata`,
      bytes: Buffer.from(JSON.stringify({ ...head.Metadata, type: head.ContentType })),
    });
  }
  return out;
}

const objectNamed = (suffix: string): Blob => {
  const found = objects.filter((o) => o.name.endsWith(suffix));
  expect(found.map((o) => o.name)).toHaveLength(1);
  return found[0]!;
};

/** The characters the key-down rows of a dumped events table type, joined. */
function typedInDump(blob: Blob): string {
  return blob.bytes
    .toString('utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { kind: number; char: string | null; key: string | null })
    .filter((r) => RAW_EVENT_KINDS[r.kind] === 'keydown')
    .map((r) => (r.key === 'space' ? ' ' : (r.char ?? '')))
    .join('');
}

describe('redaction before an upload to Swift', { timeout: 120_000 }, () => {
  it('the scan finds the four texts; the excluded interval covers the last keyframes', () => {
    const { findings } = scanWithResolutions(t.lib, id);
    expect(findings.map((f) => [f.kind, f.source])).toEqual(
      expect.arrayContaining([
        ['card', 'typed'],
        ['email', 'task'],
        ['secret', 'window-title'],
        ['secret', 'accessibility'],
      ]),
    );
    expect(findings.every((f) => f.resolved === null)).toBe(true);
    // the excluded interval covers the last keyframes (terminate's among them), not the others
    expect(keyframeFrames.length).toBeGreaterThan(3);
    const excluded = keyframeFrames.filter((f) => frameMs(f) >= EXCLUDED.startMs);
    expect(excluded.length).toBeGreaterThan(0);
    expect(excluded.length).toBeLessThan(keyframeFrames.length - 1);
  });

  it('refuses upload and export while the card is unresolved: nothing queued, sent or written', async () => {
    await swift.settleLog();
    const before = swift.requests().length;
    const q = queue();
    let code = '';
    try {
      q.enqueue([id], { target: swiftTarget(swift, BUCKET, 'refused'), annotator: 'alice' });
    } catch (e) {
      code = isAppError(e) ? e.code : String(e);
    }
    expect(code).toBe('PII_UNRESOLVED');
    expect(listUploads(t.lib.db)).toHaveLength(0);
    await swift.settleLog();
    const writes = swift
      .requests()
      .slice(before)
      .filter((r) => r.method !== 'GET' && r.method !== 'HEAD' && !r.path.startsWith('/__settle'));
    expect(writes).toEqual([]);
    expect((await listObjects(client, BUCKET, '')).size).toBe(0);
    // the export too, writing nothing
    const outDir = path.join(work, 'refused');
    await expect(
      exportRecordings(t.lib, [id], { ...OPTS, format: 'agentnet-raw', outDir }),
    ).rejects.toMatchObject({ code: 'PII_UNRESOLVED' });
    expect(fs.existsSync(outDir)).toBe(false);
  });

  it('with allowPii the unredacted recording uploads, and the search finds every text', async () => {
    const q = queue();
    const [queued] = q.enqueue([id], {
      target: swiftTarget(swift, BUCKET, 'sub'),
      annotator: 'alice',
      allowPii: true,
    });
    const [outcome] = await q.run([queued!.uploadId]);
    expect(outcome).toMatchObject({ ok: true });
    const first = await downloadBucket();
    const found = findLeaks(first, SECRETS);
    for (const s of SECRETS) {
      expect(found.some((f) => f.includes(`: ${s} [`))).toBe(true);
    }
  });

  it('after redact-text edits and a box the upload replaces it without allowPii', async () => {
    const redacted = redactAllFindings(t.lib, id);
    expect(redacted.map((r) => r.placeholder).sort()).toEqual(
      expect.arrayContaining(['[CARD]', '[EMAIL]', '[SECRET]']),
    );
    expect(scanWithResolutions(t.lib, id).findings.every((f) => f.resolved === 'redacted')).toBe(
      true,
    );
    // PII only the edit log keeps (the scan reads what the edits make of the steps): a label
    // relabelled since, and an undone label
    const step = effectiveSteps(t.lib, seq)[1]!.id;
    applyEdit(t.lib, id, { op: 'relabel', stepId: step, label: `deploy key ${STRIPE_KEY}` });
    applyEdit(t.lib, id, { op: 'relabel', stepId: step, label: 'deploy' });
    applyEdit(t.lib, id, { op: 'relabel', stepId: step, label: `IBAN ${IBAN}` });
    undoLastEdit(t.lib, id);
    expect(scanWithResolutions(t.lib, id).findings.every((f) => f.resolved === 'redacted')).toBe(
      true,
    );
    // the box over the keyframe of step 0 (one source frame)
    const k0 = frameMs(keyframeFrames[0]!);
    boxRange = { startMs: k0 - 1, endMs: k0 + 1 };
    applyEdit(t.lib, id, { op: 'redact-box', stepId: null, ...boxRange, box: BOX });

    const q = queue();
    const [queued] = q.enqueue([id], {
      target: swiftTarget(swift, BUCKET, 'sub'),
      annotator: 'alice',
    });
    const [outcome] = await q.run([queued!.uploadId]);
    expect(outcome).toMatchObject({ ok: true });
    objects = await downloadBucket();
    const manifest = parseManifest(
      objectNamed(`/${MANIFEST_NAME}`).bytes.toString('utf8'),
      'manifest',
    );
    expect(manifest.pii).toBeUndefined();
    expect(manifest.task).toBe('Mail the receipt to [EMAIL]');
    // every file the manifest lists is in the bucket, and nothing else besides it (the earlier
    // submission's objects were replaced)
    const keys = objects.filter((o) => !o.name.startsWith('(') && !o.name.includes('#'));
    expect(keys).toHaveLength(manifest.files.length + 1);
    // and no unfinished multipart upload keeps parts on the server
    const pending = await client.send(new ListMultipartUploadsCommand({ Bucket: BUCKET }));
    expect(pending.Uploads ?? []).toEqual([]);
  });

  it('no uploaded byte holds a redacted text; the placeholders are where the texts were', () => {
    expect(objects.length).toBeGreaterThan(10);
    expect(findLeaks(objects, [...SECRETS, ...LOG_ONLY])).toEqual([]);
    // the search finds what is there (the card's digits-only form and an escaped address)
    const probeBlobs: Blob[] = [
      { name: 'a.json', bytes: Buffer.from(JSON.stringify({ x: 'n=4111111111111111;' })) },
      { name: 'b.bin', bytes: Buffer.from(`to ${EMAIL}`, 'utf16le') },
      { name: 'c.jsonl', bytes: Buffer.from(`{"v":"\\u0041KIAQ3EGRX7N5ZLW4HUT"}\n`) },
    ];
    expect(findLeaks(probeBlobs, SECRETS)).toHaveLength(3);

    // typed: the raw events dump and the agentnet events type the placeholder, code writes it
    expect(typedInDump(objectNamed('/raw/events.jsonl'))).toContain('card [CARD]');
    expect(countIn(objectNamed('/agentnet/agentnet.jsonl'), "write(message='card [CARD]')")).toBe(
      1,
    );
    expect(countIn(objectNamed('/steps/steps.json'), '[CARD]')).toBeGreaterThan(0);
    // task, window title, accessibility value
    expect(countIn(objectNamed('/raw/recording.json'), 'Mail the receipt to [EMAIL]')).toBe(1);
    expect(countIn(objectNamed('/raw/windows.jsonl'), 'Billing – [SECRET] – Console')).toBe(1);
    expect(countIn(objectNamed('/raw/ax_records.jsonl'), '[SECRET]')).toBe(1);
    expect(countIn(objectNamed('/task_name.json'), '[EMAIL]')).toBe(1);
    // the edit log keeps its rows, the texts only it holds masked
    const log = objectNamed('/steps/edits.jsonl');
    expect(countIn(log, 'deploy key [SECRET]')).toBe(1);
    expect(countIn(log, 'IBAN [IBAN]')).toBe(1);
    expect(countIn(log, '"op":"relabel"')).toBe(3);
    // the excluded interval leaves with its times, not its rule (which names the application)
    const marks = objectNamed('/raw/marks.jsonl').bytes.toString('utf8');
    expect(countIn(objectNamed('/raw/marks.jsonl'), '"kind":"excluded"')).toBe(1);
    expect(marks).not.toContain('KeePassXC');
    expect(findLeaks(objects, ['KeePassXC'])).toEqual([]);
  });

  it('the uploaded video keeps its frames; the box and the excluded interval are black', () => {
    const rec = getRecording(t.lib.db, id);
    const library = t.lib.resolve(rec.videos[0]!.path);
    const video = objectNamed('/video/screen.mp4');
    const file = path.join(work, 'uploaded.mp4');
    fs.writeFileSync(file, video.bytes);
    expect(video.bytes.equals(fs.readFileSync(library))).toBe(false);
    const frames = probe(file, 'frames');
    expect(frames).toEqual(probe(library, 'frames'));
    expect(frames.frames).toBe(FRAMES);

    const boxed = keyframeFrames[0]!;
    const inBox = compareVideo(rawFrame(file, boxed, W, H), rawFrame(library, boxed, W, H), W, BOX);
    expect(inBox.maxInside).toBeLessThanOrEqual(24);
    expect(inBox.equalInside).toBe(0);
    const later = boxed + 3; // after the box's range, before the excluded interval
    expect(frameMs(later)).toBeLessThan(EXCLUDED.startMs);
    expect(
      compareVideo(rawFrame(file, later, W, H), rawFrame(library, later, W, H), W, BOX).maxInside,
    ).toBeGreaterThan(60);
    // a frame in the excluded interval: black all over
    const excluded = Math.ceil((EXCLUDED.startMs * FPS) / 1000) + 2;
    expect(excluded).toBeLessThan(FRAMES);
    expect(rawFrame(file, excluded, W, H).reduce((m, b) => Math.max(m, b), 0)).toBeLessThanOrEqual(
      24,
    );
    expect(rawFrame(library, excluded, W, H).reduce((m, b) => Math.max(m, b), 0)).toBeGreaterThan(
      60,
    );

    // keyframes: black in the box in its range, black whole in the excluded interval
    const images = objects
      .filter((o) => /\/keyframes\/[^/]+_\d+\.png$/.test(o.name))
      .sort(
        (a, b) => Number(/_(\d+)\.png$/.exec(a.name)![1]) - Number(/_(\d+)\.png$/.exec(b.name)![1]),
      );
    expect(images).toHaveLength(keyframeFrames.length);
    for (const [k, img] of images.entries()) {
      const png = decodePng(img.bytes);
      const tMs = frameMs(keyframeFrames[k]!);
      const boxPixels: number[] = [];
      for (let y = BOX.y; y < BOX.y + BOX.height; y += 1) {
        const o = (y * png.width + BOX.x) * 3;
        boxPixels.push(...png.rgb.subarray(o, o + BOX.width * 3));
      }
      const maxBox = Math.max(...boxPixels);
      const maxAll = png.rgb.reduce((m, b) => Math.max(m, b), 0);
      if (tMs >= EXCLUDED.startMs) {
        expect(maxAll, `keyframe ${k}`).toBe(0);
      } else if (tMs >= boxRange.startMs && tMs <= boxRange.endMs) {
        expect(maxBox, `keyframe ${k}`).toBe(0);
        expect(maxAll, `keyframe ${k}`).toBeGreaterThan(60);
      } else {
        expect(maxBox, `keyframe ${k}`).toBeGreaterThan(60);
      }
    }
    // the stored (unredacted) keyframe PNGs stayed home
    const stored = [...listKeyframes(t.lib.db, seq).values()].map((r) => path.basename(r.path!));
    expect(objects.filter((o) => stored.includes(path.posix.basename(o.name)))).toEqual([]);
  });

  it('the local exports and an export to the bucket hold none of the texts, and the placeholders', async () => {
    const blobs: Blob[] = [];
    for (const format of ['agentnet-raw', 'agentnet-jsonl', 'standardized'] as const) {
      const outDir = path.join(work, format);
      await exportRecordings(t.lib, [id], { ...OPTS, format, outDir });
      blobs.push(...blobsUnder(outDir).map((b) => ({ ...b, name: `${format}/${b.name}` })));
    }
    expect(blobs.length).toBeGreaterThan(10);
    expect(findLeaks(blobs, [...SECRETS, ...LOG_ONLY])).toEqual([]);
    const named = (re: RegExp) => blobs.filter((b) => re.test(b.name));
    expect(named(/^agentnet-jsonl\/.*\.jsonl$/).some((b) => countIn(b, "'card [CARD]'") > 0)).toBe(
      true,
    );
    expect(named(/^agentnet-raw\/.*task_name\.json$/).some((b) => countIn(b, '[EMAIL]') > 0)).toBe(
      true,
    );
    // `export --out s3://` (the same export, sent to the bucket): none of the texts there either
    const store = new S3ObjectStore(swiftTarget(swift, BUCKET, 'exported'), {
      kind: 'static',
      credentials: swift.credentials,
    });
    try {
      await exportToStore(t.lib, [id], store, {
        ...OPTS,
        format: 'agentnet-jsonl',
        prefix: 'exported',
      });
    } finally {
      store.close();
    }
    const exported = (await downloadBucket()).filter((b) => b.name.startsWith('exported/'));
    expect(exported.filter((b) => b.name.endsWith('.png')).length).toBeGreaterThan(3);
    expect(findLeaks(exported, [...SECRETS, ...LOG_ONLY])).toEqual([]);
    expect(exported.some((b) => countIn(b, "'card [CARD]'") > 0)).toBe(true);
    // the raw folder's video is the redacted re-encode (same frame count)
    const [rawVideo] = named(/^agentnet-raw\/.*\.mp4$/);
    const file = path.join(work, 'exported.mp4');
    fs.writeFileSync(file, rawVideo!.bytes);
    expect(probe(file).frames).toBe(FRAMES);
  });
});
