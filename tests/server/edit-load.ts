// Load pieces shared by the fault tests and bench/edits-under-writer.ts: another process holding
// the library's write lock (BEGIN IMMEDIATE … write … hold … COMMIT, again and again), and
// clients sending edits through the real HTTP server over keep-alive connections.
import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import { REPO_ROOT } from '../helpers/paths';

// The lock holder: a plain Node process using better-sqlite3 directly. It writes a row in every
// hold, so a transaction that read before it committed cannot just carry on (its snapshot is
// stale), and prints "held" each time it has the lock. Sleeps block (Atomics.wait) like a busy
// writer would.
const HOLDER_SOURCE = `
const Database = require('better-sqlite3');
const [file, holdsJson, gapMs] = process.argv.slice(1);
const holds = JSON.parse(holdsJson);
const db = new Database(file);
db.pragma('busy_timeout = 60000');
db.exec('CREATE TABLE IF NOT EXISTS fault_lock_holder (at INTEGER)');
const cell = new Int32Array(new SharedArrayBuffer(4));
const sleep = (ms) => Atomics.wait(cell, 0, 0, ms);
process.stdout.write('ready\\n');
for (let i = 0; ; i += 1) {
  db.exec('BEGIN IMMEDIATE');
  db.prepare('INSERT INTO fault_lock_holder (at) VALUES (?)').run(Date.now());
  process.stdout.write('held\\n');
  sleep(holds[i % holds.length]);
  db.exec('COMMIT');
  sleep(Number(gapMs));
}
`;

/** A running lock holder. */
export type LockHolder = {
  /** Resolves the first time it holds the lock. */
  held: Promise<void>;
  /** How many times it has taken the lock so far. */
  holds: () => number;
  /** Kills it (an open transaction is rolled back by SQLite) and waits for its exit. */
  stop: () => Promise<void>;
};

/** Starts a process that holds `dbFile`'s write lock for `holdsMs[i]` ms, then `gapMs` free. */
export function startLockHolder(dbFile: string, holdsMs: number[], gapMs: number): LockHolder {
  const child: ChildProcess = spawn(
    process.execPath,
    ['-e', HOLDER_SOURCE, dbFile, JSON.stringify(holdsMs), String(gapMs)],
    { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let count = 0;
  let stderr = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const held = new Promise<void>((resolve, reject) => {
    child.stdout!.setEncoding('utf8');
    child.stdout!.on('data', (text: string) => {
      count += text.split('\n').filter((l) => l === 'held').length;
      if (count > 0) {
        resolve();
      }
    });
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    child.once('exit', (code) =>
      reject(new Error(`lock holder exited (${String(code)}) before holding: ${stderr}`)),
    );
  });
  return {
    held,
    holds: () => count,
    stop: async () => {
      child.kill('SIGKILL');
      await exited;
    },
  };
}

/** One answer of the server. */
export type CallOutcome = {
  status: number;
  body: { ok: boolean; error?: { code: string; message: string; fix?: string } };
  ms: number;
};

/** POSTs one contract call over `agent` (keep-alive); rejects on a transport error (reset…). */
export function postApi(
  port: number,
  token: string,
  agent: http.Agent,
  method: string,
  payload: unknown,
): Promise<CallOutcome> {
  const started = performance.now();
  const body = JSON.stringify(payload);
  return new Promise((resolve, reject) => {
    const req = http.request({
      host: '127.0.0.1',
      port,
      method: 'POST',
      path: `/api/${method}`,
      agent,
      headers: {
        Host: `127.0.0.1:${port}`,
        Authorization: `Bearer ${token}`,
        'Content-Type': 'application/json',
        'Content-Length': Buffer.byteLength(body),
      },
    });
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        try {
          resolve({
            status: res.statusCode ?? 0,
            body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as CallOutcome['body'],
            ms: performance.now() - started,
          });
        } catch (e) {
          reject(e instanceof Error ? e : new Error(String(e)));
        }
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** What {@link runEditLoad} saw. */
export type EditLoadReport = {
  /** Labels of the edits the server acknowledged (200, ok). */
  acknowledged: string[];
  /** Every failure: an error envelope or a transport error, as text. */
  errors: string[];
  /** Latency of every acknowledged edit, ms, in completion order. */
  latenciesMs: number[];
  /** Latency of the sequential client's edits, ms. */
  sequentialMs: number[];
  /** Wall time of the whole run, ms. */
  wallMs: number;
};

/** Options of {@link runEditLoad}. */
export type EditLoadOptions = {
  port: number;
  token: string;
  /** Recording and step the relabel edits target. */
  recordingId: string;
  stepId: string;
  /** Edits in total (default 500): a fifth from the sequential client, the rest from four others. */
  edits?: number;
  /** Requests each of the four concurrent clients keeps in flight (default 4). */
  inFlight?: number;
};

// One client sending in sequence while four others send concurrently (each keeping `inFlight`
// requests open on its own keep-alive agent); every edit relabels the step with a unique label.
export async function runEditLoad(options: EditLoadOptions): Promise<EditLoadReport> {
  const total = options.edits ?? 500;
  const perClient = Math.floor(total / 5);
  const inFlight = options.inFlight ?? 4;
  const report: EditLoadReport = {
    acknowledged: [],
    errors: [],
    latenciesMs: [],
    sequentialMs: [],
    wallMs: 0,
  };
  const started = performance.now();
  const send = async (agent: http.Agent, label: string, sequential: boolean) => {
    try {
      const r = await postApi(options.port, options.token, agent, 'edits:apply', {
        id: options.recordingId,
        edit: { op: 'relabel', stepId: options.stepId, label },
      });
      if (r.status === 200 && r.body.ok) {
        report.acknowledged.push(label);
        report.latenciesMs.push(r.ms);
        if (sequential) {
          report.sequentialMs.push(r.ms);
        }
      } else {
        report.errors.push(`${label}: HTTP ${r.status} ${JSON.stringify(r.body.error)}`);
      }
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code ?? '';
      report.errors.push(`${label}: ${code} ${(e as Error).message}`);
    }
  };
  const agents: http.Agent[] = [];
  const sequentialClient = async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    agents.push(agent);
    for (let i = 0; i < perClient; i += 1) {
      await send(agent, `seq-${i}`, true);
    }
  };
  const concurrentClient = async (client: number) => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: inFlight });
    agents.push(agent);
    let next = 0;
    const lane = async () => {
      while (next < perClient) {
        const i = next;
        next += 1;
        await send(agent, `c${client}-${i}`, false);
      }
    };
    await Promise.all(Array.from({ length: inFlight }, lane));
  };
  await Promise.all([sequentialClient(), ...[1, 2, 3, 4].map(concurrentClient)]);
  report.wallMs = performance.now() - started;
  for (const agent of agents) {
    agent.destroy();
  }
  return report;
}

/** The `q` quantile (0–1) of `values`, ms (0 for none). */
export function quantile(values: number[], q: number): number {
  if (!values.length) {
    return 0;
  }
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}
