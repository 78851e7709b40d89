// The dashboard's summary table (migration 18, submission_facts + action_kinds, kept by
// triggers): filled from a hub that already had data when it was migrated, and kept equal to
// its source tables through every kind of write — a verdict's status change, a resubmission
// whose summary lands before or after the version bump, a task linked later — on embedded
// PGlite and on Debian's PostgreSQL; after each, the dashboard's figures equal the ones computed
// in TypeScript from the changed synthetic data.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  HUB_MIGRATIONS,
  hubStats,
  insertVersionStats,
  openHubDb,
  type HubDatabase,
  type HubDbTarget,
  type HubRootDb,
  type StatsFilter,
} from '../../../src/hub/db';
import { startPostgres, type Postgres } from '../../helpers/postgres';
import { actual, DAY, expected, load, rounded, synthesize, T0, TASKS } from './synthetic';

// what submission_facts must hold, recomputed from the tables it summarises
async function recomputed(db: HubRootDb) {
  return (
    await sql<Record<string, unknown>>`
      SELECT s.id AS submission_id, s.status, s.annotator_id, s.task_id, s.created_at,
             s.current_version AS version, st.os, st.step_count, st.action_counts,
             st.video_ms, st.keyframe_count
      FROM submissions AS s
      LEFT JOIN version_stats AS st
        ON st.submission_id = s.id AND st.version = s.current_version
      WHERE s.current_version > 0
      ORDER BY 1`.execute(db)
  ).rows;
}
async function verdictRecomputed(db: HubRootDb) {
  return (
    await sql<Record<string, unknown>>`
      SELECT v.id AS verdict_id, v.submission_id, v.reviewer_id, v.verdict, v.grade,
             lower(trim(split_part(v.feedback, E'\n', 1))) AS reason,
             extract(epoch FROM v.at - sv.submitted_at)::float8 AS turnaround_s,
             s.annotator_id, s.task_id, s.created_at, st.os
      FROM verdicts AS v
      JOIN submission_versions AS sv ON sv.submission_id = v.submission_id AND sv.version = v.version
      JOIN submissions AS s ON s.id = v.submission_id
      LEFT JOIN version_stats AS st ON st.submission_id = s.id AND st.version = s.current_version
      ORDER BY 1`.execute(db)
  ).rows;
}
async function verdictFacts(db: HubRootDb) {
  return (
    await sql<Record<string, unknown>>`
      SELECT verdict_id, submission_id, reviewer_id, verdict, grade, reason, turnaround_s,
             annotator_id, task_id, created_at, os
      FROM verdict_facts ORDER BY 1`.execute(db)
  ).rows;
}
// both summary tables equal what they summarise
async function expectInStep(db: HubRootDb) {
  expect(await facts(db)).toEqual(await recomputed(db));
  expect(await verdictFacts(db)).toEqual(await verdictRecomputed(db));
}
async function facts(db: HubRootDb) {
  return (
    await sql<Record<string, unknown>>`
      SELECT submission_id, status, annotator_id, task_id, created_at, version, os, step_count,
             action_counts, video_ms, keyframe_count
      FROM submission_facts ORDER BY 1`.execute(db)
  ).rows;
}
const FILTERS: StatsFilter[] = [{}, { os: 'linux' }, { annotator: 'ann-c' }, { tag: 'easy' }];

let pgServer: Postgres;
let pgliteDir: string;
beforeAll(async () => {
  [pgServer, pgliteDir] = await Promise.all([
    startPostgres(),
    mkdtemp(path.join(os.tmpdir(), 'hub-facts-')),
  ]);
}, 120_000);
afterAll(async () => {
  await pgServer?.stop();
  await rm(pgliteDir, { recursive: true, force: true });
});

const BACKENDS: { name: string; target: () => Promise<HubDbTarget> }[] = [
  { name: 'PGlite (embedded)', target: () => Promise.resolve({ data: pgliteDir }) },
  { name: 'PostgreSQL', target: async () => ({ url: await pgServer.createDatabase() }) },
];

