// Issue 29's scaling figure for the job layer itself: jobs per second drained by 1 vs 2 worker
// processes (the runner of `cua-annotator worker`, src/hub/jobs/worker.ts) on the same machine
// and PostgreSQL. The job is CPU work of about `--job-ms` (SHA-256 rounds over 1 MiB), so the ratio
// shows how the engine lets workers add up; on a 2-core machine that also runs PostgreSQL it stays
// below 2. The intake's own wall time with 1 vs 2 workers is bench/jobs-intake.ts.
//
//   npx tsx bench/jobs-scale.ts [--jobs 400] [--job-ms 20] [--concurrency 2]
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import os from 'node:os';
import * as v from 'valibot';
import { openHubDb } from '../src/hub/db';
import { openJobEngine } from '../src/hub/jobs/engine';
import type { JobQueueSpec } from '../src/hub/jobs/queues';
import type { JobHandler } from '../src/hub/jobs/types';
import { startJobRunner } from '../src/hub/jobs/worker';
import { startPostgres } from '../tests/helpers/postgres';

const QUEUE: JobQueueSpec = {
  name: 'scale',
  schema: v.strictObject({ n: v.number() }),
  policy: { retryLimit: 2, retryDelaySeconds: 1, retryDelayMaxSeconds: 2, expireInSeconds: 300 },
};
const TIMING = { heartbeatSeconds: 10, superviseSeconds: 5, pollSeconds: 0.5 };
const MIB = randomBytes(1 << 20);

function burn(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    createHash('sha256').update(MIB).digest();
  }
}

async function child(url: string, concurrency: number, jobMs: number): Promise<void> {
  const hub = await openHubDb({ url }, { maxConnections: 4 });
  const handler: JobHandler<{ n: number }, number> = async (p) => {
    burn(jobMs);
    return await Promise.resolve(p.n);
  };
  const runner = await startJobRunner({
    database: hub,
    queues: [QUEUE],
    timing: TIMING,
    concurrency,
    handlers: () => ({ scale: handler }),
  });
  process.stdout.write('ready\n');
  process.once('SIGTERM', () => {
    void (async () => {
      await runner.stop({ timeoutMs: 2000 });
      await hub.close();
      process.exit(0);
    })();
  });
}

async function measure(
  pgs: Awaited<ReturnType<typeof startPostgres>>,
  workers: number,
  jobs: number,
  concurrency: number,
  jobMs: number,
): Promise<number> {
  const url = await pgs.createDatabase();
  const hub = await openHubDb({ url });
  const engine = await openJobEngine({ database: hub, queues: [QUEUE], timing: TIMING });
  for (let n = 0; n < jobs; n++) {
    await engine.enqueue('scale', { n }, { key: `scale:${n}` });
  }
  const children = Array.from({ length: workers }, () =>
    spawn(
      process.execPath,
      ['--import', 'tsx', import.meta.filename, '--child', url, String(concurrency), String(jobMs)],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    ),
  );
  await Promise.all(
    children.map((c) => new Promise<void>((r) => c.stdout.once('data', () => r()))),
  );
  const t0 = performance.now();
  for (;;) {
    const [c] = await engine.counts();
    if (c!.done === jobs) {
      break;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  const seconds = (performance.now() - t0) / 1000;
  await Promise.all(
    children.map(
      (c) =>
        new Promise<void>((r) => {
          c.once('exit', () => r());
          c.kill('SIGTERM');
        }),
    ),
  );
  await engine.stop();
  await hub.close();
  return jobs / seconds;
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  if (argv[0] === '--child') {
    await child(argv[1]!, Number(argv[2]), Number(argv[3]));
    return;
  }
  const flag = (name: string, dflt: number) => {
    const i = argv.indexOf(name);
    return i >= 0 ? Number(argv[i + 1]) : dflt;
  };
  const jobs = flag('--jobs', 400);
  const jobMs = flag('--job-ms', 20);
  const concurrency = flag('--concurrency', 2);
  console.log(
    `jobs-scale: ${jobs} jobs of ~${jobMs} ms CPU, concurrency ${concurrency} per worker, ` +
      `${os.cpus().length} cores, load ${os.loadavg()[0]!.toFixed(1)}`,
  );
  const pgs = await startPostgres();
  try {
    const one = await measure(pgs, 1, jobs, concurrency, jobMs);
    console.log(`1 worker:  ${one.toFixed(1)} jobs/s`);
    const two = await measure(pgs, 2, jobs, concurrency, jobMs);
    console.log(`2 workers: ${two.toFixed(1)} jobs/s`);
    console.log(`ratio 2/1: ${(two / one).toFixed(2)} (load now ${os.loadavg()[0]!.toFixed(1)})`);
  } finally {
    await pgs.stop();
  }
  process.exit(0);
}

await main();
