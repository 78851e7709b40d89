// The hub's submissions and review methods over HTTP (docs/team-mode.md §13) on PGlite with the
// folder object store mounted by the hub: a bundle registered before its files arrived is refused
// (422 INTEGRITY_FAILED naming them) and nothing registers; the files PUT through the hub's
// presigned URLs, then it registers; each annotator lists only their own; an admin reassigns a
// waiting submission to a reviewer, whose review:next hands it back with presigned GETs that
// return the very bytes; a verdict on another version is 409 HUB_LEASE_NOT_HELD.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addUser, localActor } from '../../../src/hub/accounts/accounts';
import { createApiToken } from '../../../src/hub/auth/tokens';
import { findUserByName } from '../../../src/hub/db';
import { openHubStorage, type HubObjectStore } from '../../../src/hub/storage';
import { testBundle } from '../../helpers/hub-bundle';
import { startHubFixture, type HubFixture } from './hub-fixture';

let hub: HubFixture;
let store: HubObjectStore;
let storeDir: string;

function bundle(recordingId: string) {
  return testBundle({
    recordingId,
    annotator: 'ann',
    files: {
      'video/screen.mp4': randomBytes(40_000),
      'steps/steps.json': Buffer.from('[{"step":1}]\n'),
    },
  });
}

type Transfer = {
  path: string;
  request: { url: string; headers: Record<string, string> };
};

async function tokenOf(name: string): Promise<string> {
  const user = await findUserByName(hub.hub.db, name);
  return (
    await createApiToken(hub.hub.db, {
      userId: user!.id,
      userName: name,
      name: 'test',
      by: localActor('cli'),
    })
  ).token;
}

beforeAll(async () => {
  storeDir = await mkdtemp(path.join(os.tmpdir(), 'hub-review-http-'));
  store = await openHubStorage({ data: storeDir });
  hub = await startHubFixture({ store });
  await addUser(hub.hub.db, { name: 'ann2', roles: ['annotator'], by: localActor('cli') });
}, 120_000);

afterAll(async () => {
  await hub?.close();
  await store?.close();
  await rm(storeDir, { recursive: true, force: true });
});

describe('submissions and review over HTTP (folder store)', () => {
  it('register is refused until the files are in the store; then each annotator sees only their own; an admin reassigns; the reviewer downloads the bytes; a verdict on another version is refused', async () => {
    const ann = await hub.token('annotator');
    const b = bundle('rec-http-1');

    const plan = await hub.call('submissions:plan-upload', { manifest: b.text }, { token: ann });
    expect(plan.status).toBe(200);
    expect(plan.body.value.uploads.map((u: Transfer) => u.path)).toEqual([
      'video/screen.mp4',
      'steps/steps.json',
      'manifest.json',
    ]);
    const claim = { recording: 'rec-http-1', manifestSha256: plan.body.value.manifestSha256 };

    // nothing sent yet: refused, naming what is missing, nothing registered
    const early = await hub.call('submissions:register', claim, { token: ann });
    expect(early.status).toBe(422);
    expect(early.body.error?.code).toBe('INTEGRITY_FAILED');
    expect((await hub.call('submissions:mine', {}, { token: ann })).body.value).toEqual({
      submissions: [],
    });

    for (const u of plan.body.value.uploads as Transfer[]) {
      const res = await fetch(u.request.url, {
        method: 'PUT',
        headers: u.request.headers,
        body: b.files[u.path],
      });
      expect(res.status, u.path).toBe(200);
    }
    const registered = await hub.call('submissions:register', claim, { token: ann });
    expect(registered.body).toEqual({
      ok: true,
      value: {
        id: expect.any(Number),
        recording: 'rec-http-1',
        version: 1,
        status: 'submitted',
        isNew: true,
      },
    });
    const id = registered.body.value.id as number;

    const mine = await hub.call('submissions:mine', {}, { token: ann });
    expect(mine.body.value.submissions).toMatchObject([
      { id, recording: 'rec-http-1', version: 1, status: 'submitted', reviewer: null },
    ]);
    const other = await hub.call('submissions:mine', {}, { token: await tokenOf('ann2') });
    expect(other.body.value).toEqual({ submissions: [] });

    // only reviewers take reviews
    const adm = await hub.call(
      'review:reassign',
      { id, reviewer: 'ann2' },
      {
        token: await hub.token('admin'),
      },
    );
    expect(adm.status).toBe(400);
    const reassigned = await hub.call(
      'review:reassign',
      { id, reviewer: 'rev' },
      {
        token: await hub.token('admin'),
      },
    );
    expect(reassigned.body.value).toMatchObject({ id, reviewer: 'rev', version: 1 });

    const rev = await hub.token('reviewer');
    const next = await hub.call('review:next', {}, { token: rev });
    const leased = next.body.value.submission;
    expect(leased).toMatchObject({
      id,
      recording: 'rec-http-1',
      annotator: 'ann',
      version: 1,
      isResumed: true,
      manifestSha256: claim.manifestSha256,
    });
    expect(leased.files.map((f: Transfer) => f.path)).toEqual([
      'manifest.json',
      'video/screen.mp4',
      'steps/steps.json',
    ]);
    for (const f of leased.files as Transfer[]) {
      const got = Buffer.from(await (await fetch(f.request.url)).arrayBuffer());
      expect(got.equals(b.files[f.path]!), f.path).toBe(true);
    }

    const wrong = await hub.call(
      'review:verdict',
      { id, version: 2, verdict: 'accept', grade: 'good' },
      { token: rev },
    );
    expect(wrong.status).toBe(409);
    expect(wrong.body.error?.code).toBe('HUB_LEASE_NOT_HELD');
    const done = await hub.call(
      'review:verdict',
      { id, version: 1, verdict: 'reject', grade: 'ok', feedback: 'not the task' },
      { token: rev },
    );
    expect(done.body.value).toEqual({ id, version: 1, status: 'rejected' });
    // a rejected submission is final: the same recording takes no new version
    const b2 = bundle('rec-http-1');
    const plan2 = await hub.call('submissions:plan-upload', { manifest: b2.text }, { token: ann });
    for (const u of plan2.body.value.uploads as Transfer[]) {
      await fetch(u.request.url, {
        method: 'PUT',
        headers: u.request.headers,
        body: b2.files[u.path],
      });
    }
    const late = await hub.call(
      'submissions:register',
      { recording: 'rec-http-1', manifestSha256: plan2.body.value.manifestSha256 },
      { token: ann },
    );
    expect(late.status).toBe(409);
    expect(late.body.error?.code).toBe('INVALID_STATE');
  });
});
