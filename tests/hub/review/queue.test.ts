// The review queue (src/hub/review/queue.ts) with one test body on embedded PGlite (one per
// file: its first open costs seconds and ~0.5 GB; every test starts by emptying the queue) and
// on Debian's PostgreSQL (tests/helpers/postgres.ts, a fresh database per test, a pool of 25
// connections so 20 reviewers really run at once). No timing assertions: an expired lease is
// waited for by reading the database's own clock.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HubRole } from '../../../src/shared/contract/hub';
import { sql } from 'kysely';
import {
  findOpenLease,
  inTransaction,
  insertUser,
  listAudit,
  listVerdicts,
  listVersions,
  lockSubmission,
  openHubDb,
  setUserRoles,
  type HubDatabase,
  type HubRootDb,
} from '../../../src/hub/db';
import {
  leaseNext,
  listForAnnotator,
  reassign,
  recordVerdict,
  registerVersion,
  releaseLease,
  type QueueActor,
} from '../../../src/hub/review/queue';
import { registerUploaded, planUpload } from '../../../src/hub/review/submit';
import { FolderObjectStore, handleObjectRequest, newSigningSecret } from '../../../src/hub/storage';
import { testBundle } from '../../helpers/hub-bundle';
import { startPostgres, type Postgres } from '../../helpers/postgres';

type Backend = {
  name: string;
  open: () => Promise<HubDatabase>;
  done: (h: HubDatabase) => Promise<void>;
};

let pgServer: Postgres;
let pgliteDir: string;
let shared: HubDatabase | null = null;
let users = 0;

beforeAll(async () => {
  [pgServer, pgliteDir] = await Promise.all([
    startPostgres(),
    mkdtemp(path.join(os.tmpdir(), 'hub-queue-')),
  ]);
}, 120_000);
afterAll(async () => {
  await shared?.close();
  await pgServer?.stop();
  await rm(pgliteDir, { recursive: true, force: true });
});

const BACKENDS: Backend[] = [
  {
    name: 'PGlite (embedded)',
    open: async () => {
      shared ??= await openHubDb({ data: pgliteDir });
      await emptyQueue(shared.db);
      return shared;
    },
    done: () => Promise.resolve(),
  },
  {
    name: 'PostgreSQL',
    open: async () =>
      await openHubDb({ url: await pgServer.createDatabase() }, { maxConnections: 25 }),
    done: (h) => h.close(),
  },
];

// an account straight in the tables (no argon2: 20 reviewers would cost seconds of hashing)
async function person(db: HubRootDb, role: HubRole | HubRole[]): Promise<QueueActor> {
  users += 1;
  const name = `u${users}-${process.pid}`;
  const id = await insertUser(db, { name, passwordHash: '$argon2id$test-not-a-hash' });
  await setUserRoles(db, id!, Array.isArray(role) ? role : [role]);
  return { userId: id!, name, client: 'test' };
}

const sha = (n: number) => n.toString(16).padStart(64, '0');

async function submit(db: HubRootDb, annotator: QueueActor, recording: string, n: number) {
  return await registerVersion(db, {
    annotator,
    recordingId: recording,
    task: `task of ${recording}`,
    manifestSha256: sha(n),
    objectPrefix: `subs/${annotator.name}/${recording}/v${n}`,
    checkSummary: { steps: 3, problems: 0 },
    piiSummary: { findings: 0 },
  });
}

// the shared PGlite: every waiting submission is taken and rejected, so each test starts empty
async function emptyQueue(db: HubRootDb): Promise<void> {
  const janitor = await person(db, 'reviewer');
  for (;;) {
    const next = await leaseNext(db, janitor, 60_000);
    if (!next) {
      return;
    }
    await recordVerdict(db, {
      reviewer: janitor,
      submissionId: next.submissionId,
      version: next.version,
      verdict: 'reject',
    });
  }
}

