// A real PostgreSQL (Debian's 15 on Debian 12) for hub tests: initdb + pg_ctl in a fresh temp folder on a free
// loopback port, fsync off, as the `postgres` user when the tests run as root (initdb refuses
// root), stopped by its pid (waiting for postmaster.pid to go: the pid answers kill -0 for a
// while after a stop). Each test can take its own database.
//
//   const pg = await startPostgres();
//   const url = await pg.createDatabase();   // postgres://postgres@127.0.0.1:PORT/hub_test_1
//   await pg.stop();
import { execFile } from 'node:child_process';
import { chmod, chown, existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';

const run = promisify(execFile);

/** The PostgreSQL binaries: $CUA_TEST_POSTGRES_BIN, else the newest Debian package's
 * (/usr/lib/postgresql/<major>/bin: 15 on Debian 12). */
export const POSTGRES_BIN = process.env.CUA_TEST_POSTGRES_BIN ?? newestDebianBin();

function newestDebianBin(): string {
  const root = '/usr/lib/postgresql';
  let majors: number[] = [];
  try {
    majors = readdirSync(root)
      .map(Number)
      .filter((n) => Number.isInteger(n) && n >= 15);
  } catch {
    // not installed: startPostgres says so
  }
  return path.join(root, String(majors.length ? Math.max(...majors) : 15), 'bin');
}
const STOP_WAIT_MS = 15_000;

/** A running PostgreSQL. */
export type Postgres = {
  port: number;
  /** postgres://postgres@127.0.0.1:PORT/postgres */
  url: string;
  pid: number;
  dir: string;
  /** Creates an empty database and returns its URL. */
  createDatabase: (name?: string) => Promise<string>;
  /** Stops the server (SIGINT: fast shutdown), waits until it is gone, removes its folder. */
  stop: () => Promise<void>;
  /** Stops the server but keeps its data (an outage); `resume` starts it again. */
  pause: () => Promise<void>;
  /** Starts a paused server again on the same port and data. */
  resume: () => Promise<void>;
};

async function freePort(): Promise<number> {
  return await new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

function postgresUser(): { uid: number; gid: number } | null {
  if (process.getuid?.() !== 0) {
    return null; // not root: PostgreSQL runs as us
  }
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((l) => l.startsWith('postgres:'));
  const [, , uid, gid] = line?.split(':') ?? [];
  if (!uid || !gid) {
    throw new Error(
      'startPostgres: running as root needs the postgres user (apt install postgresql)',
    );
  }
  return { uid: Number(uid), gid: Number(gid) };
}

// runs a PostgreSQL binary, as the postgres user when we are root
async function pgRun(binary: string, args: string[], asPostgres: boolean): Promise<void> {
  const exe = path.join(POSTGRES_BIN, binary);
  const [cmd, argv] = asPostgres
    ? ['runuser', ['-u', 'postgres', '--', exe, ...args]]
    : [exe, args];
  try {
    await run(cmd, argv, { timeout: 60_000 });
  } catch (e) {
    const err = e as Error & { stderr?: string; stdout?: string };
    throw new Error(`${binary} failed: ${err.message}\n${err.stdout ?? ''}${err.stderr ?? ''}`, {
      cause: e,
    });
  }
}

let databases = 0;

/** Starts a fresh PostgreSQL 15 on 127.0.0.1 in a temp folder. */
export async function startPostgres(): Promise<Postgres> {
  if (!existsSync(path.join(POSTGRES_BIN, 'initdb'))) {
    throw new Error(`startPostgres: no ${POSTGRES_BIN}/initdb (apt install postgresql)`);
  }
  const owner = postgresUser();
  const dir = await mkdtemp(path.join(os.tmpdir(), 'cua-pg-'));
  await promisify(chmod)(dir, 0o755);
  if (owner) {
    await promisify(chown)(dir, owner.uid, owner.gid);
  }
  const data = path.join(dir, 'data');
  const port = await freePort();
  const asPostgres = owner !== null;
  await pgRun(
    'initdb',
    ['-D', data, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--no-sync'],
    asPostgres,
  );
  const pidFile = path.join(data, 'postmaster.pid');
  const start = async (): Promise<number> => {
    await pgRun(
      'pg_ctl',
      [
        '-D',
        data,
        '-l',
        path.join(dir, 'log'),
        '-w',
        '-o',
        `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`,
        'start',
      ],
      asPostgres,
    );
    return Number((await readFile(pidFile, 'utf8')).split('\n')[0]);
  };
  let pid = await start();
  const halt = async () => {
    try {
      process.kill(pid, 'SIGINT'); // fast shutdown: roll back clients, stop at once
    } catch {
      // gone already
    }
    const deadline = Date.now() + STOP_WAIT_MS;
    while (existsSync(pidFile) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 20));
    }
    if (existsSync(pidFile)) {
      process.kill(pid, 'SIGKILL');
    }
  };
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  let stopped = false;
  let paused = false;
  return {
    port,
    url,
    get pid() {
      return pid;
    },
    dir,
    createDatabase: async (name) => {
      databases += 1;
      const db = name ?? `hub_test_${process.pid}_${databases}`;
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        await client.query(`CREATE DATABASE "${db}"`);
      } finally {
        await client.end();
      }
      return `postgres://postgres@127.0.0.1:${port}/${db}`;
    },
    stop: async () => {
      if (stopped) {
        return;
      }
      stopped = true;
      if (!paused) {
        await halt();
      }
      await rm(dir, { recursive: true, force: true });
    },
    pause: async () => {
      if (!paused && !stopped) {
        paused = true;
        await halt();
      }
    },
    resume: async () => {
      if (paused && !stopped) {
        pid = await start();
        paused = false;
      }
    },
  };
}
