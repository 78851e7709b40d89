// Task hub figures (docs/team-mode.md §16): `npx tsx bench/hub-tasks.ts [TASKS]` on a PostgreSQL
// test server (tests/helpers/postgres.ts). Imports TASKS tasks (default 20,000) as one JSONL file
// (dry run, then import), links 2 submissions to every tenth task, then times tasks:list (open
// tasks of one platform, fewest recordings first, 1,000 rows) and 200 claims one after the other
// and 200 at once (20 annotators × 10).
import { performance } from 'node:perf_hooks';
import { sql } from 'kysely';
import { insertUser, listTasks, openHubDb, setUserRoles } from '../src/hub/db';
import {
  claimTask,
  importTasks,
  platformsFor,
  writeTaskSettings,
  type TaskActor,
} from '../src/hub/tasks/tasks';
import { startPostgres } from '../tests/helpers/postgres';

const N = Number(process.argv[2] ?? 20_000);

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
}

async function main(): Promise<void> {
  const server = await startPostgres();
  const hub = await openHubDb({ url: await server.createDatabase() }, { maxConnections: 25 });
  try {
    const db = hub.db;
    const person = async (name: string, role: 'admin' | 'annotator'): Promise<TaskActor> => {
      const id = (await insertUser(db, { name, passwordHash: '$argon2id$bench' }))!;
      await setUserRoles(db, id, [role]);
      return { userId: id, name, client: 'bench' };
    };
    const admin = await person('adm', 'admin');
    const platforms = ['win', 'mac', 'ubuntu', 'any'];
    const text = Array.from({ length: N }, (_, i) =>
      JSON.stringify({
        instruction: `Task ${i}: open the app and change setting ${i} to value ${i * 7}`,
        domain: i % 3 ? 'office' : 'web',
        app: `App ${i % 140}`,
        platform: platforms[i % 4],
        target: 1 + (i % 3),
        tags: [`t${i % 10}`],
      }),
    ).join('\n');
    let t = performance.now();
    const dry = await importTasks(db, admin, { text, format: 'jsonl', dryRun: true });
    const dryMs = performance.now() - t;
    t = performance.now();
    const done = await importTasks(db, admin, { text, format: 'jsonl', dryRun: false });
    const importMs = performance.now() - t;
    // two submissions on every tenth task (the list's order reads them)
    const ann0 = await person('ann0', 'annotator');
    await sql`
      INSERT INTO submissions (annotator_id, recording_id, task, task_id, status)
      SELECT ${ann0.userId}, 'rec-' || t.id || '-' || k, t.instruction, t.id, 'accepted'
        FROM tasks t, generate_series(1, 2) k WHERE t.id % 10 = 0`.execute(db);
    const listMs: number[] = [];
    for (let i = 0; i < 20; i++) {
      t = performance.now();
      await listTasks(db, {
        statuses: ['open'],
        platforms: platformsFor('ubuntu')!,
        userId: ann0.userId,
        limit: 1000,
      });
      listMs.push(performance.now() - t);
    }
    await writeTaskSettings(db, admin, { claimsPerTask: 1, claimsPerPerson: 1000 });
    // tasks without submissions (those with two accepted may close at their target)
    const ids = done.ids.filter((id) => id % 10 !== 0);
    const serialMs: number[] = [];
    for (let i = 0; i < 200; i++) {
      t = performance.now();
      await claimTask(db, ann0, ids[i]!);
      serialMs.push(performance.now() - t);
    }
    const anns: TaskActor[] = [];
    for (let i = 1; i <= 20; i++) {
      anns.push(await person(`ann${i}`, 'annotator'));
    }
    const atOnceMs: number[] = [];
    t = performance.now();
    await Promise.all(
      anns.flatMap((a, k) =>
        Array.from({ length: 10 }, async (_, j) => {
          const s = performance.now();
          await claimTask(db, a, ids[200 + ((k * 10 + j) % 100)]!);
          atOnceMs.push(performance.now() - s);
        }),
      ),
    );
    const wallMs = performance.now() - t;
    const f = (x: number) => x.toFixed(1);
    console.log(`tasks: ${N} (${dry.errors.length} bad lines)`);
    console.log(`import dry run: ${f(dryMs)} ms; import: ${f(importMs)} ms (${done.added} added)`);
    console.log(
      `tasks:list (open, ubuntu+any, 1,000 rows of ${Math.round(N / 2)}): p50 ${f(pct(listMs, 50))} / max ${f(Math.max(...listMs))} ms`,
    );
    console.log(
      `claim one at a time: p50 ${f(pct(serialMs, 50))} / p99 ${f(pct(serialMs, 99))} ms; ` +
        `200 at once on 100 tasks: p50 ${f(pct(atOnceMs, 50))} / p99 ${f(pct(atOnceMs, 99))} ms, ` +
        `wall ${f(wallMs)} ms`,
    );
  } finally {
    await hub.close();
    await server.stop();
  }
}

await main();
