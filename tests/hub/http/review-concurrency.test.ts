// Issue 27's concurrency item through the hub's HTTP API on PostgreSQL (a pool of connections,
// so the requests really run at once): 20 reviewers calling review:next at the same time on 10
// waiting submissions → each submission leased exactly once, 10 reviewers told nothing waits;
// a lease that expires goes back to the queue and another reviewer gets it.
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
import { startPostgres, type Postgres } from '../../helpers/postgres';
import { startHubFixture, type HubFixture } from './hub-fixture';

let pg: Postgres;
let hub: HubFixture;
let store: HubObjectStore;
let storeDir: string;
const reviewers: string[] = [];

type Transfer = { path: string; request: { url: string; headers: Record<string, string> } };

function bundle(recordingId: string) {
  return testBundle({
    recordingId,
    annotator: 'ann',
    files: { 'steps/steps.json': randomBytes(2_000) },
  });
}

async function submit(token: string, recordingId: string): Promise<number> {
  const b = bundle(recordingId);
  const plan = await hub.call('submissions:plan-upload', { manifest: b.text }, { token });
  for (const u of plan.body.value.uploads as Transfer[]) {
    const res = await fetch(u.request.url, {
      method: 'PUT',
      headers: u.request.headers,
      body: b.files[u.path],
    });
    expect(res.status).toBe(200);
  }
  const r = await hub.call(
    'submissions:register',
    { recording: recordingId, manifestSha256: plan.body.value.manifestSha256 },
    { token },
  );
  expect(r.status).toBe(200);
  return r.body.value.id as number;
}

beforeAll(async () => {
  pg = await startPostgres();
  storeDir = await mkdtemp(path.join(os.tmpdir(), 'hub-review-concurrency-'));
  store = await openHubStorage({ data: storeDir });
  hub = await startHubFixture({ target: { url: await pg.createDatabase() }, store });
  const by = localActor('cli');
  for (let i = 1; i <= 20; i += 1) {
    const name = `r${String(i).padStart(2, '0')}`;
    await addUser(hub.hub.db, { name, roles: ['reviewer'], by });
    const user = await findUserByName(hub.hub.db, name);
    reviewers.push(
      (await createApiToken(hub.hub.db, { userId: user!.id, userName: name, name: 't', by })).token,
    );
  }
}, 120_000);

afterAll(async () => {
  await hub?.close();
  await store?.close();
  await pg?.stop();
  await rm(storeDir, { recursive: true, force: true });
});

describe('review:next under concurrency (PostgreSQL)', () => {
  it('20 reviewers at once on 10 waiting: each leased exactly once, 10 told nothing waits; an expired lease goes back to the queue', async () => {
    const ann = await hub.token('annotator');
    const ids: number[] = [];
    for (let i = 0; i < 10; i += 1) {
      ids.push(await submit(ann, `rec-c-${i}`));
    }

    const answers = await Promise.all(
      reviewers.map((token) => hub.call('review:next', {}, { token })),
    );
    expect(answers.map((a) => a.status)).toEqual(reviewers.map(() => 200));
    const leased = answers
      .map((a) => a.body.value.submission as { id: number } | null)
      .filter((s) => s !== null);
    expect(leased.map((s) => s.id).sort((a, b) => a - b)).toEqual(ids);
    const idle = reviewers.filter((_, i) => answers[i]!.body.value.submission === null);
    expect(idle).toHaveLength(10);

    // a lease of 1 ms is abandoned at once: the next reviewer who asks gets that submission
    const late = await submit(ann, 'rec-c-late');
    const short = await hub.call(
      'review:next',
      { leaseMs: 1 },
      { token: await hub.token('reviewer') },
    );
    expect(short.body.value.submission.id).toBe(late);
    let taken: { id: number } | null = null;
    const deadline = Date.now() + 10_000;
    while (!taken && Date.now() < deadline) {
      taken = (await hub.call('review:next', {}, { token: idle[0] })).body.value.submission;
    }
    expect(taken?.id).toBe(late);
    // the first reviewer's verdict on it is refused now
    const refused = await hub.call(
      'review:verdict',
      { id: late, version: 1, verdict: 'accept' },
      { token: await hub.token('reviewer') },
    );
    expect(refused.body.error?.code).toBe('HUB_LEASE_NOT_HELD');
  }, 120_000);
});
