// Registration of an uploaded bundle on S3 (OpenStack Swift's s3api on loopback) and PGlite
// (src/hub/review/submit.ts, docs/team-mode.md §9): each presigned PUT signs the manifest's MD5
// as Content-MD5, so the store refuses other bytes; with a job layer (every version's intake
// re-hashes its files) registration checks sizes and ETags from one listing and reads no file
// back (nor the manifest, when the app's copy has the stored one's size and MD5); a plan for a
// manifest made just now lists nothing; an object replaced behind the hub is read back and
// refused; a manifest whose MD5s and SHA-256s disagree registers and is refused by its intake,
// never reaching a reviewer. The app's PUT (src/services/team/submit.ts putFile) reports the
// store's refusal as INTEGRITY_FAILED.
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  findJobVersion,
  insertUser,
  openHubDb,
  setUserRoles,
  type HubDatabase,
} from '../../../src/hub/db';
import { createIntakeHandler, type IntakeResult } from '../../../src/hub/jobs/handlers';
import { JobRefused } from '../../../src/hub/jobs/types';
import { leaseNext } from '../../../src/hub/review/queue';
import { planUpload, registerUploaded } from '../../../src/hub/review/submit';
import { openHubStorage, type HubObjectStore } from '../../../src/hub/storage';
import {
  MANIFEST_NAME,
  manifestText,
  SUBMISSION_SCHEMA,
  type SubmissionManifest,
} from '../../../src/services/upload/manifest';
import { putFile } from '../../../src/services/team/submit';
import { startSwift, type Swift } from '../../helpers/swift';
import { createBucket, rawClient } from '../../services/upload/helpers';
import { testContext } from '../jobs/bundle-fixture';

const BUCKET = 'hub-verify';
let tmp: string;
let swift: Swift;
let hub: HubDatabase;
let store: HubObjectStore;
let annotator: { userId: number; name: string; client: string };
let reviewer: { userId: number; name: string; client: string };

const digest = (algorithm: 'md5' | 'sha256', b: Buffer | string) =>
  createHash(algorithm).update(b).digest('hex');

async function person(name: string, role: 'annotator' | 'reviewer') {
  const id = await insertUser(hub.db, { name, passwordHash: '$argon2id$test-not-a-hash' });
  await setUserRoles(hub.db, id!, [role]);
  return { userId: id!, name, client: 'cli' };
}

beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'hub-submit-verify-'));
  swift = await startSwift();
  await createBucket(rawClient(swift), BUCKET);
  hub = await openHubDb({ data: path.join(tmp, 'hub') });
  store = await openHubStorage({
    url: `s3://${BUCKET}/team`,
    endpoint: swift.endpoint,
    region: swift.region,
    pathStyle: true,
    auth: { kind: 'static', credentials: swift.credentials },
  });
  annotator = await person('ann', 'annotator');
  reviewer = await person('rev', 'reviewer');
}, 120_000);

afterAll(async () => {
  await store?.close();
  await hub?.close();
  await swift?.stop();
  await rm(tmp, { recursive: true, force: true });
});

type Files = Record<string, Buffer>;

// a bundle's manifest; `described` are the bytes its SHA-256s describe (default: the files)
function manifestOf(recordingId: string, files: Files, described: Files = files): string {
  const manifest: SubmissionManifest = {
    schema: SUBMISSION_SCHEMA,
    schemaVersion: 1,
    recordingId,
    episodeId: `ep-${recordingId}`,
    task: 'open the settings',
    platform: { os: 'linux' } as SubmissionManifest['platform'],
    toolVersion: '0.0.0-test',
    librarySchemaVersion: 1,
    annotator: annotator.name,
    createdAt: '2026-01-01T00:00:00.000Z',
    submittedAt: new Date().toISOString(),
    stepCount: 1,
    files: Object.entries(files).map(([p, b]) => ({
      path: p,
      sizeBytes: b.length,
      sha256: digest('sha256', described[p]!),
      md5: digest('md5', b),
      role: 'file' as const,
    })),
    totals: {
      files: Object.keys(files).length,
      bytes: Object.values(files).reduce((n, b) => n + b.length, 0),
    },
  };
  return manifestText(manifest);
}

const someFiles = (): Files => ({
  'video.mp4': randomBytes(40_000),
  'raw/events.jsonl': randomBytes(3_000),
});

