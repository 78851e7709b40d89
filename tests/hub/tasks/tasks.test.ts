// The task hub (src/hub/tasks/tasks.ts, docs/team-mode.md §16) with one test body on embedded
// PGlite (one per file, shared: each test uses its own instructions) and on Debian's PostgreSQL
// (tests/helpers/postgres.ts, a fresh database per test, a pool of 25 connections so the 30
// annotators' claims really run at once). Claim expiry is simulated by moving a claim's end
// into the past in the database (the clock the hub compares with).
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  insertUser,
  listTasks,
  openHubDb,
  setUserRoles,
  type HubDatabase,
  type HubRootDb,
} from '../../../src/hub/db';
import { leaseNext, recordVerdict, registerVersion } from '../../../src/hub/review/queue';
import {
  afterVerdict,
  claimTask,
  importTasks,
  linkSubmissionToTask,
  releaseTask,
  reportInfeasible,
  setTaskOpen,
  updateTask,
  writeTaskSettings,
  type TaskActor,
} from '../../../src/hub/tasks/tasks';
import type { HubRole } from '../../../src/shared/contract/hub';
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
let runs = 0;

beforeAll(async () => {
  [pgServer, pgliteDir] = await Promise.all([
    startPostgres(),
    mkdtemp(path.join(os.tmpdir(), 'hub-tasks-')),
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
    open: async () => (shared ??= await openHubDb({ data: pgliteDir })),
    done: () => Promise.resolve(),
  },
  {
    name: 'PostgreSQL',
    open: async () =>
      await openHubDb({ url: await pgServer.createDatabase() }, { maxConnections: 25 }),
    done: (h) => h.close(),
  },
];

// an account straight in the tables (no argon2: 30 annotators would cost seconds of hashing)
async function person(db: HubRootDb, role: HubRole): Promise<TaskActor> {
  users += 1;
  const name = `u${users}-${process.pid}`;
  const id = await insertUser(db, { name, passwordHash: '$argon2id$test-not-a-hash' });
  await setUserRoles(db, id!, [role]);
  return { userId: id!, name, client: 'test' };
}

// a run's own instruction prefix: tests on the shared PGlite never see each other's tasks
function prefix(): string {
  runs += 1;
  return `r${runs}p${process.pid}`;
}

async function countTasks(db: HubRootDb, like: string): Promise<number> {
  const { rows } = await sql<{ n: number }>`
    SELECT count(*) AS n FROM tasks WHERE instruction LIKE ${`${like}%`}`.execute(db);
  return Number(rows[0]!.n);
}

// 1,000 lines: 993 tasks and 7 bad lines at known places, each bad in its own way
function thousandLines(p: string): { text: string; bad: Map<number, RegExp> } {
  const bad = new Map<number, RegExp>([
    [3, /not JSON/],
    [150, /"instruction" is missing/],
    [151, /"platform" must be one of/],
    [400, /"target" must be a whole number/],
    [512, /unknown field "instrution"/],
    [777, /"url" must be an http/],
    [1000, /must be a JSON object/],
  ]);
  const lines: string[] = [];
  for (let line = 1; line <= 1000; line++) {
    const good = {
      instruction: `${p} task number ${line}: open the settings and change item ${line}`,
      domain: line % 2 ? 'office' : 'web',
      app: line % 2 ? 'LibreOffice Calc' : 'Firefox',
      platform: ['win', 'mac', 'ubuntu', 'any'][line % 4],
      target: 1 + (line % 3),
      tags: ['batch-1', `n${line % 5}`],
    };
    const text =
      line === 3
        ? `{"instruction": "${p} broken`
        : line === 150
          ? JSON.stringify({ ...good, instruction: '   ' })
          : line === 151
            ? JSON.stringify({ ...good, platform: 'beos' })
            : line === 400
              ? JSON.stringify({ ...good, target: 0 })
              : line === 512
                ? JSON.stringify({ instrution: good.instruction })
                : line === 777
                  ? JSON.stringify({ ...good, url: 'javascript:alert(1)' })
                  : line === 1000
                    ? JSON.stringify([good.instruction])
                    : JSON.stringify(good);
    lines.push(text);
  }
  return { text: `${lines.join('\n')}\n`, bad };
}

describe.each(BACKENDS)('the task hub on $name', (backend) => {
  it('imports 1,000 lines with 7 bad ones: the dry run names each bad line and writes nothing; the import lands 993; a re-import refuses them as duplicates', async () => {
    const h = await backend.open();
    try {
      const admin = await person(h.db, 'admin');
      const p = prefix();
      const { text, bad } = thousandLines(p);
      const dry = await importTasks(h.db, admin, { text, format: 'jsonl', dryRun: true });
      expect(dry.errors.map((e) => e.line)).toEqual([...bad.keys()]);
      for (const e of dry.errors) {
        expect(e.message).toMatch(bad.get(e.line)!);
      }
      expect([dry.added, dry.duplicates, dry.ids]).toEqual([993, 0, []]);
      expect(await countTasks(h.db, p)).toBe(0);

      // bad lines and no confirmation: refused, naming them, nothing written
      const refused = await importTasks(h.db, admin, {
        text,
        format: 'jsonl',
        dryRun: false,
      }).catch((e: unknown) => e);
      expect(refused).toMatchObject({
        code: 'HUB_TASK_FILE_INVALID',
        details: { tasks: 993, moreErrors: 0 },
      });
      expect(
        (refused as { details: { errors: { line: number }[] } }).details.errors.map((e) => e.line),
      ).toEqual([...bad.keys()]);
      expect(await countTasks(h.db, p)).toBe(0);

      const done = await importTasks(h.db, admin, {
        text,
        format: 'jsonl',
        dryRun: false,
        confirm: true,
      });
      expect([done.added, done.duplicates, done.errors.length, done.ids.length]).toEqual([
        993, 0, 7, 993,
      ]);
      expect(await countTasks(h.db, p)).toBe(993);
      const one = (
        await listTasks(h.db, { ids: [done.ids[0]!], userId: admin.userId, limit: 1 })
      )[0]!;
      expect(one).toMatchObject({
        instruction: `${p} task number 1: open the settings and change item 1`,
        domain: 'office',
        app: 'LibreOffice Calc',
        platform: 'mac',
        target: 2,
        status: 'open',
        tags: ['batch-1', 'n1'],
        recorded: 0,
        accepted: 0,
        claimedBy: [],
      });

      // the same file again, re-spaced and in capitals: every good line is a duplicate
      const shouted = text
        .split('\n')
        .map((l) => l.replace(/task number (\d+)/, (_m, n: string) => `TASK   Number ${n}`))
        .join('\n');
      const again = await importTasks(h.db, admin, {
        text: shouted,
        format: 'jsonl',
        dryRun: false,
        confirm: true,
      });
      expect([again.added, again.duplicates, again.errors.length]).toEqual([0, 993, 7]);
      expect(again.duplicateLines.every((d) => d.of === null)).toBe(true);
      expect(await countTasks(h.db, p)).toBe(993);
    } finally {
      await backend.done(h);
    }
  }, 120_000);

  it('imports CSV with quoted commas, quotes and line breaks; a repeated line is a duplicate of the earlier one', async () => {
    const h = await backend.open();
    try {
      const admin = await person(h.db, 'admin');
      const p = prefix();
      const csv =
        'instruction,description,category,website,url,platform,target,tags\r\n' +
        `"${p} Reply to ""Hello, world"" in Thunderbird","line one\nline two",mail,Thunderbird,,ubuntu,2,"mail;reply"\r\n` +
        `${p} open example.org,,web,example.org,https://example.org/,any,,\r\n` +
        `${p} bad "quote" here,,web,,,any,1,\r\n` +
        `${p} too few fields,web\r\n` +
        `"${p}  OPEN   example.org",,web,,,win,1,\r\n`;
      const r = await importTasks(h.db, admin, {
        text: csv,
        format: 'csv',
        dryRun: false,
        confirm: true,
      });
      expect(r.errors).toEqual([
        { line: 5, message: expect.stringMatching(/quote inside an unquoted field/) },
        { line: 6, message: 'has 2 field(s), the header 8' },
      ]);
      expect(r.duplicateLines).toEqual([{ line: 7, of: 4 }]);
      expect(r.added).toBe(2);
      const [first] = await listTasks(h.db, { ids: [r.ids[0]!], userId: admin.userId, limit: 1 });
      expect(first).toMatchObject({
        instruction: `${p} Reply to "Hello, world" in Thunderbird`,
        description: 'line one\nline two',
        domain: 'mail',
        app: 'Thunderbird',
        platform: 'ubuntu',
        target: 2,
        tags: ['mail', 'reply'],
      });
    } finally {
      await backend.done(h);
    }
  }, 60_000);

  it('30 annotators claiming 10 open tasks at once (one claim per task): each task is claimed once; with one claim per person each holds at most one', async () => {
    const h = await backend.open();
    try {
      const admin = await person(h.db, 'admin');
      await writeTaskSettings(h.db, admin, { claimsPerTask: 1, claimsPerPerson: 3 });
      const p = prefix();
      const lines = Array.from({ length: 10 }, (_, i) =>
        JSON.stringify({ instruction: `${p} claim me ${i}`, platform: 'any' }),
      );
      const { ids } = await importTasks(h.db, admin, {
        text: lines.join('\n'),
        format: 'jsonl',
        dryRun: false,
      });
      expect(ids).toHaveLength(10);
      const annotators: TaskActor[] = [];
      for (let i = 0; i < 30; i++) {
        annotators.push(await person(h.db, 'annotator'));
      }
      // round 1: three annotators on each task, all at once
      const round1 = await Promise.all(annotators.map((a, i) => claimTask(h.db, a, ids[i % 10]!)));
      expect(round1.filter((r) => r.claimed)).toHaveLength(10);
      expect(round1.filter((r) => !r.claimed).every((r) => r.reason === 'full')).toBe(true);
      const winners = new Map<number, string[]>();
      round1.forEach((r, i) => {
        if (r.claimed) {
          winners.set(r.task.id, [...(winners.get(r.task.id) ?? []), annotators[i]!.name]);
        }
      });
      expect([...winners.keys()].sort((a, b) => a - b)).toEqual(ids);
      const listed = await listTasks(h.db, { ids, userId: admin.userId, limit: 10 });
      for (const t of listed) {
        expect(t.claimedBy).toEqual(winners.get(t.id));
      }

      // round 2: everyone gives back, then all 30 try all 10 tasks at once (300 claims) with
      // one claim per person
      await Promise.all(
        round1.flatMap((r, i) => (r.claimed ? [releaseTask(h.db, annotators[i]!, r.task.id)] : [])),
      );
      await writeTaskSettings(h.db, admin, { claimsPerPerson: 1 });
      const attempts = annotators.flatMap((a, i) =>
        ids.map((_, k) => ({ a, id: ids[(i + k) % 10]! })),
      );
      const round2 = await Promise.allSettled(attempts.map((x) => claimTask(h.db, x.a, x.id)));
      const held = new Map<string, number>();
      const perTask = new Map<number, number>();
      round2.forEach((r, n) => {
        if (r.status === 'fulfilled' && r.value.claimed) {
          const who = attempts[n]!.a.name;
          held.set(who, (held.get(who) ?? 0) + 1);
          perTask.set(r.value.task.id, (perTask.get(r.value.task.id) ?? 0) + 1);
        } else if (r.status === 'rejected') {
          expect((r.reason as { code?: string }).code).toBe('HUB_TASK_CLAIM_LIMIT');
        }
      });
      expect([...perTask.values()]).toEqual(Array(10).fill(1));
      expect([...held.values()].every((n) => n === 1)).toBe(true);
      expect(held.size).toBe(10);
      const { rows } = await sql<{ task_id: number; n: number }>`
        SELECT task_id, count(*) AS n FROM task_claims
         WHERE ended_at IS NULL AND task_id IN (${sql.join(ids)}) GROUP BY task_id`.execute(h.db);
      expect(rows.map((r) => Number(r.n))).toEqual(Array(10).fill(1));
    } finally {
      await backend.done(h);
    }
  }, 120_000);

  it('an expired claim returns its task: listed unclaimed, claimable by another, ended as expired', async () => {
    const h = await backend.open();
    try {
      const admin = await person(h.db, 'admin');
      await writeTaskSettings(h.db, admin, { claimsPerTask: 1, claimsPerPerson: 3 });
      const p = prefix();
      const { ids } = await importTasks(h.db, admin, {
        text: JSON.stringify({ instruction: `${p} expire me` }),
        format: 'jsonl',
        dryRun: false,
      });
      const id = ids[0]!;
      const [ann1, ann2] = [await person(h.db, 'annotator'), await person(h.db, 'annotator')];
      const first = await claimTask(h.db, ann1, id);
      expect(first.claimed).toBe(true);
      expect(first.expiresAtMs).toBeGreaterThan(Date.now() + 60 * 60_000);
      expect((await claimTask(h.db, ann2, id)).claimed).toBe(false);
      // claiming again renews one's own claim
      expect((await claimTask(h.db, ann1, id)).claimed).toBe(true);
      await sql`UPDATE task_claims SET expires_at = now() - interval '1 second'
                 WHERE task_id = ${id} AND ended_at IS NULL`.execute(h.db);
      const [after] = await listTasks(h.db, { ids: [id], userId: ann1.userId, limit: 1 });
      expect([after!.claimedBy, after!.myClaimExpiresAtMs]).toEqual([[], null]);
      const second = await claimTask(h.db, ann2, id);
      expect([second.claimed, second.task.claimedBy]).toEqual([true, [ann2.name]]);
      const { rows } = await sql<{ end_reason: string | null; user_id: number }>`
        SELECT end_reason, user_id FROM task_claims WHERE task_id = ${id} ORDER BY id`.execute(
        h.db,
      );
      expect(rows).toEqual([
        { end_reason: 'expired', user_id: ann1.userId },
        { end_reason: null, user_id: ann2.userId },
      ]);
    } finally {
      await backend.done(h);
    }
  }, 60_000);

  it('enough infeasible reports set a task aside for an admin, who reopens it; a task closes itself at its target of accepted submissions', async () => {
    const h = await backend.open();
    try {
      const admin = await person(h.db, 'admin');
      await writeTaskSettings(h.db, admin, {
        infeasibleReports: 2,
        claimsPerTask: 5,
        claimsPerPerson: 3,
      });
      const p = prefix();
      const { ids } = await importTasks(h.db, admin, {
        text: [`${p} cannot be done`, `${p} done twice`]
          .map((instruction) => JSON.stringify({ instruction, target: 2 }))
          .join('\n'),
        format: 'jsonl',
        dryRun: false,
      });
      const [hard, easy] = ids as [number, number];
      const anns = [await person(h.db, 'annotator'), await person(h.db, 'annotator')];
      await claimTask(h.db, anns[0]!, hard);
      const r1 = await reportInfeasible(h.db, anns[0]!, { taskId: hard, reason: 'site gone' });
      expect([r1.reports, r1.setAside, r1.task.status, r1.task.claimedBy]).toEqual([
        1,
        false,
        'open',
        [],
      ]);
      const r2 = await reportInfeasible(h.db, anns[1]!, { taskId: hard, reason: 'no such menu' });
      expect([r2.reports, r2.setAside, r2.task.status]).toEqual([2, true, 'infeasible']);
      await expect(claimTask(h.db, anns[1]!, hard)).rejects.toMatchObject({
        code: 'INVALID_STATE',
      });
      const open = await listTasks(h.db, {
        statuses: ['open'],
        ids,
        userId: admin.userId,
        limit: 9,
      });
      expect(open.map((t) => t.id)).toEqual([easy]);
      const reopened = await setTaskOpen(h.db, admin, hard, true);
      expect([reopened.status, reopened.reports]).toEqual(['open', 0]);

      // two accepted submissions close "done twice"
      const reviewer = await person(h.db, 'reviewer');
      await updateTask(h.db, admin, easy, { tags: ['closing'] });
      for (const [k, ann] of anns.entries()) {
        await claimTask(h.db, ann, easy);
        const reg = await registerVersion(h.db, {
          annotator: ann,
          recordingId: `rec-${p}-${k}`,
          task: `${p} done twice`,
          manifestSha256: (k + 1).toString(16).padStart(64, '0'),
          objectPrefix: `x/${p}/${k}`,
        });
        await linkSubmissionToTask(h.db, ann, { submissionId: reg.submissionId, taskId: easy });
        const [mine] = await listTasks(h.db, { ids: [easy], userId: ann.userId, limit: 1 });
        // the submission ended the annotator's claim
        expect(mine!.myClaimExpiresAtMs).toBeNull();
        const lease = (await leaseNext(h.db, reviewer, 60_000))!;
        expect(lease.submissionId).toBe(reg.submissionId);
        await recordVerdict(h.db, {
          reviewer,
          submissionId: reg.submissionId,
          version: lease.version,
          verdict: 'accept',
        });
        await afterVerdict(h.db, reviewer, reg.submissionId);
        const [t] = await listTasks(h.db, { ids: [easy], userId: admin.userId, limit: 1 });
        expect([t!.accepted, t!.status]).toEqual([k + 1, k === 0 ? 'open' : 'closed']);
      }
    } finally {
      await backend.done(h);
    }
  }, 60_000);
});
