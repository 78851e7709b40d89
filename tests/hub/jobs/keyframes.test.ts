// The keyframes job's handler, run directly on PGlite and the folder store: a bundle made from
// a library whose keyframes were never computed (as an import leaves it) passes intake with
// needsKeyframes and enqueues `keyframes`; the job decodes the video in a scratch library and
// writes the images beside the version's objects (derived/keyframes/), each listed with its size
// and SHA-256 on the version's row; a rerun returns that record; a bundle with fresh keyframes
// is left as it is.
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
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
import { createIntakeHandler, createKeyframesHandler } from '../../../src/hub/jobs/handlers';
import { FolderObjectStore } from '../../../src/hub/storage';
import {
  bundleTemplate,
  makeBundle,
  submitBundle,
  testContext,
  type BundleTemplate,
} from './bundle-fixture';

let dir: string;
let hub: HubDatabase;
let store: FolderObjectStore;
let bare: BundleTemplate;
let fresh: BundleTemplate;
let annotator: { userId: number; name: string };

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'hub-keyframes-'));
  hub = await openHubDb({ data: path.join(dir, 'hub') });
  // the example's 10-second clip: the job decodes its video (3 keyframe images, not 15)
  bare = await bundleTemplate({ keyframes: false, clip: true });
  fresh = await bundleTemplate({ clip: true });
  store = new FolderObjectStore({ dir: path.join(dir, 'objects'), secret: randomBytes(32) });
  const id = await insertUser(hub.db, { name: 'ann', passwordHash: '$argon2id$test-not-a-hash' });
  await setUserRoles(hub.db, id!, ['annotator']);
  annotator = { userId: id!, name: 'ann' };
}, 300_000);

afterAll(async () => {
  await hub?.close();
  bare?.cleanup();
  fresh?.cleanup();
  await rm(dir, { recursive: true, force: true });
});

describe('keyframes', () => {
  it('computes missing keyframes into the store beside the version, once', async () => {
    const enqueued: { name: string; key: string }[] = [];
    const deps = {
      db: hub.db,
      store,
      enqueue: (name: string, _p: unknown, o: { key: string }) => {
        enqueued.push({ name, key: o.key });
        return Promise.resolve();
      },
    };
    const r = await submitBundle(
      hub.db,
      store,
      await makeBundle(bare, { annotator: 'ann' }),
      annotator,
      {
        awaitIntake: true,
      },
    );
    const p = { submissionId: r.submissionId, version: r.version };
    const intake = await createIntakeHandler(deps)(p, testContext('intake'));
    expect(intake).toMatchObject({ status: 'passed', needsKeyframes: true });
    expect(enqueued).toEqual([{ name: 'keyframes', key: `keyframes:${r.submissionId}@1` }]);

    const keyframes = createKeyframesHandler(deps);
    const out = await keyframes(p, testContext(enqueued[0]!.key));
    expect(out.outcome).toBe('computed');
    expect(out.files).toHaveLength(3); // 2 steps and terminate
    const v = await findJobVersion(hub.db, r.submissionId, r.version);
    for (const f of out.files) {
      expect(f.path).toMatch(/^derived\/keyframes\/.+\.png$/);
      const body = await readFile(path.join(dir, 'objects', v!.objectPrefix, f.path));
      expect(body.length).toBe(f.sizeBytes);
      expect(createHash('sha256').update(body).digest('hex')).toBe(f.sha256);
    }
    expect(v!.keyframes).toEqual(out);
    // the same key again: the stored record, nothing decoded
    const started = Date.now();
    expect(await keyframes(p, testContext(enqueued[0]!.key))).toEqual(out);
    expect(Date.now() - started).toBeLessThan(2000);
  }, 240_000);

  it('leaves a bundle whose keyframes are fresh as it is', async () => {
    const r = await submitBundle(
      hub.db,
      store,
      await makeBundle(fresh, { annotator: 'ann' }),
      annotator,
    );
    const out = await createKeyframesHandler({ db: hub.db, store })(
      { submissionId: r.submissionId, version: r.version },
      testContext('k'),
    );
    expect(out).toMatchObject({ outcome: 'fresh', files: [] });
    expect((await findJobVersion(hub.db, r.submissionId, r.version))!.keyframes).toBeNull();
  }, 120_000);
});