describe.each(BACKENDS)('submission_facts on $name', ({ target }) => {
  it('is filled on migration and follows every write; the figures follow it', async () => {
    const where = await target();
    const data = synthesize(80);
    // a hub of the build before migration 18, with data
    const old: HubDatabase = await openHubDb(where, {
      migrations: HUB_MIGRATIONS.filter((m) => m.version < 18),
    });
    try {
      await load(old.db, data, '');
    } finally {
      await old.close();
    }
    const hub = await openHubDb(where);
    try {
      expect(hub.migration.applied).toContain(18);
      const db = hub.db;
      const before = await facts(db);
      expect(before.length).toBe(data.length);
      await expectInStep(db);
      expect((await verdictFacts(db)).length).toBe(data.flatMap((s) => s.verdicts).length);
      for (const f of FILTERS) {
        expect(actual(await hubStats(db, f)), JSON.stringify(f)).toEqual(
          rounded(expected(data, f, '')),
        );
      }
      const kinds = (await sql<{ kind: string }>`SELECT kind FROM action_kinds`.execute(db)).rows;
      expect(kinds.map((k) => k.kind).sort()).toEqual(
        [...new Set(data.flatMap((s) => s.versions.flatMap((v) => Object.keys(v.actions))))].sort(),
      );

      const ids = (
        await sql<{ id: number }>`SELECT id FROM submissions ORDER BY id`.execute(db)
      ).rows.map((r) => Number(r.id));
      // 1. a verdict changes a status
      const flip = data.findIndex((s) => s.status === 'rejected');
      data[flip]!.status = 'accepted';
      await sql`UPDATE submissions SET status = 'accepted' WHERE id = ${ids[flip]!}`.execute(db);
      await expectInStep(db);
      // 2. a resubmission: the version bump first, its summary after (the fact has no summary
      //    in between), then a second one with its summary first
      const resub = data.findIndex((s, i) => i !== flip && s.status === 'accepted');
      const id = ids[resub]!;
      const next = {
        os: 'linux',
        actions: { click: 3, scroll: 2, tripleClick: 1 },
        videoMs: 61_000,
        keyframes: 6,
      };
      await sql`
        INSERT INTO submission_versions (submission_id, version, manifest_sha256, object_prefix,
                                         submitted_at)
        VALUES (${id}, ${data[resub]!.versions.length + 1}, ${'e'.repeat(64)}, 'p',
                ${new Date(data[resub]!.createdMs + data[resub]!.versions.length * DAY)})`.execute(
        db,
      );
      await sql`UPDATE submissions SET current_version = current_version + 1 WHERE id = ${id}`.execute(
        db,
      );
      const [between] = (
        await sql<{ os: string | null; step_count: number | null }>`
          SELECT os, step_count FROM submission_facts WHERE submission_id = ${id}`.execute(db)
      ).rows;
      expect(between).toEqual({ os: null, step_count: null });
      await insertVersionStats(db, id, data[resub]!.versions.length + 1, {
        os: next.os,
        stepCount: 6,
        actionCounts: next.actions,
        videoMs: next.videoMs,
        keyframeCount: next.keyframes,
      });
      data[resub]!.versions.push(next);
      await expectInStep(db);
      const third = { os: 'darwin', actions: { write: 4 }, videoMs: 9_000, keyframes: 4 };
      const v3 = data[resub]!.versions.length + 1;
      await sql`
        INSERT INTO submission_versions (submission_id, version, manifest_sha256, object_prefix,
                                         submitted_at)
        VALUES (${id}, ${v3}, ${'f'.repeat(64)}, 'p',
                ${new Date(data[resub]!.createdMs + (v3 - 1) * DAY)})`.execute(db);
      await insertVersionStats(db, id, v3, {
        os: third.os,
        stepCount: 4,
        actionCounts: third.actions,
        videoMs: third.videoMs,
        keyframeCount: third.keyframes,
      });
      // the summary of a version that is not yet current changes nothing
      expect((await facts(db)).find((r) => Number(r.submission_id) === id)).toMatchObject({
        os: 'linux',
        step_count: 6,
      });
      await sql`UPDATE submissions SET current_version = ${v3} WHERE id = ${id}`.execute(db);
      data[resub]!.versions.push(third);
      // its verdict, by a reviewer, with a reason on its first line
      const [reviewer] = (
        await sql<{ id: number }>`SELECT id FROM users WHERE name = 'rev-y'`.execute(db)
      ).rows;
      await sql`
        INSERT INTO verdicts (submission_id, version, reviewer_id, verdict, grade, feedback, at)
        VALUES (${id}, ${v3}, ${reviewer!.id}, 'changes', NULL, ${'  Shaky VIDEO \nthe rest'},
                ${new Date(data[resub]!.createdMs + (v3 - 1) * DAY + 7_200_000)})`.execute(db);
      data[resub]!.verdicts.push({
        version: v3,
        verdict: 'changes',
        grade: null,
        feedback: '  Shaky VIDEO \nthe rest',
        reviewer: 'rev-y',
        afterMs: 7_200_000,
      });
      await expectInStep(db);
      // 3. a recording linked to a task later (submit --task-id)
      const link = data.findIndex((s, i) => i !== flip && i !== resub && s.taskIdx === null);
      data[link]!.taskIdx = 0;
      const [task] = (
        await sql<{
          id: number;
        }>`SELECT id FROM tasks WHERE instruction = ${TASKS[0]!.instruction}`.execute(db)
      ).rows;
      await sql`UPDATE submissions SET task_id = ${task!.id} WHERE id = ${ids[link]!}`.execute(db);
      await expectInStep(db);
      // 4. a submission that has no version yet is not counted until it has one
      const [fresh] = (
        await sql<{ id: number }>`
          INSERT INTO submissions (annotator_id, recording_id, task, status, current_version,
                                   created_at)
          SELECT annotator_id, 'rec-new', 'a task', 'accepted', 0, ${new Date(T0)}
          FROM submissions WHERE id = ${ids[0]!}
          RETURNING id`.execute(db)
      ).rows;
      expect((await facts(db)).some((r) => Number(r.submission_id) === Number(fresh!.id))).toBe(
        false,
      );
      await sql`DELETE FROM submissions WHERE id = ${fresh!.id}`.execute(db);

      await expectInStep(db);
      for (const f of FILTERS) {
        expect(actual(await hubStats(db, f)), JSON.stringify(f)).toEqual(
          rounded(expected(data, f, '')),
        );
      }
      // a kind counted once (version 2's tripleClick) but in no current version: not in the mix
      const counted = (await sql<{ kind: string }>`SELECT kind FROM action_kinds`.execute(db)).rows;
      expect(counted.map((k) => k.kind)).toContain('tripleClick');
      expect(Object.keys((await hubStats(db)).actions.counts)).not.toContain('tripleClick');
    } finally {
      await hub.close();
    }
  }, 120_000);
});