// what `submit` does: plan, then PUT each file to its URL with the headers given; the statuses
async function upload(text: string, files: Files, body = (p: string) => files[p]!) {
  const plan = await planUpload(store, { annotator, manifestText: text });
  const statuses: Record<string, number> = {};
  for (const u of plan.uploads) {
    const res = await fetch(u.request.url, {
      method: 'PUT',
      headers: u.request.headers,
      body: u.path === MANIFEST_NAME ? text : body(u.path),
    });
    statuses[u.path] = res.status;
    await res.text();
  }
  return { plan, statuses };
}

// the store, with the keys it was asked to read whole and the prefixes it was asked to list
function countingGets(inner: HubObjectStore): {
  store: HubObjectStore;
  gets: string[];
  lists: string[];
} {
  const gets: string[] = [];
  const lists: string[] = [];
  const store = new Proxy(inner, {
    get(target, prop, receiver) {
      if (prop === 'get') {
        return async (key: string) => {
          gets.push(key.slice(key.lastIndexOf('/') + 1));
          return await target.get(key);
        };
      }
      if (prop === 'list') {
        return (prefix: string) => {
          lists.push(prefix);
          return target.list(prefix);
        };
      }
      const value = Reflect.get(target, prop, receiver) as unknown;
      return typeof value === 'function' ? (value as () => unknown).bind(target) : value;
    },
  });
  return { store, gets, lists };
}

