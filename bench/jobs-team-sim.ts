// Issue 29's simulation of a large team on loopback: A annotators each send S small submissions,
// as `submit` does over HTTP (submissions:plan-upload, a PUT of every file to its presigned URL,
// submissions:register), to the real hub (`cua-annotator hub --database … --storage s3://…`: it
// verifies each version, registers it as waiting for its intake and enqueues the intake job) while
// W real `cua-annotator worker` processes take them in (re-hash, restore, PII scan, check). All on
// this machine: PostgreSQL 15 and Swift's S3 started as the tests start them
// (tests/helpers/postgres.ts, tests/helpers/swift.ts), the CLIs run from source.
//
// A submission is small on purpose — the load is the team, not the bytes: a recording of three
// steps and terminate reduced from a short input script, fresh keyframe rows, and a stand-in video
// of BENCH_VIDEO_KIB random bytes (tests/hub/jobs/bundle-fixture.ts smallBundleTemplate; 17 files,
// ~85 KiB with the default video); its intake passes.
//
// Prints: submissions per second (registered, and taken in), the time from the start of a submit
// to its intake result (p50 / p99 / max; the result's time is the worker's transaction that
// stored it), the intake queue's depth over time, and the hub's memory (VmRSS of its process,
// sampled every second) and the workers'.
//
//   npx tsx bench/jobs-team-sim.ts                          50 annotators × 4, 2 workers
//   BENCH_ANNOTATORS=500 npx tsx bench/jobs-team-sim.ts     the issue's size (500 × 4)
//   BENCH_SUBMISSIONS=4 BENCH_WORKERS=2 BENCH_CONCURRENCY=1 BENCH_IN_FLIGHT=50 BENCH_VIDEO_KIB=64
//   (BENCH_IN_FLIGHT: annotators submitting at the same moment; each sends its S one after another)
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { sql } from 'kysely';
import { createApiToken } from '../src/hub/auth/tokens';
import { insertUser, openHubDb, setUserRoles } from '../src/hub/db';
import { openJobEngine } from '../src/hub/jobs/engine';
import { MANIFEST_NAME } from '../src/services/upload/manifest';
import { backoffDelayMs, DEFAULT_RETRY_POLICY } from '../src/services/upload/retry';
import { makeBundle, smallBundleTemplate, type MadeBundle } from '../tests/hub/jobs/bundle-fixture';
import { startPostgres } from '../tests/helpers/postgres';
import { REPO_ROOT } from '../tests/helpers/paths';
import { startSwift } from '../tests/helpers/swift';

const ANNOTATORS = Number(process.env.BENCH_ANNOTATORS ?? 50);
const PER_ANNOTATOR = Number(process.env.BENCH_SUBMISSIONS ?? 4);
const WORKERS = Number(process.env.BENCH_WORKERS ?? 2);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 1);
const IN_FLIGHT = Number(process.env.BENCH_IN_FLIGHT ?? Math.min(50, ANNOTATORS));
const VIDEO_BYTES = Number(process.env.BENCH_VIDEO_KIB ?? 64) * 1024;
const BIN = path.join(REPO_ROOT, 'bin', 'cua-annotator.mjs');
const MIB = 1024 * 1024;

type Transfer = { path: string; request: { url: string; headers: Record<string, string> } };

