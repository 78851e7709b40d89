// Stored keyframes as an artefact (docs/keyframes.md §8): computed by the job runner after an
// import without anyone asking, reused by export and the upload bundle without decoding the video
// again, recomputed only where stale. Real library (SQLite), the example recording, real ffmpeg
// behind a wrapper that counts the decoding processes (those writing raw RGB frames). Each test
// takes seconds on an idle machine; the limits allow for a heavily shared one.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveFfmpeg } from '../../../src/infra/ffmpeg/binary';
import { createServices, type Services } from '../../../src/services/create-services';
import { applyEdit } from '../../../src/services/edits/edit-service';
import { runExport } from '../../../src/services/export/export-service';
import { importAgentNetFolder } from '../../../src/services/import/agentnet-import';
import { getRecordingDto } from '../../../src/services/review-service';
import { TERMINATE_KEYFRAME_ID } from '../../../src/services/keyframes/keyframes';
import { buildBundle } from '../../../src/services/upload/bundle';
import type { ApiEvent, KeyframesProgressDto } from '../../../src/shared/contract';
import { listKeyframes, listSteps, replaceSteps, resolveRecordingSeq } from '../../../src/store';
import { tempLibrary } from '../../helpers/library';
import { FIXTURE_DIR } from '../../helpers/paths';
import { makeRecording } from '../../helpers/store';

const APP = { appVersion: '0.0.0-test' };
const t = tempLibrary();
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'cua-kfjobs-'));
const countFile = path.join(work, 'decodes.log');
const events: [ApiEvent, unknown][] = [];
let services: Services;
let binaries: { ffmpegPath: string; ffprobePath: string | null };
let id = '';

/** ffmpeg processes that decoded frames to raw RGB so far. */
const decodes = (): number =>
  fs.existsSync(countFile) ? fs.readFileSync(countFile, 'utf8').split('\n').length - 1 : 0;

const progressOf = (recordingId: string): KeyframesProgressDto[] =>
  events
    .filter(([e]) => e === 'keyframes:progress')
    .map(([, p]) => p as KeyframesProgressDto)
    .filter((p) => p.recordingId === recordingId);