describe('registering a submission on S3 (Swift s3api)', () => {
  it('each presigned PUT signs the manifest’s MD5 as Content-MD5: other bytes of the same size are refused by the store (BadDigest) and nothing registers', async () => {
    const files = someFiles();
    const text = manifestOf('rec-digest', files);
    const { plan, statuses } = await upload(text, files, (p) =>
      p === 'video.mp4' ? randomBytes(files[p]!.length) : files[p]!,
    );
    const video = plan.uploads.find((u) => u.path === 'video.mp4')!;
    expect(video.request.headers['content-md5']).toBe(
      createHash('md5').update(files['video.mp4']!).digest('base64'),
    );
    expect(statuses).toEqual({ 'video.mp4': 400, 'raw/events.jsonl': 200, [MANIFEST_NAME]: 200 });
    await expect(
      registerUploaded(hub.db, store, {
        annotator,
        recordingId: 'rec-digest',
        manifestSha256: plan.manifestSha256,
        awaitIntake: true,
      }),
    ).rejects.toMatchObject({
      code: 'INTEGRITY_FAILED',
      details: { problems: [{ path: 'video.mp4', problem: 'missing' }] },
    });
    // the app reports the refusal as the file's integrity, not as an unreachable store
    const file = path.join(tmp, 'video.mp4');
    await writeFile(file, randomBytes(files['video.mp4']!.length));
    await expect(putFile(video, { file })).rejects.toMatchObject({
      code: 'INTEGRITY_FAILED',
      message: expect.stringContaining('video.mp4') as string,
      details: { problems: [{ path: 'video.mp4', problem: 'md5' }] },
    });
    // the right bytes to the same URL are taken; then it registers
    const res = await fetch(video.request.url, {
      method: 'PUT',
      headers: video.request.headers,
      body: files['video.mp4'],
    });
    expect(res.status).toBe(200);
    const r = await registerUploaded(hub.db, store, {
      annotator,
      recordingId: 'rec-digest',
      manifestSha256: plan.manifestSha256,
      awaitIntake: true,
    });
    expect(r).toMatchObject({ version: 1, status: 'intake', isNew: true });
  });

  it('with a job layer registration reads no file back (sizes and ETags from one listing; the manifest alone is read); without one every file is read for its SHA-256', async () => {
    const counted = countingGets(store);
    const files = someFiles();
    const text = manifestOf('rec-quick', files);
    const { plan } = await upload(text, files);
    const r = await registerUploaded(hub.db, counted.store, {
      annotator,
      recordingId: 'rec-quick',
      manifestSha256: plan.manifestSha256,
      awaitIntake: true,
    });
    expect(r).toMatchObject({ version: 1, status: 'intake', isNew: true });
    expect(counted.gets).toEqual([MANIFEST_NAME]);
    // the manifest's text as the app sent it, matching the stored one's size and MD5: nothing
    // is read back (the same bytes again: the same version)
    counted.gets.length = 0;
    const again = await registerUploaded(hub.db, counted.store, {
      annotator,
      recordingId: 'rec-quick',
      manifestSha256: plan.manifestSha256,
      awaitIntake: true,
      manifestText: text,
    });
    expect(again).toMatchObject({ submissionId: r.submissionId, version: 1, isNew: false });
    expect(counted.gets).toEqual([]);
    // a text that is not the stored manifest is not taken: the stored one is read
    await registerUploaded(hub.db, counted.store, {
      annotator,
      recordingId: 'rec-quick',
      manifestSha256: plan.manifestSha256,
      awaitIntake: true,
      manifestText: text.replace('open the settings', 'open the settingz'),
    });
    expect(counted.gets).toEqual([MANIFEST_NAME]);
    // no job layer: registration is the only check, every SHA-256 is read back
    counted.gets.length = 0;
    const other = someFiles();
    const text2 = manifestOf('rec-full', other);
    const second = await upload(text2, other);
    await registerUploaded(hub.db, counted.store, {
      annotator,
      recordingId: 'rec-full',
      manifestSha256: second.plan.manifestSha256,
    });
    expect(counted.gets.sort()).toEqual([MANIFEST_NAME, 'events.jsonl', 'video.mp4'].sort());
  });

  it('a plan for a manifest made just now (fresh) lists nothing and hands out every file; a resumed plan lists the prefix once and sends only what is missing', async () => {
    const counted = countingGets(store);
    const files = someFiles();
    const text = manifestOf('rec-fresh', files);
    const fresh = await planUpload(counted.store, { annotator, manifestText: text, fresh: true });
    expect(counted.lists).toEqual([]);
    expect(fresh.uploads.map((u) => u.path)).toEqual([
      'video.mp4',
      'raw/events.jsonl',
      MANIFEST_NAME,
    ]);
    const video = fresh.uploads[0]!;
    const res = await fetch(video.request.url, {
      method: 'PUT',
      headers: video.request.headers,
      body: files['video.mp4'],
    });
    expect(res.status).toBe(200);
    const resumed = await planUpload(counted.store, { annotator, manifestText: text });
    expect(counted.lists).toEqual([`${fresh.prefix}/`]);
    expect(resumed.uploads.map((u) => u.path)).toEqual(['raw/events.jsonl', MANIFEST_NAME]);
  });

  it('an object replaced behind the hub (other bytes, the same size) has another ETag: it is read back and refused (sha256)', async () => {
    const files = someFiles();
    const text = manifestOf('rec-swapped', files);
    const { plan } = await upload(text, files);
    await store.put(`${plan.prefix}/raw/events.jsonl`, randomBytes(3_000));
    await expect(
      registerUploaded(hub.db, store, {
        annotator,
        recordingId: 'rec-swapped',
        manifestSha256: plan.manifestSha256,
        awaitIntake: true,
      }),
    ).rejects.toMatchObject({
      code: 'INTEGRITY_FAILED',
      details: { problems: [{ path: 'raw/events.jsonl', problem: 'sha256' }] },
    });
  });

  it('a manifest whose MD5s and SHA-256s describe different bytes registers, and its intake refuses it (sha256): no reviewer gets it', async () => {
    const files = someFiles();
    const described = { ...files, 'video.mp4': randomBytes(files['video.mp4']!.length) };
    const text = manifestOf('rec-liar', files, described);
    const { plan, statuses } = await upload(text, files);
    expect(Object.values(statuses)).toEqual([200, 200, 200]);
    const r = await registerUploaded(hub.db, store, {
      annotator,
      recordingId: 'rec-liar',
      manifestSha256: plan.manifestSha256,
      awaitIntake: true,
    });
    expect(r).toMatchObject({ status: 'intake', isNew: true });
    const intake = createIntakeHandler({ db: hub.db, store });
    let refused: unknown = null;
    try {
      await intake(
        { submissionId: r.submissionId, version: r.version },
        testContext(`intake:${r.submissionId}@${r.version}`),
      );
    } catch (e) {
      refused = e;
    }
    expect(refused).toBeInstanceOf(JobRefused);
    const result = (refused as JobRefused).details.intake as IntakeResult;
    expect(result.reasons[0]).toMatchObject({ code: 'INTEGRITY_FAILED' });
    expect(result.integrity!.problems).toEqual([
      expect.objectContaining({ path: 'video.mp4', problem: 'sha256' }),
    ]);
    expect(await findJobVersion(hub.db, r.submissionId, r.version)).toMatchObject({
      status: 'intake-failed',
      intakeStatus: 'failed',
    });
    // the queue holds only the version registered without a job layer (the others wait for
    // their intake, or failed it)
    expect(await leaseNext(hub.db, reviewer)).toMatchObject({ recordingId: 'rec-full' });
    expect(await leaseNext(hub.db, await person('rev2', 'reviewer'))).toBeNull();
  });
});