// 0 once the process is gone (its exit is reported by startCli's watcher)
function rssOf(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

// a hub or worker that exits before the bench stops it ends the run with its stderr
let died: Error | null = null;
const death = (): Error | null => died;

// a CLI child, resolved once it printed its first line on stdout (hub: its URL; worker: ready)
function startCli(
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ child: ChildProcess; first: string; stderr: () => string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      env: { ...process.env, ...env, CUA_ANNOTATOR_FROM_SOURCE: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const onExit = (code: number | null) =>
      reject(new Error(`${args[0]} exited ${code}: ${err.slice(-2000)}`));
    child.once('exit', onExit);
    const onData = (d: Buffer) => {
      out += d.toString();
      const nl = out.indexOf('\n');
      if (nl >= 0) {
        child.stdout.off('data', onData);
        child.stdout.resume();
        child.off('exit', onExit);
        child.once('exit', (code, signal) => {
          died ??= new Error(
            `${args[0]} (pid ${child.pid}) exited mid-run (${code ?? signal}): ${err.slice(-3000)}`,
          );
        });
        resolve({ child, first: out.slice(0, nl), stderr: () => err });
      }
    };
    child.stdout.on('data', onData);
  });
}

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) {
    return Promise.resolve();
  }
  const gone = new Promise<void>((r) => child.once('exit', () => r()));
  child.kill('SIGTERM');
  return gone;
}

// what the team's clients ran into and retried, as `submit` does (src/services/upload/retry.ts:
// the same backoff; a retryable hub answer, a 5xx or a connection error)
const retried = new Map<string, number>();
class Refused extends Error {}

async function withRetries<T>(what: string, op: () => Promise<T | 'retry'>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    let r: T | 'retry';
    try {
      r = await op();
    } catch (e) {
      // a refusal is thrown at once; a connection error is retried
      if (e instanceof Refused || attempt >= DEFAULT_RETRY_POLICY.maxAttempts) {
        throw e;
      }
      r = 'retry';
    }
    if (r !== 'retry') {
      return r;
    }
    if (attempt >= DEFAULT_RETRY_POLICY.maxAttempts) {
      throw new Error(`${what}: still failing after ${attempt} attempts`);
    }
    retried.set(what, (retried.get(what) ?? 0) + 1);
    await new Promise((r) => setTimeout(r, backoffDelayMs(attempt - 1, DEFAULT_RETRY_POLICY)));
  }
}

