// The intake job's handler, run directly (no engine) on PGlite and the folder store: the
// example recording's bundle passes and joins the review queue; a manifest that lies (a file's
// bytes changed after registration), a bundle with an unresolved secret and one whose rows do
// not restore fail with their reasons, go back to the annotator (status intake-failed, shown in
// the annotator's list) and are never leased; their jobs are refused (JobRefused: the engine
// dead-letters them at once, jobs-e2e.test.ts); a second run of the same key changes nothing.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  findJobVersion,
  insertUser,
  listAudit,
  openHubDb,
  setUserRoles,
  type HubDatabase,
} from '../../../src/hub/db';
import {
  createIntakeHandler,
  INTAKE_REFUSED,
  type IntakeResult,
} from '../../../src/hub/jobs/handlers';
import { JobRefused } from '../../../src/hub/jobs/types';
import { leaseNext, listForAnnotator } from '../../../src/hub/review/queue';
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
let template: BundleTemplate;
let annotator: { userId: number; name: string };
let reviewer: { userId: number; name: string };

async function person(name: string, role: 'annotator' | 'reviewer') {
  const id = await insertUser(hub.db, { name, passwordHash: '$argon2id$test-not-a-hash' });
  await setUserRoles(hub.db, id!, [role]);
  return { userId: id!, name };
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'hub-intake-'));
  [hub, template] = await Promise.all([
    openHubDb({ data: path.join(dir, 'hub') }),
    bundleTemplate(),
  ]);
  store = new FolderObjectStore({ dir: path.join(dir, 'objects'), secret: randomBytes(32) });
  annotator = await person('ann', 'annotator');
  reviewer = await person('rev', 'reviewer');
}, 180_000);

afterAll(async () => {
  await hub?.close();
  template?.cleanup();
  await rm(dir, { recursive: true, force: true });
});

