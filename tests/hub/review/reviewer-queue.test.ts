// A reviewer's view of the queue (src/hub/db/queries/review-queue.ts, `review:queue`, the Review
// queue page) on embedded PGlite: how many wait (own ones counted apart, an expired lease counted
// as waiting again), the leases the reviewer holds with their expiry, and the verdicts they gave,
// newest first — each reviewer sees only their own leases and verdicts.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addUser, localActor } from '../../../src/hub/accounts/accounts';
import { findUserByName, openHubDb, type HubDatabase } from '../../../src/hub/db';
import { reviewerQueue } from '../../../src/hub/db/queries/review-queue';
import {
  leaseNext,
  recordVerdict,
  registerVersion,
  type QueueActor,
} from '../../../src/hub/review/queue';

let dir: string;
let hub: HubDatabase;
const people: Record<string, QueueActor> = {};

async function person(name: string, roles: ('annotator' | 'reviewer')[]): Promise<QueueActor> {
  await addUser(hub.db, { name, roles, by: localActor('cli') });
  const user = await findUserByName(hub.db, name);
  return { userId: user!.id, name, client: 'web' };
}

async function submit(who: QueueActor, recordingId: string): Promise<number> {
  const r = await registerVersion(hub.db, {
    annotator: who,
    recordingId,
    task: `task ${recordingId}`,
    manifestSha256: recordingId
      .padEnd(64, '0')
      .replace(/[^0-9a-f]/g, 'a')
      .slice(0, 64),
    objectPrefix: `${who.name}/${recordingId}/x`,
  });
  return r.submissionId;
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'hub-reviewer-queue-'));
  hub = await openHubDb({ data: dir }, { holder: 'reviewer queue test', purpose: 'hub' });
  people.ann = await person('ann', ['annotator']);
  people.both = await person('both', ['annotator', 'reviewer']);
  people.rev = await person('rev', ['reviewer']);
}, 120_000);

afterAll(async () => {
  await hub?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('reviewerQueue', () => {
  it('counts what waits, the leases held with their expiry, and the verdicts given', async () => {
    const empty = await reviewerQueue(hub.db, people.rev!.userId);
    expect(empty).toEqual({
      waiting: { total: 0, own: 0, oldestSinceMs: null, qa: 0 },
      held: [],
      done: [],
    });

    const a = await submit(people.ann!, 'rec-a');
    const b = await submit(people.ann!, 'rec-b');
    const c = await submit(people.both!, 'rec-c');
    const rev0 = await reviewerQueue(hub.db, people.rev!.userId);
    expect(rev0.waiting).toMatchObject({ total: 3, own: 0 });
    expect(rev0.waiting.oldestSinceMs).toBeGreaterThan(Date.now() - 600_000);
    // `both` annotated rec-c: it waits, for someone else
    expect((await reviewerQueue(hub.db, people.both!.userId)).waiting).toMatchObject({
      total: 3,
      own: 1,
    });

    // rev takes the oldest: one less waits, rev holds it with its expiry
    const leased = await leaseNext(hub.db, people.rev!, 60_000);
    expect(leased?.submissionId).toBe(a);
    const rev1 = await reviewerQueue(hub.db, people.rev!.userId);
    expect(rev1.waiting.total).toBe(2);
    expect(rev1.held).toEqual([
      {
        submissionId: a,
        recordingId: 'rec-a',
        annotator: 'ann',
        task: 'task rec-a',
        version: 1,
        leasedAtMs: expect.any(Number),
        expiresAtMs: leased!.expiresAtMs,
      },
    ]);
    expect(rev1.held[0]!.expiresAtMs - rev1.held[0]!.leasedAtMs).toBe(60_000);
    // another reviewer does not see rev's lease
    expect((await reviewerQueue(hub.db, people.both!.userId)).held).toEqual([]);

    await recordVerdict(hub.db, {
      reviewer: people.rev!,
      submissionId: a,
      version: 1,
      verdict: 'changes',
      grade: 'ok',
      feedback: 'step 2 clicks the wrong button',
    });
    const rev2 = await reviewerQueue(hub.db, people.rev!.userId);
    expect(rev2.held).toEqual([]);
    expect(rev2.done).toEqual([
      {
        submissionId: a,
        recordingId: 'rec-a',
        annotator: 'ann',
        task: 'task rec-a',
        version: 1,
        verdict: 'changes',
        grade: 'ok',
        feedback: 'step 2 clicks the wrong button',
        atMs: expect.any(Number),
      },
    ]);

    // rev takes rec-b and accepts it: newest first, and the limit holds
    expect((await leaseNext(hub.db, people.rev!))?.submissionId).toBe(b);
    await recordVerdict(hub.db, {
      reviewer: people.rev!,
      submissionId: b,
      version: 1,
      verdict: 'accept',
      grade: 'excellent',
    });
    const rev3 = await reviewerQueue(hub.db, people.rev!.userId);
    expect(rev3.done.map((d) => [d.recordingId, d.verdict])).toEqual([
      ['rec-b', 'accept'],
      ['rec-a', 'changes'],
    ]);
    expect(
      (await reviewerQueue(hub.db, people.rev!.userId, { doneLimit: 1 })).done.map(
        (d) => d.recordingId,
      ),
    ).toEqual(['rec-b']);
    expect((await reviewerQueue(hub.db, people.both!.userId)).done).toEqual([]);
    expect(rev3.waiting).toMatchObject({ total: 1, own: 0 });

    // a lease that expired is no longer held, and its submission counts as waiting again
    expect((await leaseNext(hub.db, people.rev!, 1))?.submissionId).toBe(c);
    await sql`SELECT pg_sleep(0.01)`.execute(hub.db);
    const rev4 = await reviewerQueue(hub.db, people.rev!.userId);
    expect(rev4.held).toEqual([]);
    expect(rev4.waiting).toMatchObject({ total: 1, own: 0 });
  });
});