// waits (by the database's clock, not ours) until the submission's open lease has expired
async function untilExpired(db: HubRootDb, submissionId: number): Promise<void> {
  for (let i = 0; i < 500; i++) {
    const lease = await findOpenLease(db, submissionId);
    if (!lease || lease.isExpired) {
      return;
    }
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`the lease of submission ${submissionId} did not expire`);
}

// a manifest of two files (their bytes returned alongside)
function bundle(recordingId: string, annotator: string, seed: string) {
  return testBundle({
    recordingId,
    annotator,
    task: `task ${seed}`,
    files: {
      'video.mp4': Buffer.concat([Buffer.from(seed), randomBytes(30_000)]),
      'steps/steps.json': Buffer.from(`[{"step":1,"seed":"${seed}"}]`),
    },
  });
}

describe.each(BACKENDS)('review queue on $name', (backend) => {
  it('20 reviewers asking at once for 10 waiting submissions: each leased exactly once, 10 get nothing', async () => {
    const hub = await backend.open();
    try {
      const { db } = hub;
      const annotators = [await person(db, 'annotator'), await person(db, 'annotator')];
      const reviewers: QueueActor[] = [];
      for (let i = 0; i < 20; i++) {
        reviewers.push(await person(db, 'reviewer'));
      }
      const registered: number[] = [];
      for (let i = 0; i < 10; i++) {
        registered.push((await submit(db, annotators[i % 2]!, `rec-${i}`, 1000 + i)).submissionId);
      }
      if (hub.backend === 'postgres') {
        // open 20 connections first, so the 20 transactions below run side by side
        await Promise.all(
          reviewers.map(() => listForAnnotator(db, { userId: annotators[0]!.userId })),
        );
      }
      const got = await Promise.all(reviewers.map((r) => leaseNext(db, r, 60_000)));
      const leased = got.filter((g) => g !== null);
      expect(leased).toHaveLength(10);
      expect(got.filter((g) => g === null)).toHaveLength(10);
      expect(new Set(leased.map((l) => l.submissionId))).toEqual(new Set(registered));
      // the database agrees: one open lease per submission, each with the reviewer who got it
      for (const [i, g] of got.entries()) {
        if (g) {
          const lease = await findOpenLease(db, g.submissionId);
          expect(lease?.reviewerId).toBe(reviewers[i]!.userId);
        }
      }
      const leases = (await listAudit(db, { limit: 1000 })).filter(
        (a) => a.action === 'submission.lease' && registered.includes(Number(a.target?.slice(11))),
      );
      expect(leases).toHaveLength(10);
      // nothing waits any more
      expect(await leaseNext(db, await person(db, 'reviewer'), 60_000)).toBeNull();
    } finally {
      await backend.done(hub);
    }
  }, 120_000);

  it('one reviewer asking 5 times at once gets one submission (the same one 5 times)', async () => {
    const hub = await backend.open();
    try {
      const { db } = hub;
      const ann = await person(db, 'annotator');
      const rev = await person(db, 'reviewer');
      for (let i = 0; i < 3; i++) {
        await submit(db, ann, `rec-twice-${i}`, 1500 + i);
      }
      const got = await Promise.all(Array.from({ length: 5 }, () => leaseNext(db, rev, 60_000)));
      expect(new Set(got.map((g) => g?.submissionId)).size).toBe(1);
      expect(got.filter((g) => g && !g.isResumed)).toHaveLength(1);
      // the other two still wait for someone else
      const other = await person(db, 'reviewer');
      expect(await leaseNext(db, other, 60_000)).not.toBeNull();
    } finally {
      await backend.done(hub);
    }
  }, 120_000);

  it('a submitted bundle is verified before it registers: a changed file is refused, a resent one registers once', async () => {
    const hub = await backend.open();
    const dir = await mkdtemp(path.join(os.tmpdir(), 'hub-submit-'));
    const store = new FolderObjectStore({ dir, secret: newSigningSecret() });
    const server = http.createServer((req, res) => void handleObjectRequest(store, req, res));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    store.setBaseUrl(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    try {
      const { db } = hub;
      const ann = await person(db, 'annotator');
      const b = bundle('rec-up', ann.name, 'one');
      const plan = await planUpload(store, { annotator: ann, manifestText: b.text });
      expect(plan.uploads.map((u) => u.path)).toEqual([
        'video.mp4',
        'steps/steps.json',
        'manifest.json',
      ]);
      for (const u of plan.uploads) {
        // the video arrives changed (same size): only its SHA-256 can tell
        const bytes =
          u.path === 'video.mp4'
            ? Buffer.from(b.files[u.path]!).fill(7, 100, 200)
            : b.files[u.path]!;
        const res = await fetch(u.request.url, {
          method: 'PUT',
          body: bytes,
          headers: u.request.headers,
        });
        expect(res.status, u.path).toBe(200);
      }
      const claim = { annotator: ann, recordingId: 'rec-up', manifestSha256: plan.manifestSha256 };
      await expect(registerUploaded(db, store, claim)).rejects.toMatchObject({
        code: 'INTEGRITY_FAILED',
        details: { problems: [{ path: 'video.mp4', problem: 'sha256' }] },
      });
      expect(await listForAnnotator(db, ann)).toEqual([]);
      // planned again: nothing missing; with the failed file named, that file (and the manifest)
      const again = await planUpload(store, {
        annotator: ann,
        manifestText: b.text,
        resend: ['video.mp4'],
      });
      expect(again.uploads.map((u) => u.path)).toEqual(['video.mp4', 'manifest.json']);
      for (const u of again.uploads) {
        await fetch(u.request.url, {
          method: 'PUT',
          body: b.files[u.path]!,
          headers: u.request.headers,
        });
      }
      const first = await registerUploaded(db, store, claim);
      expect(first).toMatchObject({ version: 1, isNew: true, status: 'submitted' });
      // the app crashed before it heard back and submits the same bundle again
      expect((await planUpload(store, { annotator: ann, manifestText: b.text })).uploads).toEqual(
        [],
      );
      expect(await registerUploaded(db, store, claim)).toEqual({ ...first, isNew: false });
      expect(await listVersions(db, first.submissionId)).toMatchObject([
        { version: 1, objectPrefix: plan.prefix, checkSummary: { files: 2 } },
      ]);
      // a claim naming a manifest that was never stored is refused, naming it for a resend
      await expect(
        registerUploaded(db, store, { ...claim, manifestSha256: 'f'.repeat(64) }),
      ).rejects.toMatchObject({
        code: 'INTEGRITY_FAILED',
        details: { problems: [{ path: 'manifest.json', problem: 'missing' }] },
      });
    } finally {
      server.close();
      await backend.done(hub);
      await rm(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it('an expired lease goes back to the queue; its old holder can no longer judge it', async () => {
    const hub = await backend.open();
    try {
      const { db } = hub;
      const ann = await person(db, 'annotator');
      const [a, b] = [await person(db, 'reviewer'), await person(db, 'reviewer')];
      const { submissionId } = await submit(db, ann, 'rec-exp', 2001);
      const first = await leaseNext(db, a, 1);
      expect(first).toMatchObject({ submissionId, version: 1, isResumed: false });
      await untilExpired(db, submissionId);
      const second = await leaseNext(db, b, 60_000);
      expect(second).toMatchObject({ submissionId, version: 1, isResumed: false });
      expect(second!.leaseId).not.toBe(first!.leaseId);
      await expect(
        recordVerdict(db, { reviewer: a, submissionId, version: 1, verdict: 'accept' }),
      ).rejects.toMatchObject({ code: 'HUB_LEASE_NOT_HELD' });
      // asking again while holding a live lease hands back the same one
      expect(await leaseNext(db, b, 60_000)).toMatchObject({
        submissionId,
        leaseId: second!.leaseId,
        isResumed: true,
      });
      expect(
        await recordVerdict(db, {
          reviewer: b,
          submissionId,
          version: 1,
          verdict: 'accept',
          grade: 'good',
        }),
      ).toEqual({ submissionId, version: 1, status: 'accepted' });
      const audit = (await listAudit(db, { limit: 50 })).filter(
        (x) => x.target === `submission:${submissionId}`,
      );
      expect(audit.map((x) => x.action).reverse()).toEqual([
        'submission.submit',
        'submission.lease',
        'lease.expired',
        'submission.lease',
        'submission.verdict',
      ]);
    } finally {
      await backend.done(hub);
    }
  }, 120_000);

  it('taking back an expired lease skips a submission a verdict holds (no wait, no deadlock)', async () => {
    const hub = await backend.open();
    try {
      const { db } = hub;
      const ann = await person(db, 'annotator');
      const [a, b] = [await person(db, 'reviewer'), await person(db, 'reviewer')];
      const { submissionId } = await submit(db, ann, 'rec-held', 2101);
      await leaseNext(db, a, 1);
      await untilExpired(db, submissionId);
      if (hub.backend === 'postgres') {
        // another connection holds the submission's row, as a verdict or reassignment does:
        // leaseNext must answer without waiting for it (it would hang here otherwise)
        let release!: () => void;
        const released = new Promise<void>((r) => (release = r));
        let locked!: () => void;
        const isLocked = new Promise<void>((r) => (locked = r));
        const holder = inTransaction(db, async (trx) => {
          await lockSubmission(trx, submissionId);
          locked();
          await released;
        });
        await isLocked;
        expect(await leaseNext(db, b, 60_000)).toBeNull();
        release();
        await holder;
      }
      // once free, the expired lease is taken back and b gets the submission
      expect((await leaseNext(db, b, 60_000))?.submissionId).toBe(submissionId);
    } finally {
      await backend.done(hub);
    }
  }, 120_000);

  it('registerVersion with the same manifest twice (and 5 times at once) registers one version', async () => {
    const hub = await backend.open();
    try {
      const { db } = hub;
      const ann = await person(db, 'annotator');
      const one = await submit(db, ann, 'rec-idem', 3001);
      const again = await submit(db, ann, 'rec-idem', 3001);
      expect(one).toMatchObject({ version: 1, isNew: true, status: 'submitted' });
      expect(again).toEqual({ ...one, isNew: false });
      const burst = await Promise.all(
        Array.from({ length: 5 }, () => submit(db, ann, 'rec-burst', 3002)),
      );
      expect(burst.filter((r) => r.isNew)).toHaveLength(1);
      expect(new Set(burst.map((r) => r.submissionId)).size).toBe(1);
      expect(await listVersions(db, burst[0]!.submissionId)).toHaveLength(1);
      expect(await listVersions(db, one.submissionId)).toMatchObject([
        { version: 1, manifestSha256: sha(3001), checkSummary: { steps: 3, problems: 0 } },
      ]);
      const submits = (await listAudit(db, { limit: 100 })).filter(
        (x) =>
          x.action === 'submission.submit' &&
          (x.target === `submission:${one.submissionId}` ||
            x.target === `submission:${burst[0]!.submissionId}`),
      );
      expect(submits).toHaveLength(2);
      await expect(
        registerVersion(db, {
          annotator: ann,
          recordingId: 'rec-idem',
          task: 't',
          manifestSha256: 'not-a-sha',
          objectPrefix: 'x',
        }),
      ).rejects.toMatchObject({ code: 'INVALID_PAYLOAD' });
    } finally {
      await backend.done(hub);
    }
  }, 120_000);

  it('a verdict by anyone but the lease holder, or on another version, is refused', async () => {
    const hub = await backend.open();
    try {
      const { db } = hub;
      const ann = await person(db, 'annotator');
      const [holder, other] = [await person(db, 'reviewer'), await person(db, 'reviewer')];
      const { submissionId } = await submit(db, ann, 'rec-holder', 4001);
      await expect(
        recordVerdict(db, { reviewer: holder, submissionId, version: 1, verdict: 'accept' }),
      ).rejects.toMatchObject({ code: 'HUB_LEASE_NOT_HELD' });
      const lease = await leaseNext(db, holder, 60_000);
      expect(lease?.submissionId).toBe(submissionId);
      await expect(
        recordVerdict(db, { reviewer: other, submissionId, version: 1, verdict: 'reject' }),
      ).rejects.toMatchObject({ code: 'HUB_LEASE_NOT_HELD' });
      await expect(
        recordVerdict(db, { reviewer: holder, submissionId, version: 2, verdict: 'accept' }),
      ).rejects.toMatchObject({ code: 'HUB_LEASE_NOT_HELD' });
      await expect(releaseLease(db, other, submissionId)).rejects.toMatchObject({
        code: 'HUB_LEASE_NOT_HELD',
      });
      await expect(
        recordVerdict(db, {
          reviewer: holder,
          submissionId: 987_654,
          version: 1,
          verdict: 'accept',
        }),
      ).rejects.toMatchObject({ code: 'NOT_FOUND' });
      expect(await listVerdicts(db, submissionId)).toEqual([]);
      // the submission in review takes no new version
      await expect(submit(db, ann, 'rec-holder', 4002)).rejects.toMatchObject({
        code: 'INVALID_STATE',
      });
      // released: back in the queue, and another reviewer gets it
      await releaseLease(db, holder, submissionId);
      expect((await leaseNext(db, other, 60_000))?.submissionId).toBe(submissionId);
      await recordVerdict(db, { reviewer: other, submissionId, version: 1, verdict: 'reject' });
      await expect(submit(db, ann, 'rec-holder', 4003)).rejects.toMatchObject({
        code: 'INVALID_STATE',
      });
    } finally {
      await backend.done(hub);
    }
  }, 120_000);

  it('changes → version 2 → accept; an annotator lists only their own, with grade and feedback', async () => {
    const hub = await backend.open();
    try {
      const { db } = hub;
      const [alice, bob] = [await person(db, 'annotator'), await person(db, 'annotator')];
      const rev = await person(db, 'reviewer');
      const mine = await submit(db, alice, 'rec-a', 5001);
      const theirs = await submit(db, bob, 'rec-b', 5002);
      const l1 = await leaseNext(db, rev, 60_000);
      expect(l1?.submissionId).toBe(mine.submissionId);
      await recordVerdict(db, {
        reviewer: rev,
        submissionId: mine.submissionId,
        version: 1,
        verdict: 'changes',
        feedback: 'step 3 clicks the wrong button',
        editLog: [{ op: 'relabel', step: 3 }],
      });
      expect(await listForAnnotator(db, alice)).toMatchObject([
        {
          id: mine.submissionId,
          recordingId: 'rec-a',
          version: 1,
          status: 'changes',
          feedback: 'step 3 clicks the wrong button',
          reviewer: rev.name,
          grade: null,
          verdictVersion: 1,
        },
      ]);
      expect((await listForAnnotator(db, bob)).map((s) => s.id)).toEqual([theirs.submissionId]);
      const v2 = await submit(db, alice, 'rec-a', 5004);
      expect(v2).toMatchObject({ submissionId: mine.submissionId, version: 2, isNew: true });
      // the queue is oldest first: bob's (waiting since before v2) comes next, then v2
      const lb = await leaseNext(db, rev, 60_000);
      expect(lb?.submissionId).toBe(theirs.submissionId);
      await recordVerdict(db, {
        reviewer: rev,
        submissionId: theirs.submissionId,
        version: 1,
        verdict: 'accept',
        grade: 'ok',
      });
      const l2 = await leaseNext(db, rev, 60_000);
      expect(l2).toMatchObject({ submissionId: mine.submissionId, version: 2 });
      await recordVerdict(db, {
        reviewer: rev,
        submissionId: mine.submissionId,
        version: 2,
        verdict: 'accept',
        grade: 'excellent',
        feedback: 'fixed',
      });
      expect(await listForAnnotator(db, alice)).toMatchObject([
        {
          id: mine.submissionId,
          version: 2,
          status: 'accepted',
          grade: 'excellent',
          feedback: 'fixed',
        },
      ]);
      expect((await listVersions(db, mine.submissionId)).map((v) => v.version)).toEqual([1, 2]);
      expect((await listVerdicts(db, mine.submissionId)).map((v) => v.verdict)).toEqual([
        'changes',
        'accept',
      ]);
      // nobody reviews their own work: a reviewer who also annotates skips their submission
      const both = await person(db, ['annotator', 'reviewer']);
      const own = await submit(db, both, 'rec-own', 5003);
      expect(await leaseNext(db, both, 60_000)).toBeNull();
      expect((await leaseNext(db, rev, 60_000))?.submissionId).toBe(own.submissionId);
    } finally {
      await backend.done(hub);
    }
  }, 120_000);

  it('the oldest-waiting lookup reads the partial index submissions_waiting with 10,000 waiting', async () => {
    const hub = await backend.open();
    try {
      const { db } = hub;
      const ann = await person(db, 'annotator');
      const rev = await person(db, 'reviewer');
      const rollback = new Error('rollback');
      let plan = '';
      // seeded, planned and rolled back in one transaction: the shared queue stays empty
      await expect(
        inTransaction(db, async (trx) => {
          await sql`
            INSERT INTO submissions (annotator_id, recording_id, task, status, current_version,
                                     waiting_since)
            SELECT ${ann.userId}, 'plan-' || g, 't',
                   CASE WHEN g <= 20000 THEN 'accepted' ELSE 'submitted' END, 1,
                   CASE WHEN g <= 20000 THEN NULL ELSE now() - make_interval(secs => 30000 - g) END
            FROM generate_series(1, 30000) AS g`.execute(trx);
          await sql`ANALYZE submissions`.execute(trx);
          const rows = await sql<{ 'QUERY PLAN': string }>`
            EXPLAIN SELECT id, current_version FROM submissions
            WHERE status = 'submitted' AND annotator_id <> ${rev.userId}
            ORDER BY waiting_since, id LIMIT 1 FOR UPDATE SKIP LOCKED`.execute(trx);
          plan = rows.rows.map((r) => r['QUERY PLAN']).join('\n');
          throw rollback;
        }),
      ).rejects.toBe(rollback);
      expect(plan).toMatch(/Index Scan using submissions_waiting/);
      expect(plan).not.toMatch(/Seq Scan|Sort/);
    } finally {
      await backend.done(hub);
    }
  }, 120_000);

  it('an admin reassigns a leased submission: the new reviewer may judge it, the old may not', async () => {
    const hub = await backend.open();
    try {
      const { db } = hub;
      const ann = await person(db, 'annotator');
      const admin = await person(db, 'admin');
      const [first, second] = [await person(db, 'reviewer'), await person(db, 'reviewer')];
      const { submissionId } = await submit(db, ann, 'rec-re', 6001);
      await leaseNext(db, first, 60_000);
      await expect(
        reassign(db, { admin, submissionId, reviewerName: ann.name }),
      ).rejects.toMatchObject({ code: 'INVALID_PAYLOAD' });
      const moved = await reassign(db, { admin, submissionId, reviewerName: second.name });
      expect(moved).toMatchObject({ submissionId, version: 1 });
      expect((await findOpenLease(db, submissionId))?.reviewerId).toBe(second.userId);
      await expect(
        recordVerdict(db, { reviewer: first, submissionId, version: 1, verdict: 'accept' }),
      ).rejects.toMatchObject({ code: 'HUB_LEASE_NOT_HELD' });
      await recordVerdict(db, { reviewer: second, submissionId, version: 1, verdict: 'accept' });
      await expect(
        reassign(db, { admin, submissionId, reviewerName: first.name }),
      ).rejects.toMatchObject({ code: 'INVALID_STATE' });
      const actions = (await listAudit(db, { limit: 50 }))
        .filter((x) => x.target === `submission:${submissionId}`)
        .map((x) => `${x.action} by ${x.actor}`);
      expect(actions).toContain(`submission.reassign by ${admin.name}`);
    } finally {
      await backend.done(hub);
    }
  }, 120_000);
});