describe('intake', () => {
  it('passes the example bundle: re-hashed, scanned, checked; then it joins the queue; a rerun changes nothing', async () => {
    const b = await makeBundle(template, { annotator: annotator.name });
    const r = await submitBundle(hub.db, store, b, annotator, { awaitIntake: true });
    expect(r.status).toBe('intake');
    // not yet intaken: no reviewer gets it
    expect(await leaseNext(hub.db, { ...reviewer, client: 'test' })).toBeNull();
    const intake = createIntakeHandler({ db: hub.db, store });
    const key = `intake:${r.submissionId}@${r.version}`;
    const result = await intake(
      { submissionId: r.submissionId, version: r.version },
      testContext(key),
    );
    expect(result).toMatchObject({
      status: 'passed',
      reasons: [],
      decided: true,
      integrity: { files: b.manifest.files.length, problems: [] },
      pii: { unresolvedBlocking: 0 },
      check: { ok: true, errors: 0 },
    });
    expect(result.check!.codes).toEqual(['LONG_IDLE', 'NO_TERMINATE']);
    const v = await findJobVersion(hub.db, r.submissionId, r.version);
    expect(v).toMatchObject({ status: 'submitted', intakeStatus: 'passed' });
    // the same key again: the stored outcome, no second audit row
    const again = await intake(
      { submissionId: r.submissionId, version: r.version },
      testContext(key),
    );
    expect(again).toMatchObject({ status: 'passed', decided: false, ms: 0 });
    const audits = (await listAudit(hub.db, { limit: 100 })).filter(
      (a) => a.action === 'submission.intake' && a.target === `submission:${r.submissionId}`,
    );
    expect(audits).toHaveLength(1);
    const leased = await leaseNext(hub.db, { ...reviewer, client: 'test' });
    expect(leased?.submissionId).toBe(r.submissionId);
  });

  it('a poisoned submission (a manifest that lies) fails with the reason, is refused (dead letter), goes back to the annotator, and the queue moves on', async () => {
    const intake = createIntakeHandler({ db: hub.db, store });
    const liar = await makeBundle(template, { annotator: annotator.name });
    const bad = await submitBundle(hub.db, store, liar, annotator, { awaitIntake: true });
    // the stored steps change after registration: the manifest now lies about them
    const prefix = (await findJobVersion(hub.db, bad.submissionId, bad.version))!.objectPrefix;
    await store.put(`${prefix}/steps/steps.json`, Buffer.from('[]'));
    const secret = await makeBundle(template, {
      annotator: annotator.name,
      // a key in a raw file kept from the import (not in any step): an unresolved finding of a
      // blocking kind that only the scan of raw files sees
      edit: (key, text) =>
        key.endsWith('/task_name.json')
          ? text.replace('"description": ""', '"description": "key AKIAIOSFODNN7EXAMPLE"')
          : text,
    });
    const leaky = await submitBundle(hub.db, store, secret, annotator, { awaitIntake: true });
    const good = await submitBundle(
      hub.db,
      store,
      await makeBundle(template, { annotator: annotator.name }),
      annotator,
      { awaitIntake: true },
    );
    // a failed intake is recorded, then its job refused: the refusal carries the outcome
    const run = async (s: { submissionId: number; version: number }): Promise<IntakeResult> => {
      try {
        return await intake(
          { submissionId: s.submissionId, version: s.version },
          testContext(`intake:${s.submissionId}@${s.version}`),
        );
      } catch (e) {
        expect(e).toBeInstanceOf(JobRefused);
        const refused = e as JobRefused;
        expect(refused.code).toBe(INTAKE_REFUSED);
        const result = refused.details.intake as IntakeResult;
        expect(refused.details.reasons).toEqual(result.reasons);
        expect(refused.message).toContain(result.reasons[0]!.code);
        return result;
      }
    };
    const [r1, r2, r3] = [await run(bad), await run(leaky), await run(good)];
    // the same key again (a rerun, an admin's retry): refused again with the stored reasons,
    // nothing re-checked, no second audit row
    const r1again = await run(bad);
    expect(r1again).toMatchObject({ status: 'failed', decided: false, ms: 0 });
    expect(r1again.reasons).toEqual(r1.reasons);
    expect(
      (await listAudit(hub.db, { limit: 100 })).filter(
        (a) => a.action === 'submission.intake' && a.target === `submission:${bad.submissionId}`,
      ),
    ).toHaveLength(1);
    expect(r1.status).toBe('failed');
    expect(r1.reasons[0]).toMatchObject({ code: 'INTEGRITY_FAILED' });
    expect(r1.reasons[0]!.message).toContain('steps/steps.json (size)');
    expect(r1.integrity!.problems).toEqual([
      expect.objectContaining({ path: 'steps/steps.json', problem: 'size' }),
    ]);
    expect(r2.status).toBe('failed');
    expect(r2.reasons).toEqual([
      expect.objectContaining({
        code: 'PII_UNRESOLVED',
        message: expect.stringContaining('secret'),
      }),
    ]);
    expect(r3.status).toBe('passed');
    // the annotator sees the reasons; the reviewer gets only the good one
    const mine = await listForAnnotator(hub.db, annotator);
    const byId = new Map(mine.map((s) => [s.id, s]));
    expect(byId.get(bad.submissionId)).toMatchObject({ status: 'intake-failed' });
    expect(byId.get(bad.submissionId)!.intake).toMatchObject({
      status: 'failed',
      reasons: [expect.objectContaining({ code: 'INTEGRITY_FAILED' })],
    });
    expect(byId.get(leaky.submissionId)).toMatchObject({ status: 'intake-failed' });
    const rev2 = await person('rev2', 'reviewer');
    const leased = await leaseNext(hub.db, { ...rev2, client: 'test' });
    expect(leased?.submissionId).toBe(good.submissionId);
    const rev3 = await person('rev3', 'reviewer');
    expect(await leaseNext(hub.db, { ...rev3, client: 'test' })).toBeNull();
  });

  it('without a job runner (awaitIntake off) a version goes straight to the queue, as before', async () => {
    const r = await submitBundle(
      hub.db,
      store,
      await makeBundle(template, { annotator: annotator.name }),
      annotator,
    );
    expect(r.status).toBe('submitted');
    expect((await findJobVersion(hub.db, r.submissionId, r.version))!.intakeStatus).toBeNull();
  });

  it('refuses a payload that is not one (INVALID_PAYLOAD) and an unknown version (NOT_FOUND)', async () => {
    const intake = createIntakeHandler({ db: hub.db, store });
    await expect(intake({ submissionId: 'x' } as never, testContext('k'))).rejects.toMatchObject({
      code: 'INVALID_PAYLOAD',
    });
    await expect(
      intake({ submissionId: 999_999, version: 1 }, testContext('k')),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});
