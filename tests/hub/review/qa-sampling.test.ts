// QA sampling (src/hub/review/qa.ts, docs/team-mode.md §19) on embedded PGlite and on Debian's
// PostgreSQL: a share of accepted submissions goes to a second review by another reviewer; the
// second verdict changes no status; the dashboard's figures count agreements and list the
// disagreements; an admin settles one. The drawn submissions are predicted here from their ids
// (Fibonacci hashing, computed independently of the code).
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  findOpenLease,
  findQaReview,
  findSubmission,
  hubStats,
  insertUser,
  listAudit,
  listVerdicts,
  openHubDb,
  setUserRoles,
  type HubDatabase,
  type HubRootDb,
} from '../../../src/hub/db';
import { readQaSettings, settleQa, writeQaSettings } from '../../../src/hub/review/qa';
import {
  leaseNext,
  recordVerdict,
  registerVersion,
  releaseLease,
  type QueueActor,
} from '../../../src/hub/review/queue';
import { reviewerQueue } from '../../../src/hub/db/queries/review-queue';
import type { HubRole } from '../../../src/shared/contract/hub';
import { startPostgres, type Postgres } from '../../helpers/postgres';

let pgServer: Postgres;
let pgliteDir: string;
let shared: HubDatabase | null = null;
let users = 0;

beforeAll(async () => {
  [pgServer, pgliteDir] = await Promise.all([
    startPostgres(),
    mkdtemp(path.join(os.tmpdir(), 'hub-qa-')),
  ]);
}, 120_000);
afterAll(async () => {
  await shared?.close();
  await pgServer?.stop();
  await rm(pgliteDir, { recursive: true, force: true });
});

type Backend = {
  name: string;
  open: () => Promise<HubDatabase>;
  done: (h: HubDatabase) => Promise<void>;
};

const BACKENDS: Backend[] = [
  {
    name: 'PGlite (embedded)',
    open: async () => {
      shared ??= await openHubDb({ data: pgliteDir });
      await drain(shared.db);
      return shared;
    },
    done: () => Promise.resolve(),
  },
  {
    name: 'PostgreSQL',
    open: async () => await openHubDb({ url: await pgServer.createDatabase() }),
    done: (h) => h.close(),
  },
];

async function person(db: HubRootDb, role: HubRole | HubRole[]): Promise<QueueActor> {
  users += 1;
  const name = `q${users}-${process.pid}`;
  const id = await insertUser(db, { name, passwordHash: '$argon2id$test-not-a-hash' });
  await setUserRoles(db, id!, Array.isArray(role) ? role : [role]);
  return { userId: id!, name, client: 'test' };
}

// the shared PGlite: sampling off, then every first and second review still waiting is given
async function drain(db: HubRootDb): Promise<void> {
  const admin = await person(db, 'admin');
  await writeQaSettings(db, admin, { sampleShare: 0 });
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
      verdict: next.isQa ? 'accept' : 'reject',
    });
  }
}

let shas = 0;
async function submit(db: HubRootDb, annotator: QueueActor, recording: string): Promise<number> {
  shas += 1;
  const r = await registerVersion(db, {
    annotator,
    recordingId: recording,
    task: `task of ${recording}`,
    manifestSha256: (shas + 7_000).toString(16).padStart(64, '0'),
    objectPrefix: `subs/${annotator.name}/${recording}/v1`,
  });
  return r.submissionId;
}

// the share a submission falls at: id × 2^32/φ modulo 2^32, over 2^32 (Fibonacci hashing)
function predictedDraw(id: number): number {
  const golden = 2654435769n; // floor(2^32 / φ)
  return Number((BigInt(id) * golden) % 2n ** 32n) / 2 ** 32;
}

