// QA sampling over the hub's HTTP API (docs/team-mode.md §19): qa:settings (admin) read, changed
// and range-checked; an accept through review:verdict answers `sampled`; the second reviewer's
// verdict answers `qa` and leaves the status; stats:get carries the disagreement with both
// reviewers; qa:settle rejects the submission, which its annotator then sees. Leases are taken
// with leaseNext on the hub's database (this hub has no object store for review:next's files).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addUser, localActor } from '../../../src/hub/accounts/accounts';
import { createApiToken } from '../../../src/hub/auth/tokens';
import { findUserByName } from '../../../src/hub/db';
import { leaseNext, registerVersion } from '../../../src/hub/review/queue';
import { startHubFixture, type HubFixture } from './hub-fixture';

let hub: HubFixture;

beforeAll(async () => {
  hub = await startHubFixture();
}, 120_000);

afterAll(async () => {
  await hub?.close();
});

async function actor(name: string) {
  const u = await findUserByName(hub.hub.db, name);
  return { userId: u!.id, name, client: 'test' };
}

describe('QA sampling over HTTP', () => {
  it('settings, a drawn accept, the second verdict, the figures and the settling', async () => {
    const adm = await hub.token('admin');
    const rev = await hub.token('reviewer');
    const by = localActor('cli');
    await addUser(hub.hub.db, { name: 'rev2', roles: ['reviewer'], by });
    const rev2User = await actor('rev2');
    const rev2 = (
      await createApiToken(hub.hub.db, {
        userId: rev2User.userId,
        userName: 'rev2',
        name: 'test',
        by,
      })
    ).token;

    expect((await hub.call('qa:settings', {}, { token: adm })).body).toEqual({
      ok: true,
      value: { sampleShare: 0 },
    });
    const bad = await hub.call('qa:settings', { sampleShare: 1.5 }, { token: adm });
    expect([bad.status, bad.body.error?.code]).toEqual([400, 'INVALID_PAYLOAD']);
    expect((await hub.call('qa:settings', { sampleShare: 1 }, { token: adm })).body.value).toEqual({
      sampleShare: 1,
    });
    expect((await hub.call('qa:settings', {}, { token: adm })).body.value).toEqual({
      sampleShare: 1,
    });

    const r = await registerVersion(hub.hub.db, {
      annotator: await actor('ann'),
      recordingId: 'rec-qa-http',
      task: 'qa over http',
      manifestSha256: 'a'.repeat(64),
      objectPrefix: 'subs/ann/rec-qa-http/v1',
    });
    const id = r.submissionId;
    expect((await leaseNext(hub.hub.db, await actor('rev'), 60_000))?.submissionId).toBe(id);
    const first = await hub.call(
      'review:verdict',
      { id, version: 1, verdict: 'accept', grade: 'good', feedback: 'fine' },
      { token: rev },
    );
    expect(first.body).toEqual({
      ok: true,
      value: { id, version: 1, status: 'accepted', sampled: true },
    });
    // the first reviewer is given no second review of it; rev2's queue counts it
    expect(await leaseNext(hub.hub.db, await actor('rev'), 60_000)).toBeNull();
    const queued = await hub.call('review:queue', {}, { token: rev2 });
    expect(queued.body.value.waiting).toMatchObject({ total: 0, qa: 1 });
    const revQueue = await hub.call('review:queue', {}, { token: rev });
    expect(revQueue.body.value.waiting).toMatchObject({ total: 0, qa: 0 });
    expect(await leaseNext(hub.hub.db, rev2User, 60_000)).toMatchObject({
      submissionId: id,
      isQa: true,
    });
    const second = await hub.call(
      'review:verdict',
      { id, version: 1, verdict: 'reject', feedback: 'the form is never sent' },
      { token: rev2 },
    );
    expect(second.body).toEqual({
      ok: true,
      value: { id, version: 1, status: 'accepted', qa: true },
    });

    const stats = await hub.call('stats:get', {}, { token: adm });
    expect(stats.body.value.qa).toEqual({
      sampled: 1,
      reviewed: 1,
      agreed: 0,
      agreementRate: 0,
      unsettled: 1,
      disagreements: [
        {
          submissionId: id,
          recording: 'rec-qa-http',
          annotator: 'ann',
          version: 1,
          firstReviewer: 'rev',
          firstVerdict: 'accept',
          secondReviewer: 'rev2',
          secondVerdict: 'reject',
          secondGrade: null,
          secondFeedback: 'the form is never sent',
          atMs: expect.any(Number),
          settledStatus: null,
        },
      ],
    });

    const settled = await hub.call('qa:settle', { id, status: 'rejected' }, { token: adm });
    expect(settled.body).toEqual({ ok: true, value: { id, version: 1, status: 'rejected' } });
    const again = await hub.call('stats:get', {}, { token: adm });
    expect(again.body.value.qa).toMatchObject({ unsettled: 0, agreed: 0, reviewed: 1 });
    expect(again.body.value.qa.disagreements[0].settledStatus).toBe('rejected');
    // the annotator sees the final status with the first reviewer's feedback
    const mine = await hub.call('submissions:mine', {}, { token: await hub.token('annotator') });
    expect(mine.body.value.submissions).toMatchObject([
      { id, status: 'rejected', reviewer: 'rev', feedback: 'fine' },
    ]);
    // a submission without a second review cannot be settled
    const none = await hub.call('qa:settle', { id: 999_999, status: 'accepted' }, { token: adm });
    expect(none.body.error?.code).toBe('NOT_FOUND');
  }, 60_000);
});
