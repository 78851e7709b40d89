// `cua-annotator worker` and `hub status` as real CLI processes on a real PostgreSQL
// (tests/helpers/postgres.ts) and Swift's S3 (tests/helpers/swift.ts): help and usage errors, `hub status --json` before and after a job
// is queued, and a worker's lifecycle (--json events: ready, then stopped on SIGTERM, exit 0).
// The jobs themselves are the engine's tests (engine.test.ts, workers.test.ts) and the handlers'.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openHubDb } from '../../../src/hub/db';
import { openJobEngine } from '../../../src/hub/jobs/engine';
import { HUB_JOB_QUEUES } from '../../../src/hub/jobs/queues';
import { runCli } from '../../helpers/cli';
import { REPO_ROOT } from '../../helpers/paths';
import { startPostgres, type Postgres } from '../../helpers/postgres';
import { startSwift, type Swift } from '../../helpers/swift';
import { createBucket, rawClient } from '../../services/upload/helpers';

let pgServer: Postgres;
let swift: Swift;
let url: string;

beforeAll(async () => {
  [pgServer, swift] = await Promise.all([startPostgres(), startSwift()]);
  url = await pgServer.createDatabase();
  await createBucket(rawClient(swift), 'team-hub');
}, 120_000);
afterAll(async () => {
  await pgServer?.stop();
  await swift?.stop();
});

describe('cua-annotator worker and hub status', () => {
  it('prints its help, and refuses to start without the database or the store', async () => {
    const help = await runCli(['worker', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('--concurrency N');
    expect(help.stdout).toContain('--stop-timeout');
    const noDb = await runCli(['worker', '--storage', 's3://b/p'], {
      CUA_ANNOTATOR_HUB_DATABASE: '',
    });
    expect(noDb.code).toBe(1);
    expect(noDb.stderr).toContain('--database URL');
    const noStore = await runCli(['worker', '--database', url]);
    expect(noStore.code).toBe(1);
    expect(noStore.stderr).toContain('--storage s3://BUCKET/PREFIX');
    const badQueue = await runCli([
      'worker',
      '--database',
      url,
      '--storage',
      's3://b/p',
      '--queues',
      'intake,nope',
    ]);
    expect(badQueue.code).toBe(1);
    expect(badQueue.stderr).toContain('no queue "nope"');
  });

  it('hub status --json counts the queues; a worker starts, reports ready and stops on SIGTERM', async () => {
    const before = await runCli(['hub', 'status', '--database', url, '--json']);
    expect(before.code, before.stderr).toBe(0);
    const empty = JSON.parse(before.stdout) as { queues: { name: string }[] };
    const names = HUB_JOB_QUEUES.map((q) => q.name);
    expect(empty.queues.map((q) => q.name)).toEqual(names);
    expect(names.slice(0, 4)).toEqual(['intake', 'keyframes', 'build-item', 'build-merge']);
    // a job for a submission that does not exist: queued, and nobody runs it here
    const hub = await openHubDb({ url });
    const engine = await openJobEngine({ database: hub });
    await engine.enqueue('build-merge', { buildId: 999 }, { key: 'build-merge:999' });
    await engine.stop();
    await hub.close();
    const after = await runCli(['hub', 'status', '--database', url, '--json']);
    expect(JSON.parse(after.stdout)).toEqual({
      queues: names.map((name) => ({
        name,
        waiting: name === 'build-merge' ? 1 : 0,
        active: 0,
        done: 0,
        failed: 0,
      })),
    });

    // the worker's lifecycle: only the intake queue (the queued merge stays queued)
    const child = spawn(
      process.execPath,
      [
        path.join(REPO_ROOT, 'bin', 'cua-annotator.mjs'),
        'worker',
        '--database',
        url,
        '--storage',
        's3://team-hub/team',
        '--endpoint',
        swift.endpoint,
        '--path-style',
        '--queues',
        'intake',
        '--concurrency',
        '2',
        '--json',
      ],
      { env: { ...process.env, ...swift.env } },
    );
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const ready = new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (d: Buffer) => {
        stdout += d.toString();
        if (stdout.includes('"ready"')) {
          resolve();
        }
      });
      child.once('exit', (code) => reject(new Error(`worker exited ${code}: ${stderr}`)));
    });
    await ready;
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    const events = stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { event: string; queues?: string[]; signal?: string });
    expect(events[0]).toMatchObject({ event: 'ready', queues: ['intake'], concurrency: 2 });
    expect(events.at(-1)).toEqual({ event: 'stopped', signal: 'SIGTERM' });
    const still = await runCli(['hub', 'status', '--database', url, '--json']);
    const stillQueues = (
      JSON.parse(still.stdout) as { queues: { name: string; waiting: number }[] }
    ).queues;
    expect(stillQueues.find((q) => q.name === 'build-merge')?.waiting).toBe(1);
  }, 120_000);
});