async function call(url: string, token: string, method: string, input: unknown) {
  return await withRetries(method, async () => {
    const res = await fetch(`${url}/api/${method}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify(input),
    });
    const body = (await res.json()) as {
      ok: boolean;
      value?: unknown;
      error?: { details?: { retryable?: boolean } };
    };
    if (!body.ok) {
      if (res.status >= 500 || body.error?.details?.retryable === true) {
        return 'retry';
      }
      throw new Refused(`${method}: ${JSON.stringify(body.error)}`);
    }
    return body.value as Record<string, unknown>;
  });
}

function bytesOf(b: MadeBundle): Map<string, Buffer> {
  const m = new Map<string, Buffer>();
  for (const f of b.files) {
    m.set(f.path, typeof f.body === 'string' ? readFileSync(f.body) : f.body);
  }
  m.set(MANIFEST_NAME, Buffer.from(b.text));
  return m;
}

const pct = (sorted: number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

async function main(): Promise<void> {
  const total = ANNOTATORS * PER_ANNOTATOR;
  console.log(
    `jobs-team-sim: ${ANNOTATORS} annotators × ${PER_ANNOTATOR} submissions = ${total}, ` +
      `${IN_FLIGHT} annotators at a time, ${WORKERS} workers × concurrency ${CONCURRENCY}; ` +
      `${os.cpus().length} cores, load ${os.loadavg()[0]!.toFixed(1)}`,
  );
  const [pg, swift, template] = await Promise.all([
    startPostgres(),
    startSwift(),
    smallBundleTemplate(VIDEO_BYTES),
  ]);
  const children: ChildProcess[] = [];
  try {
    const bucket = 'team-sim';
    const s3 = new S3Client({
      endpoint: swift.endpoint,
      region: swift.region,
      credentials: swift.credentials,
      forcePathStyle: true,
    });
    await s3.send(new CreateBucketCommand({ Bucket: bucket }));
    s3.destroy();
    const url = await pg.createDatabase();
    // the accounts, straight into the database (as `hub user add` would), before the hub starts
    const hub = await openHubDb({ url }, { holder: 'bench', purpose: 'hub', maxConnections: 4 });
    const people: { name: string; token: string }[] = [];
    const by = { actor: 'bench', actorUserId: null, client: 'cli' };
    for (let i = 0; i < ANNOTATORS; i++) {
      const name = `ann-${i}`;
      const id = (await insertUser(hub.db, { name, passwordHash: '$argon2id$bench' }))!;
      await setUserRoles(hub.db, id, ['annotator']);
      const { token } = await createApiToken(hub.db, { userId: id, userName: name, name: 'b', by });
      people.push({ name, token });
    }
    const storage = ['--storage', `s3://${bucket}/team`, '--endpoint', swift.endpoint];
    const hubProc = await startCli(
      ['hub', '--database', url, ...storage, '--path-style', '--port', '0', '--json'],
      swift.env,
    );
    children.push(hubProc.child);
    const hubUrl = (JSON.parse(hubProc.first) as { url: string }).url;
    const workers = [];
    for (let w = 0; w < WORKERS; w++) {
      const wp = await startCli(
        [
          'worker',
          '--database',
          url,
          ...storage,
          '--path-style',
          '--concurrency',
          String(CONCURRENCY),
          '--json',
        ],
        swift.env,
      );
      children.push(wp.child);
      workers.push(wp);
    }
    const hubRss0 = rssOf(hubProc.child.pid!);

    // every bundle made (and read into memory) before the clock starts
    const bundles = await Promise.all(
      people.map(async (p) =>
        Promise.all(
          Array.from({ length: PER_ANNOTATOR }, async () => {
            const b = await makeBundle(template, { annotator: p.name });
            return { b, bytes: bytesOf(b) };
          }),
        ),
      ),
    );
    const bundleBytes = [...bundles[0]![0]!.bytes.values()].reduce((n, x) => n + x.length, 0);

    // samples: the intake queue and the processes' memory, every second
    const engine = await openJobEngine({ database: hub, supervise: false });
    const t0 = Date.now();
    const samples: { s: number; waiting: number; active: number; done: number; hub: number }[] = [];
    const workerRss: number[] = [];
    let sampling = true;
    const sampler = (async () => {
      while (sampling && !died) {
        const c = (await engine.counts()).find((q) => q.name === 'intake')!;
        samples.push({
          s: (Date.now() - t0) / 1000,
          waiting: c.waiting,
          active: c.active,
          done: c.done + c.failed,
          hub: rssOf(hubProc.child.pid!),
        });
        for (const w of workers) {
          workerRss.push(rssOf(w.child.pid!));
        }
        await new Promise((r) => setTimeout(r, 1000));
      }
    })().catch((e: unknown) => {
      died ??= e instanceof Error ? e : new Error(String(e));
    });

    // the team: IN_FLIGHT annotators at a time, each sending its submissions one after another
    const submitStart = new Map<number, number>();
    const registerMs: number[] = [];
    let next = 0;
    let lastRegistered = 0;
    const lane = async () => {
      for (;;) {
        const i = next++;
        if (i >= ANNOTATORS || died) {
          return;
        }
        const who = people[i]!;
        for (const { b, bytes } of bundles[i]!) {
          const started = Date.now();
          const plan = await call(hubUrl, who.token, 'submissions:plan-upload', {
            manifest: b.text,
          });
          for (const t of plan.uploads as Transfer[]) {
            await withRetries('PUT', async () => {
              const res = await fetch(t.request.url, {
                method: 'PUT',
                headers: t.request.headers,
                body: bytes.get(t.path)!,
              });
              if (res.status >= 500) {
                return 'retry';
              }
              if (!res.ok) {
                throw new Refused(`PUT ${t.path}: ${res.status} ${await res.text()}`);
              }
              return true;
            });
          }
          const reg = await call(hubUrl, who.token, 'submissions:register', {
            recording: plan.recording,
            manifestSha256: plan.manifestSha256,
          });
          submitStart.set(reg.id as number, started);
          lastRegistered = Date.now();
          registerMs.push(lastRegistered - started);
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(IN_FLIGHT, ANNOTATORS) }, lane));
    const d = death();
    if (d) {
      throw d;
    }
    const registeredS = (lastRegistered - t0) / 1000;

    // until every version has its intake result
    let rows: { submission_id: number; intake_status: string; at_ms: number }[] = [];
    for (;;) {
      rows = (
        await sql<{ submission_id: number; intake_status: string; at_ms: number }>`
          SELECT submission_id, intake_status,
            (extract(epoch from intake_at) * 1000)::float8 AS at_ms
          FROM submission_versions WHERE intake_status IN ('passed', 'failed')`.execute(hub.db)
      ).rows;
      if (rows.length >= total) {
        break;
      }
      const d = death();
      if (d) {
        throw d;
      }
      if (Date.now() - t0 > 60 * 60_000) {
        throw new Error(`only ${rows.length} of ${total} intakes in an hour`);
      }
      await new Promise((r) => setTimeout(r, 500));
    }
    sampling = false;
    await sampler;
    const lastIntake = Math.max(...rows.map((r) => Number(r.at_ms)));
    const takenS = (lastIntake - t0) / 1000;
    const latencies = rows
      .map((r) => Number(r.at_ms) - submitStart.get(Number(r.submission_id))!)
      .sort((a, b) => a - b);
    const reg = [...registerMs].sort((a, b) => a - b);
    const failed = rows.filter((r) => r.intake_status !== 'passed').length;
    const dead = await engine.dead();
    const maxDepth = Math.max(...samples.map((s) => s.waiting));
    const hubMax = Math.max(...samples.map((s) => s.hub));

    console.log(
      `bundle: ${bundleBytes} bytes in ${bundles[0]![0]!.bytes.size} files; hub at ${hubUrl}`,
    );
    console.log(
      `registered: ${total} in ${registeredS.toFixed(1)} s = ${(total / registeredS).toFixed(1)} ` +
        `submissions/s (submit = plan + PUTs + register: p50 ${pct(reg, 50)} ms, p99 ` +
        `${pct(reg, 99)} ms)`,
    );
    console.log(
      `client retries (as submit retries): ${
        [...retried].map(([k, n]) => `${k} ${n}`).join(', ') || 'none'
      }`,
    );
    console.log(
      `taken in: ${rows.length} (${failed} failed, ${dead.length} dead letters) in ` +
        `${takenS.toFixed(1)} s = ${(rows.length / takenS).toFixed(1)} intakes/s`,
    );
    console.log(
      `submit → intake result: p50 ${(pct(latencies, 50) / 1000).toFixed(1)} s, p99 ` +
        `${(pct(latencies, 99) / 1000).toFixed(1)} s, max ${(latencies.at(-1)! / 1000).toFixed(1)} s`,
    );
    console.log(
      `intake queue depth (waiting) max ${maxDepth}; over time (s: waiting/active/done):`,
    );
    const step = Math.max(1, Math.ceil(samples.length / 24));
    console.log(
      '  ' +
        samples
          .filter((_, i) => i % step === 0 || i === samples.length - 1)
          .map((s) => `${s.s.toFixed(0)}: ${s.waiting}/${s.active}/${s.done}`)
          .join(', '),
    );
    console.log(
      `hub RSS: ${(hubRss0 / MIB).toFixed(0)} MiB idle, max ${(hubMax / MIB).toFixed(0)} MiB, ` +
        `last ${(samples.at(-1)!.hub / MIB).toFixed(0)} MiB; workers' RSS max ` +
        `${(Math.max(...workerRss) / MIB).toFixed(0)} MiB (from source through tsx); ` +
        `load now ${os.loadavg()[0]!.toFixed(1)}`,
    );
    await engine.stop({ timeoutMs: 1000 });
    await hub.close();
  } finally {
    died ??= new Error('stopping'); // the children's exits from here on are the bench's own
    await Promise.all(children.map((c) => stop(c)));
    template.cleanup();
    await Promise.all([pg.stop(), swift.stop()]);
  }
  process.exit(0);
}

await main();