describe.each(BACKENDS)('QA sampling on $name', (backend) => {
  it('share 1: every accepted submission gets a second review by the other reviewer, never the first; a disagreement shows in the figures until an admin settles it', async () => {
    const hub = await backend.open();
    try {
      const { db } = hub;
      const admin = await person(db, 'admin');
      const ann = await person(db, 'annotator');
      const [a, b] = [await person(db, 'reviewer'), await person(db, 'reviewer')];
      expect(await writeQaSettings(db, admin, { sampleShare: 1 })).toEqual({ sampleShare: 1 });
      expect(await readQaSettings(db)).toEqual({ sampleShare: 1 });
      const ids: number[] = [];
      for (let i = 0; i < 6; i++) {
        ids.push(await submit(db, ann, `qa-all-${i}`));
      }
      // first reviews, alternately by a and b, all accepted
      const firstBy = new Map<number, QueueActor>();
      for (let i = 0; i < 6; i++) {
        const r = i % 2 ? b : a;
        const l = await leaseNext(db, r, 60_000);
        expect(l).toMatchObject({ isQa: false });
        firstBy.set(l!.submissionId, r);
        const v = await recordVerdict(db, {
          reviewer: r,
          submissionId: l!.submissionId,
          version: l!.version,
          verdict: 'accept',
          grade: 'good',
        });
        expect(v).toEqual({
          submissionId: l!.submissionId,
          version: 1,
          status: 'accepted',
          sampled: true,
        });
      }
      expect([...firstBy.keys()].sort()).toEqual([...ids].sort());
      // second reviews: each reviewer is given exactly the other's, then nothing
      const secondBy = new Map<number, QueueActor>();
      let disagreed = 0;
      for (const r of [a, b]) {
        for (;;) {
          const l = await leaseNext(db, r, 60_000);
          if (!l) {
            break;
          }
          expect(l.isQa).toBe(true);
          expect(firstBy.get(l.submissionId)).not.toBe(r);
          expect(secondBy.has(l.submissionId)).toBe(false);
          secondBy.set(l.submissionId, r);
          // b rejects the first one it is given: the one disagreement
          const verdict = r === b && !disagreed ? 'reject' : 'accept';
          if (verdict === 'reject') {
            disagreed = l.submissionId;
          }
          const v = await recordVerdict(db, {
            reviewer: r,
            submissionId: l.submissionId,
            version: l.version,
            verdict,
            feedback: verdict === 'reject' ? 'the last step misses the save' : '',
          });
          // the second verdict leaves the status as the first left it
          expect(v).toEqual({
            submissionId: l.submissionId,
            version: 1,
            status: 'accepted',
            qa: true,
          });
        }
      }
      expect([...secondBy.keys()].sort()).toEqual([...ids].sort());
      expect(disagreed).toBeGreaterThan(0);
      for (const id of ids) {
        expect(secondBy.get(id)!.userId).not.toBe(firstBy.get(id)!.userId);
        expect((await findSubmission(db, id))?.status).toBe('accepted');
        // the second review is no verdict of the submission's (its annotator sees the first)
        expect((await listVerdicts(db, id)).map((v) => v.reviewer)).toEqual([
          firstBy.get(id)!.name,
        ]);
        expect(await findOpenLease(db, id)).toBeUndefined();
      }
      expect(await leaseNext(db, a, 60_000)).toBeNull();
      expect(await leaseNext(db, b, 60_000)).toBeNull();

      const qa = (await hubStats(db, { annotator: ann.name })).qa;
      expect(qa).toMatchObject({ sampled: 6, reviewed: 6, agreed: 5, unsettled: 1 });
      expect(qa.agreementRate).toBeCloseTo(5 / 6, 12);
      expect(qa.disagreements).toEqual([
        {
          submissionId: disagreed,
          recording: expect.stringMatching(/^qa-all-/),
          annotator: ann.name,
          version: 1,
          firstReviewer: a.name,
          firstVerdict: 'accept',
          secondReviewer: b.name,
          secondVerdict: 'reject',
          secondGrade: null,
          secondFeedback: 'the last step misses the save',
          atMs: expect.any(Number),
          settledStatus: null,
        },
      ]);
      // another annotator's filter sees none of it
      expect((await hubStats(db, { annotator: a.name })).qa.sampled).toBe(0);

      // settling: only a reviewed second review; the admin's decision becomes the status
      const agreed = ids.find((id) => id !== disagreed)!;
      await expect(
        settleQa(db, { admin, submissionId: 999_999, status: 'accepted' }),
      ).rejects.toMatchObject({ code: 'NOT_FOUND' });
      const settled = await settleQa(db, {
        admin,
        submissionId: disagreed,
        status: 'rejected',
        note: 'second reviewer is right',
      });
      expect(settled).toEqual({ submissionId: disagreed, version: 1, status: 'rejected' });
      expect((await findSubmission(db, disagreed))?.status).toBe('rejected');
      expect((await findSubmission(db, agreed))?.status).toBe('accepted');
      const after = (await hubStats(db, { annotator: ann.name })).qa;
      expect(after).toMatchObject({ sampled: 6, reviewed: 6, agreed: 5, unsettled: 0 });
      expect(after.disagreements.map((d) => [d.submissionId, d.settledStatus])).toEqual([
        [disagreed, 'rejected'],
      ]);
      const audit = await listAudit(db, { limit: 500 });
      expect(
        audit.filter((e) => e.action === 'qa.settle').map((e) => [e.target, e.details.to]),
      ).toEqual([[`submission:${disagreed}`, 'rejected']]);
      expect(
        audit.filter(
          (e) => e.action === 'submission.qa-verdict' && ids.includes(Number(e.target?.slice(11))),
        ),
      ).toHaveLength(6);
    } finally {
      await backend.done(hub);
    }
  }, 120_000);

  it('share 0: no accepted submission is reviewed twice; share 0.5: exactly those whose id falls below it', async () => {
    const hub = await backend.open();
    try {
      const { db } = hub;
      const admin = await person(db, 'admin');
      const ann = await person(db, 'annotator');
      const [a, b] = [await person(db, 'reviewer'), await person(db, 'reviewer')];
      const acceptAll = async (n: number, prefix: string) => {
        const out: { id: number; sampled: boolean }[] = [];
        for (let i = 0; i < n; i++) {
          const id = await submit(db, ann, `${prefix}-${i}`);
          const l = await leaseNext(db, a, 60_000);
          expect(l?.submissionId).toBe(id);
          const v = await recordVerdict(db, {
            reviewer: a,
            submissionId: id,
            version: 1,
            verdict: 'accept',
          });
          out.push({ id, sampled: v.sampled === true });
        }
        return out;
      };
      expect(await writeQaSettings(db, admin, { sampleShare: 0 })).toEqual({ sampleShare: 0 });
      const none = await acceptAll(8, 'qa-none');
      expect(none.filter((x) => x.sampled)).toEqual([]);
      for (const { id } of none) {
        expect(await findQaReview(db, id, 1)).toBeUndefined();
      }
      expect(await leaseNext(db, b, 60_000)).toBeNull();
      expect((await hubStats(db, { annotator: ann.name })).qa).toEqual({
        sampled: 0,
        reviewed: 0,
        agreed: 0,
        agreementRate: null,
        unsettled: 0,
        disagreements: [],
      });

      await writeQaSettings(db, admin, { sampleShare: 0.5 });
      const half = await acceptAll(12, 'qa-half');
      const want = half.filter((x) => predictedDraw(x.id) < 0.5).map((x) => x.id);
      expect(half.filter((x) => x.sampled).map((x) => x.id)).toEqual(want);
      // a real sample: some drawn, some not
      expect(want.length).toBeGreaterThan(0);
      expect(want.length).toBeLessThan(12);
      const given: number[] = [];
      for (let l = await leaseNext(db, b, 60_000); l; l = await leaseNext(db, b, 60_000)) {
        expect(l.isQa).toBe(true);
        given.push(l.submissionId);
        await recordVerdict(db, {
          reviewer: b,
          submissionId: l.submissionId,
          version: 1,
          verdict: 'accept',
        });
      }
      expect(given).toEqual(want);
      expect((await hubStats(db, { annotator: ann.name })).qa).toMatchObject({
        sampled: want.length,
        reviewed: want.length,
        agreed: want.length,
        agreementRate: 1,
        disagreements: [],
      });
      await expect(writeQaSettings(db, admin, { sampleShare: 1.5 })).rejects.toMatchObject({
        code: 'INVALID_PAYLOAD',
      });
      expect(await readQaSettings(db)).toEqual({ sampleShare: 0.5 });
    } finally {
      await backend.done(hub);
    }
  }, 120_000);

  it('a released or expired second review goes back to the QA queue and the submission stays accepted; a reviewer who annotated it never gets it', async () => {
    const hub = await backend.open();
    try {
      const { db } = hub;
      const admin = await person(db, 'admin');
      // c annotates and reviews: never given their own submission, first or second review
      const c = await person(db, ['annotator', 'reviewer']);
      const [a, b] = [await person(db, 'reviewer'), await person(db, 'reviewer')];
      await writeQaSettings(db, admin, { sampleShare: 1 });
      const id = await submit(db, c, 'qa-release');
      expect(await leaseNext(db, c, 60_000)).toBeNull();
      const first = await leaseNext(db, a, 60_000);
      expect(first?.submissionId).toBe(id);
      await recordVerdict(db, { reviewer: a, submissionId: id, version: 1, verdict: 'accept' });
      expect(await leaseNext(db, c, 60_000)).toBeNull();
      expect(await leaseNext(db, a, 60_000)).toBeNull();
      // the Review queue page's count: only b could be given it
      const qaWaiting = async (r: QueueActor) => (await reviewerQueue(db, r.userId)).waiting.qa;
      expect([await qaWaiting(a), await qaWaiting(b), await qaWaiting(c)]).toEqual([0, 1, 0]);

      const l1 = await leaseNext(db, b, 60_000);
      expect(l1).toMatchObject({ submissionId: id, isQa: true, isResumed: false });
      // asked again, b gets the same one back
      expect(await leaseNext(db, b, 60_000)).toMatchObject({ submissionId: id, isResumed: true });
      // held by b: counted as b's lease, not as waiting
      expect(await qaWaiting(b)).toBe(0);
      expect((await reviewerQueue(db, b.userId)).held.map((h) => h.submissionId)).toEqual([id]);
      await releaseLease(db, b, id);
      expect((await findSubmission(db, id))?.status).toBe('accepted');
      expect(await qaWaiting(b)).toBe(1);

      // an expired second review is taken back too
      const l2 = await leaseNext(db, b, 1);
      expect(l2).toMatchObject({ submissionId: id, isQa: true });
      for (let i = 0; i < 500 && !(await findOpenLease(db, id))?.isExpired; i++) {
        await new Promise((r) => setTimeout(r, 10));
      }
      await expect(
        recordVerdict(db, { reviewer: b, submissionId: id, version: 1, verdict: 'reject' }),
      ).rejects.toMatchObject({ code: 'HUB_LEASE_NOT_HELD' });
      const d = await person(db, 'reviewer');
      expect(await leaseNext(db, d, 60_000)).toMatchObject({ submissionId: id, isQa: true });
      await recordVerdict(db, { reviewer: d, submissionId: id, version: 1, verdict: 'changes' });
      expect((await findSubmission(db, id))?.status).toBe('accepted');
      const qa = await findQaReview(db, id, 1);
      expect(qa).toMatchObject({
        firstReviewerId: a.userId,
        firstVerdict: 'accept',
        reviewerId: d.userId,
        verdict: 'changes',
        settledStatus: null,
      });
      expect(await leaseNext(db, b, 60_000)).toBeNull();
    } finally {
      await backend.done(hub);
    }
  }, 120_000);
});