const treeOf = (dir: string): Map<string, Buffer> =>
  new Map(
    fs
      .readdirSync(dir, { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => {
        const full = path.join(e.parentPath, e.name);
        return [path.relative(dir, full), fs.readFileSync(full)] as const;
      }),
  );

beforeAll(async () => {
  const real = await resolveFfmpeg();
  const wrapper = path.join(work, 'ffmpeg');
  fs.writeFileSync(
    wrapper,
    `#!/bin/sh\ncase "$*" in *rawvideo*) echo decode >> '${countFile}' ;; esac\nexec '${real.path}' "$@"\n`,
    { mode: 0o755 },
  );
  binaries = { ffmpegPath: wrapper, ffprobePath: real.ffprobePath };
  services = createServices(t.lib, {
    ...APP,
    emit: (event, payload) => events.push([event, payload]),
    log: () => undefined,
    keyframeJobs: binaries,
  });
});
afterAll(async () => {
  await services.close();
  t.cleanup();
  fs.rmSync(work, { recursive: true, force: true });
});

describe('keyframe jobs', () => {
  it('computes and stores the keyframes after an import, without a request', async () => {
    id = (
      await importAgentNetFolder(t.lib, FIXTURE_DIR, { ...APP, keyframes: services.keyframeJobs })
    ).id;
    expect(services.keyframeJobs.isPending(id)).toBe(true);
    await services.keyframeJobs.idle();
    expect(progressOf(id).map((p) => p.phase)).toEqual(['queued', 'decoding', 'storing', 'done']);
    expect(progressOf(id).at(-1)?.steps).toBe(14);
    expect(events).toContainEqual(['recordings:changed', { id }]);
    const rows = listKeyframes(t.lib.db, resolveRecordingSeq(t.lib.db, id).seq);
    expect(rows.size).toBe(15); // 14 steps + terminate
    expect(rows.get(TERMINATE_KEYFRAME_ID)?.frame).toBe(3479); // docs/keyframes.md §5
    expect([...rows.values()].every((r) => r.path !== null)).toBe(true);
    expect(decodes()).toBeGreaterThan(0);
    // the reviewer's page shows them at once
    const dto = getRecordingDto(t.lib, id, services.context);
    expect(dto.steps.every((s) => s.keyframeUrl !== null)).toBe(true);
    // nothing is left to do when the page opens
    expect(services.keyframeJobs.ensure(id)).toBe(false);
  }, 300_000);

  it('export and the upload bundle reuse fresh keyframes: no decode, the same bytes', async () => {
    const before = decodes();
    const stored = path.join(work, 'out-stored');
    const run = await runExport(t.lib, [id], {
      ...APP,
      ...binaries,
      format: 'agentnet-jsonl',
      outDir: stored,
    });
    expect(decodes()).toBe(before);
    const stage = path.join(t.dir, 'uploads', 'test-stage');
    const bundle = await buildBundle(t.lib, id, stage, { ...APP, ...binaries });
    expect(decodes()).toBe(before);

    // the same export from a library without stored keyframes decodes, and matches byte for byte
    const other = tempLibrary();
    try {
      const otherId = (await importAgentNetFolder(other.lib, FIXTURE_DIR, APP)).id;
      const decoded = path.join(work, 'out-decoded');
      const otherRun = await runExport(other.lib, [otherId], {
        ...APP,
        ...binaries,
        format: 'agentnet-jsonl',
        outDir: decoded,
      });
      expect(decodes()).toBeGreaterThan(before);
      expect(run.recordings[0]?.warnings).toEqual(otherRun.recordings[0]?.warnings);
      const a = treeOf(stored);
      const b = treeOf(decoded);
      expect([...a.keys()].sort()).toEqual([...b.keys()].sort());
      expect(a.size).toBe(15 + 2); // images, agentnet.jsonl, cot-input
      for (const [rel, bytes] of a) {
        expect(bytes.equals(b.get(rel)!), rel).toBe(true);
      }
      // the bundle holds the same images and index, written straight into its folder
      const keys = bundle.files.map((f) => f.relKey);
      const images = [...a.keys()].filter((k) => k.startsWith('images/'));
      for (const rel of images) {
        const key = `keyframes/${path.basename(rel)}`;
        expect(keys).toContain(key);
        expect(fs.readFileSync(path.join(stage, key)).equals(a.get(rel)!), key).toBe(true);
      }
      expect(fs.readFileSync(path.join(stage, 'agentnet/agentnet.jsonl'))).toEqual(
        a.get('agentnet.jsonl'),
      );
      expect(keys).toContain('agentnet/win10-display-settings/reduced_events_complete.jsonl');
      expect(keys.filter((k) => k.startsWith('agentnet/') && k.endsWith('.mp4'))).toEqual([]);
      expect(
        fs.readdirSync(stage).filter((n) => n.startsWith('.') && n !== '.bundle.json'),
      ).toEqual([]);
    } finally {
      other.cleanup();
    }
  }, 300_000);

  it('recomputes a stale set (only its stale steps) and leaves a fresh one alone', async () => {
    const { seq } = resolveRecordingSeq(t.lib.db, id);
    let before = decodes();
    const fresh = await services.keyframeJobs.enqueue(id);
    expect(fresh.state === 'done' && fresh.result.steps).toBe(0);
    expect(decodes()).toBe(before);

    // a changed action gives step 1 a new keyframe search: stale
    applyEdit(t.lib, id, {
      op: 'set-action',
      stepId: 'agentnet:1',
      calls: [{ name: 'write', args: { message: 'night light' } }],
    });
    const computedAt = listKeyframes(t.lib.db, seq).get('agentnet:2')?.computedAtMs;
    // an export now decodes the video (the stored set is not used while one keyframe is stale)
    await runExport(t.lib, [id], {
      ...APP,
      ...binaries,
      format: 'standardized',
      outDir: path.join(work, 'out-stale'),
    });
    expect(decodes()).toBeGreaterThan(before);
    before = decodes();
    const stale = await services.keyframeJobs.enqueue(id);
    expect(stale.state === 'done' && stale.result.steps).toBe(1);
    expect(decodes()).toBeGreaterThan(before);
    const rows = listKeyframes(t.lib.db, seq);
    expect(rows.get('agentnet:2')?.computedAtMs).toBe(computedAt); // kept, not recomputed
    expect(rows.get('agentnet:1')?.source).toBe('pre-press'); // typing: case B now
    // fresh again: the next export decodes nothing
    before = decodes();
    await runExport(t.lib, [id], {
      ...APP,
      ...binaries,
      format: 'standardized',
      outDir: path.join(work, 'out-fresh'),
    });
    expect(decodes()).toBe(before);
  }, 300_000);

  it('stores and emits a failure, does not retry it on open, and cancels a running job', async () => {
    // a recording with steps but no video
    const broken = makeRecording(t.lib.db);
    replaceSteps(
      t.lib.db,
      broken.seq,
      listSteps(t.lib.db, resolveRecordingSeq(t.lib.db, id).seq),
      'test',
    );
    // a refresh has nothing to do there; "Recompute" fails and says why
    const quiet = await services.keyframeJobs.enqueue(broken.id);
    expect(quiet.state === 'done' && quiet.result.steps).toBe(0);
    const failed = await services.keyframeJobs.enqueue(broken.id, { recompute: true });
    expect(failed.state === 'failed' && failed.error.code).toBe('NOT_FOUND');
    expect(services.keyframeJobs.lastError(broken.id)?.code).toBe('NOT_FOUND');
    const last = progressOf(broken.id).at(-1);
    expect(last?.phase).toBe('failed');
    expect(last?.error?.code).toBe('NOT_FOUND');
    expect(services.keyframeJobs.ensure(broken.id)).toBe(false);

    // "Recompute" of the good one, cancelled while it decodes: the stored rows stay
    const { seq } = resolveRecordingSeq(t.lib.db, id);
    const rowsBefore = listKeyframes(t.lib.db, seq);
    const job = services.keyframeJobs.enqueue(id, { recompute: true });
    while (progressOf(id).at(-1)?.phase !== 'decoding') {
      await new Promise((r) => setTimeout(r, 5));
    }
    services.keyframeJobs.cancel(id);
    expect((await job).state).toBe('cancelled');
    expect(progressOf(id).at(-1)?.phase).toBe('cancelled');
    expect(listKeyframes(t.lib.db, seq)).toEqual(rowsBefore);
  }, 300_000);
});
