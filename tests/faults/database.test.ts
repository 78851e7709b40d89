// Faults of the library database and the server found in issue 10 (items 8, 9, 10, 11, 15, 19,
// 22) and the load the issue asks to show: another process holding the write lock, concurrent
// first opens of a new library, a 0-byte or missing database beside recordings, a damaged page,
// the WAL deleted under a running server, keep-alive clients while the lock is held, and system
// errors that must reach the user as codes with a fix. Real SQLite, real processes, the real
// HTTP server and CLI.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEventHub, createServer, mediaPath, type ServerHandle } from '../../src/server';
import type { ServiceContext } from '../../src/services/context';
import { createServices } from '../../src/services/create-services';
import { dispatch } from '../../src/services/dispatch';
import { applyEdit } from '../../src/services/edits/edit-service';
import { DB_FILE_NAME, openLibrary, type Library } from '../../src/services/library/library';
import type { StepEdit } from '../../src/shared/contract';
import { isAppError } from '../../src/shared/errors';
import { classifySystemError } from '../../src/shared/system-error';
import {
  checkDatabaseIntegrity,
  LATEST_SCHEMA_VERSION,
  listEdits,
  migrate,
  openDatabase,
  readDatabaseVersion,
  replaceSteps,
  resolveRecordingSeq,
} from '../../src/store';
import { runCli } from '../helpers/cli';
import { exampleLibrary } from '../helpers/example-library';
import { tempLibrary } from '../helpers/library';
import { clickStep, makeRecording } from '../helpers/store';
import { REPO_ROOT } from '../helpers/paths';
import { postApi, quantile, runEditLoad, startLockHolder } from '../server/edit-load';

const tmpDirs: string[] = [];
function tmpDir(prefix = 'cua-dbfault-'): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  tmpDirs.push(dir);
  return dir;
}

function contextFor(lib: Library, logs: string[] = []): ServiceContext {
  return createServices(lib, {
    appVersion: '0.0.0-test',
    mediaUrl: mediaPath,
    log: (line) => logs.push(line),
  }).context;
}

// Labels of the relabel edits stored for `id`, read through a fresh connection to the file.
function storedLabels(dbFile: string, id: string): Set<string> {
  const db = openDatabase(dbFile);
  try {
    const { seq } = resolveRecordingSeq(db, id);
    return new Set(
      listEdits(db, seq).map((e) => (e.edit.op === 'relabel' ? e.edit.label : `${e.edit.op}`)),
    );
  } finally {
    db.close();
  }
}

const relabel = (label: string): StepEdit => ({ op: 'relabel', stepId: 'agentnet:1', label });

/** A library with the example recording behind a running server. */
type Served = { lib: Library; dir: string; id: string; server: ServerHandle; dbFile: string };

// A recording of ten plain click steps (agentnet:0…9): edits of it cost little, so the load
// tests measure waiting for the lock, not the recording page's own work.
function syntheticRecording(lib: Library): string {
  const { id, seq } = makeRecording(lib.db, { task: 'Edit me under load' });
  replaceSteps(
    lib.db,
    seq,
    Array.from({ length: 10 }, (_, index) =>
      clickStep(`agentnet:${index}`, index, `click ${index}`),
    ),
    'test',
  );
  return id;
}

async function servedLibrary(): Promise<Served & { close: () => Promise<void> }> {
  const t = tempLibrary();
  const id = syntheticRecording(t.lib);
  const server = await createServer({
    services: createServices(t.lib, { appVersion: '0.0.0-test', mediaUrl: mediaPath }),
    events: createEventHub(),
    staticDir: t.dir,
  });
  return {
    lib: t.lib,
    dir: t.dir,
    id,
    server,
    dbFile: path.join(t.dir, DB_FILE_NAME),
    close: async () => {
      await server.close();
      t.cleanup();
    },
  };
}

let main: Awaited<ReturnType<typeof servedLibrary>>;

beforeAll(async () => {
  main = await servedLibrary();
});

afterAll(async () => {
  await main.close();
  for (const dir of tmpDirs) {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

describe('issue 10: database and server faults', () => {
  it('item 8: an edit waits for a writer holding the lock instead of failing', async () => {
    const agent = new http.Agent({ keepAlive: true });
    const holder = startLockHolder(main.dbFile, [1200], 300);
    try {
      await holder.held;
      // through the server (the UI's path): answered once the writer lets go, never an error
      const answers = await Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          postApi(main.server.port, main.server.token, agent, 'edits:apply', {
            id: main.id,
            edit: relabel(`wait-http-${i}`),
          }),
        ),
      );
      expect(answers.map((a) => [a.status, a.body.error?.code])).toEqual(
        Array.from({ length: 6 }, () => [200, undefined]),
      );
      // the writer held the lock when they were sent: at least one of them had to wait
      expect(Math.max(...answers.map((a) => a.ms))).toBeGreaterThan(100);
      // and in-process (the CLI's path): the transaction waits for the lock too
      await holder.held;
      applyEdit(main.lib, main.id, relabel('wait-direct'));
    } finally {
      await holder.stop();
      agent.destroy();
    }
    const stored = storedLabels(main.dbFile, main.id);
    for (const label of ['wait-direct', ...Array.from({ length: 6 }, (_, i) => `wait-http-${i}`)]) {
      expect(stored.has(label)).toBe(true);
    }
  });

  it('item 8 (load): 500 edits under a writer holding the lock up to 2 s at a time: 0 lost, 0 errors', async () => {
    const holder = startLockHolder(main.dbFile, [2000, 500, 1000, 250], 400);
    let report: Awaited<ReturnType<typeof runEditLoad>>;
    try {
      await holder.held;
      report = await runEditLoad({
        port: main.server.port,
        token: main.server.token,
        recordingId: main.id,
        stepId: 'agentnet:1',
        edits: 500,
      });
    } finally {
      await holder.stop();
    }
    console.log(
      `edits under writer: ${report.acknowledged.length} acknowledged, ${report.errors.length} errors, ` +
        `${holder.holds()} lock holds, p50 ${quantile(report.latenciesMs, 0.5).toFixed(0)} ms, ` +
        `p99 ${quantile(report.latenciesMs, 0.99).toFixed(0)} ms, wall ${(report.wallMs / 1000).toFixed(1)} s`,
    );
    expect(report.errors.slice(0, 5)).toEqual([]);
    expect(report.acknowledged).toHaveLength(500);
    expect(holder.holds()).toBeGreaterThan(1);
    const stored = storedLabels(main.dbFile, main.id);
    const lost = report.acknowledged.filter((label) => !stored.has(label));
    expect(lost).toEqual([]);
  }, 120_000);

  it('item 15: caller-fault errors are answered with 4xx, not 500', async () => {
    const agent = new http.Agent({ keepAlive: true });
    const call = (method: string, payload: unknown) =>
      postApi(main.server.port, main.server.token, agent, method, payload);
    try {
      const invalid = await call('edits:apply', {
        id: main.id,
        edit: { op: 'merge', stepIds: ['agentnet:0', 'agentnet:404'] },
      });
      expect([invalid.status, invalid.body.error?.code]).toEqual([422, 'EDIT_INVALID']);
      const missing = await call('recordings:get', { id: 'no-such-recording' });
      expect([missing.status, missing.body.error?.code]).toEqual([404, 'NOT_FOUND']);
      const bad = await call('edits:apply', { id: main.id, edit: { op: 'frobnicate' } });
      expect([bad.status, bad.body.error?.code]).toEqual([400, 'INVALID_PAYLOAD']);
    } finally {
      agent.destroy();
    }
  });

  it('item 15: 500 concurrent keep-alive requests while a writer holds the lock see no connection reset', async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 500 });
    const holder = startLockHolder(main.dbFile, [1500, 800], 150);
    const failures: string[] = [];
    const statuses = new Map<number, number>();
    try {
      await holder.held;
      for (let round = 0; round < 2; round += 1) {
        await Promise.all(
          Array.from({ length: 500 }, async (_, i) => {
            try {
              const r =
                i % 10 === 0
                  ? await postApi(main.server.port, main.server.token, agent, 'edits:apply', {
                      id: main.id,
                      edit: relabel(`keepalive-${round}-${i}`),
                    })
                  : await postApi(
                      main.server.port,
                      main.server.token,
                      agent,
                      'recordings:list',
                      {},
                    );
              statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
            } catch (e) {
              failures.push(`${(e as NodeJS.ErrnoException).code ?? ''} ${(e as Error).message}`);
            }
          }),
        );
      }
    } finally {
      await holder.stop();
      agent.destroy();
    }
    expect(failures.slice(0, 5)).toEqual([]);
    expect([...statuses.entries()]).toEqual([[200, 1000]]);
  }, 120_000);

  it('item 9: eight processes opening a new library at once all succeed', async () => {
    const dir = path.join(tmpDir(), 'new-library');
    const go = path.join(path.dirname(dir), 'go');
    const script = path.join(path.dirname(dir), 'open-and-insert.mts');
    const src = (p: string) => JSON.stringify(path.join(REPO_ROOT, p));
    fs.writeFileSync(
      script,
      `import fs from 'node:fs';
import { openLibrary } from ${src('src/services/library/library.ts')};
import { makeRecording } from ${src('tests/helpers/store.ts')};
const [dir, go] = process.argv.slice(2);
process.stdout.write('ready\\n');
// poll every 2 ms: eight busy loops on two cores would starve the children still starting
const nap = new Int32Array(new SharedArrayBuffer(4));
while (!fs.existsSync(go)) Atomics.wait(nap, 0, 0, 2);
try {
  const lib = openLibrary(dir, { create: true });
  makeRecording(lib.db, { task: 'import ' + process.pid });
  lib.close();
  process.stdout.write('ok\\n');
} catch (e) {
  process.stdout.write('failed: ' + e.message + '\\n');
  process.exitCode = 1;
}
`,
    );
    const children = Array.from({ length: 8 }, () => {
      const child = spawn(process.execPath, ['--import', 'tsx', script, dir, go], {
        cwd: REPO_ROOT,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      const ready = new Promise<void>((resolve) => {
        const check = () => (stdout.includes('ready') ? resolve() : undefined);
        child.stdout.on('data', check);
      });
      const done = new Promise<string>((resolve) =>
        child.on('close', (code) => resolve(`${String(code)} ${stdout.trim()} ${stderr.trim()}`)),
      );
      return { ready, done };
    });
    await Promise.all(children.map((c) => c.ready));
    fs.writeFileSync(go, '');
    const outcomes = await Promise.all(children.map((c) => c.done));
    expect(outcomes).toEqual(Array.from({ length: 8 }, () => '0 ready\nok '));
    const lib = openLibrary(dir, { create: false });
    try {
      expect(lib.db.prepare('SELECT COUNT(*) AS n FROM recordings').get()).toEqual({ n: 8 });
    } finally {
      lib.close();
    }
  }, 120_000);

  it('item 9: an existing database is backed up before a migration, and the copy kept when it fails', () => {
    const makeV1 = (dir: string, conflict: boolean) => {
      fs.mkdirSync(path.join(dir, 'recordings'), { recursive: true });
      const raw = new Database(path.join(dir, DB_FILE_NAME));
      raw.pragma('journal_mode = WAL');
      migrate(raw, 1);
      raw.exec('CREATE TABLE marker (x INTEGER); INSERT INTO marker VALUES (42)');
      if (conflict) {
        raw.exec('CREATE TABLE keyframes (x INTEGER)'); // migration 2 creates keyframes
      }
      raw.close();
    };
    const backups = (dir: string) =>
      fs.readdirSync(dir).filter((n) => n.startsWith(`${DB_FILE_NAME}.bak-v1-`));

    const ok = tmpDir();
    makeV1(ok, false);
    const lib = openLibrary(ok, { create: false });
    expect(lib.db.pragma('user_version', { simple: true })).toBe(LATEST_SCHEMA_VERSION);
    lib.close();
    expect(backups(ok)).toHaveLength(1);
    const copy = new Database(path.join(ok, backups(ok)[0]!), { readonly: true });
    expect(copy.pragma('user_version', { simple: true })).toBe(1);
    expect(copy.prepare('SELECT x FROM marker').get()).toEqual({ x: 42 });
    copy.close();

    const failing = tmpDir();
    makeV1(failing, true);
    let thrown: unknown = null;
    try {
      openLibrary(failing, { create: false });
    } catch (e) {
      thrown = e;
    }
    expect(String((thrown as Error).message)).toContain('already exists');
    expect(backups(failing)).toHaveLength(1);
    expect(String((thrown as Error).message)).toContain(backups(failing)[0]);
    expect(readDatabaseVersion(path.join(failing, DB_FILE_NAME))).toEqual({
      kind: 'ok',
      version: 1,
    });
  });

  it('item 9: a pre-migration backup that fails half-way leaves no file under the backup name (written to .tmp, renamed when whole)', () => {
    const dir = tmpDir();
    fs.mkdirSync(path.join(dir, 'recordings'), { recursive: true });
    const raw = new Database(path.join(dir, DB_FILE_NAME));
    raw.pragma('journal_mode = WAL');
    migrate(raw, 1);
    // 2 MiB of data: the copy cannot fit under the 256 KiB file-size limit below
    raw.exec('CREATE TABLE marker (x BLOB)');
    raw.prepare('INSERT INTO marker VALUES (?)').run(Buffer.alloc(2 * 1024 * 1024, 7));
    raw.close();
    const bin = path.join(REPO_ROOT, 'bin', 'cua-annotator.mjs');
    // RLIMIT_FSIZE: VACUUM INTO fails (EFBIG; node ignores SIGXFSZ) once the copy passes 256 KiB,
    // as it would on a full disk
    const failed = spawnSync(
      'bash',
      ['-c', 'ulimit -f 256; exec "$0" "$@"', process.execPath, bin, 'list', '--library', dir],
      { encoding: 'utf8' },
    );
    expect(failed.status, failed.stderr).toBe(2);
    // before the fix: a 0-byte library.sqlite.bak-v1-… that DB_MISSING later offers to restore
    expect(fs.readdirSync(dir).filter((n) => n.startsWith(`${DB_FILE_NAME}.bak-`))).toEqual([]);
    expect(readDatabaseVersion(path.join(dir, DB_FILE_NAME))).toEqual({ kind: 'ok', version: 1 });

    // the next open makes a whole copy under the final name and migrates
    const lib = openLibrary(dir, { create: false });
    expect(lib.db.pragma('user_version', { simple: true })).toBe(LATEST_SCHEMA_VERSION);
    lib.close();
    const made = fs
      .readdirSync(dir)
      .filter((n) => n.startsWith(`${DB_FILE_NAME}.bak-v1-`) && !n.endsWith('.tmp'));
    expect(made).toHaveLength(1);
    const copy = new Database(path.join(dir, made[0]!), { readonly: true });
    try {
      expect(checkDatabaseIntegrity(copy)).toMatchObject({ ok: true });
      expect(copy.pragma('user_version', { simple: true })).toBe(1);
      expect(copy.prepare('SELECT length(x) AS n FROM marker').get()).toEqual({
        n: 2 * 1024 * 1024,
      });
    } finally {
      copy.close();
    }
  });

  it('item 10: a 0-byte or missing library.sqlite beside recordings is refused, not opened as a new empty library', () => {
    for (const state of ['empty', 'missing'] as const) {
      const dir = tmpDir();
      fs.mkdirSync(path.join(dir, 'recordings', '3f1c0d2e-0000-4000-8000-000000000001'), {
        recursive: true,
      });
      if (state === 'empty') {
        fs.writeFileSync(path.join(dir, DB_FILE_NAME), '');
      }
      let thrown: unknown = null;
      try {
        openLibrary(dir, { create: true }).close();
      } catch (e) {
        thrown = e;
      }
      expect(isAppError(thrown, 'DB_MISSING')).toBe(true);
      expect((thrown as Error).message).toContain(state === 'empty' ? '0 bytes' : 'missing');
      expect(isAppError(thrown) && thrown.fix).toMatch(/[Rr]estore library\.sqlite/);
      // nothing was created in its place
      expect(readDatabaseVersion(path.join(dir, DB_FILE_NAME)).kind).toBe(state);
    }
  });

  it('item 10 + 19: a damaged page gives DB_CORRUPT with a fix naming doctor (service and CLI), not INTERNAL with a stack', async () => {
    const t = await exampleLibrary({ keyframes: false });
    tmpDirs.push(t.dir);
    const { id } = t;
    t.lib.close(); // checkpoints the WAL into the file
    const dbFile = path.join(t.dir, DB_FILE_NAME);
    const raw = new Database(dbFile, { readonly: true });
    const { rootpage } = raw
      .prepare(`SELECT rootpage FROM sqlite_master WHERE name = 'steps'`)
      .get() as { rootpage: number };
    const pageSize = raw.pragma('page_size', { simple: true }) as number;
    raw.close();
    const fd = fs.openSync(dbFile, 'r+');
    fs.writeSync(fd, Buffer.alloc(64, 0x07), 0, 64, (rootpage - 1) * pageSize);
    fs.closeSync(fd);

    const lib = openLibrary(t.dir, { create: false });
    try {
      const integrity = checkDatabaseIntegrity(lib.db);
      expect(integrity.ok).toBe(false);
      expect(integrity.problems.length).toBeGreaterThan(0);
      const logs: string[] = [];
      const r = await dispatch(contextFor(lib, logs), 'recordings:get', { id });
      expect(r.ok ? null : [r.error.code, r.error.fix]).toEqual([
        'DB_CORRUPT',
        expect.stringContaining('cua-annotator doctor'),
      ]);
      expect(logs.join('\n')).toContain('malformed'); // the stack stays in the service log
    } finally {
      lib.close();
    }
    const cli = await runCli(['show', id, '--library', t.dir]);
    expect(cli.code).toBe(2);
    expect(cli.stderr).toContain('error [DB_CORRUPT]');
    expect(cli.stderr).toMatch(/^fix: .*cua-annotator doctor/m);
    expect(cli.stderr).not.toMatch(/^\s+at /m);
  }, 30_000);

  it('item 11: deleting the -wal under a running server: the next edit is refused (DB_REPLACED), not acknowledged', async () => {
    const s = await servedLibrary();
    const agent = new http.Agent({ keepAlive: true });
    const edit = (label: string) =>
      postApi(s.server.port, s.server.token, agent, 'edits:apply', {
        id: s.id,
        edit: relabel(label),
      });
    try {
      expect((await edit('before-wal-delete')).status).toBe(200);
      fs.rmSync(`${s.dbFile}-wal`);
      for (const label of ['after-wal-delete', 'and-again']) {
        const r = await edit(label);
        expect([r.status, r.body.ok, r.body.error?.code]).toEqual([503, false, 'DB_REPLACED']);
        expect(r.body.error?.fix).toMatch(/start it again/);
      }
    } finally {
      agent.destroy();
      await s.close();
    }
  }, 30_000);

  it('item 11: a database file replaced under an open handle stops its writes', () => {
    const dir = tmpDir();
    const file = path.join(dir, DB_FILE_NAME);
    const db = openDatabase(file);
    db.transaction(() => db.exec('CREATE TABLE t (x INTEGER)'))();
    db.pragma('wal_checkpoint(TRUNCATE)');
    fs.copyFileSync(file, `${file}.copy`);
    fs.renameSync(`${file}.copy`, file); // same content, another file
    let thrown: unknown = null;
    try {
      db.transaction(() => db.prepare('INSERT INTO t VALUES (1)').run())();
    } catch (e) {
      thrown = e;
    }
    db.close();
    expect(isAppError(thrown, 'DB_REPLACED')).toBe(true);
  });

  it('item 19: ENOSPC, SQLITE_BUSY, SQLITE_CORRUPT, SQLITE_FULL, EACCES, EROFS, ENOTDIR become coded errors with a fix', () => {
    const caught = (fn: () => unknown): unknown => {
      try {
        fn();
      } catch (e) {
        return e;
      }
      throw new Error('expected a throw');
    };
    const dir = tmpDir();
    const file = path.join(dir, 'x.sqlite');
    const a = new Database(file);
    a.pragma('journal_mode = WAL');
    a.exec('CREATE TABLE t (x)');
    const b = new Database(file);
    b.pragma('busy_timeout = 0');
    a.exec('BEGIN IMMEDIATE');
    const busy = caught(() => b.exec('BEGIN IMMEDIATE'));
    a.exec('ROLLBACK');
    a.pragma('max_page_count = 3');
    const full = caught(() => a.prepare('INSERT INTO t VALUES (?)').run('x'.repeat(50_000)));
    a.close();
    b.close();
    fs.writeFileSync(path.join(dir, 'plain'), 'x');
    const real: [unknown, string][] = [
      [caught(() => fs.writeFileSync('/dev/full', 'x')), 'DISK_FULL'],
      [busy, 'DB_BUSY'],
      [full, 'DISK_FULL'],
      [caught(() => fs.mkdirSync(path.join(dir, 'plain', 'sub'))), 'PATH_INVALID'],
      [Object.assign(new Error('corrupt'), { code: 'SQLITE_CORRUPT' }), 'DB_CORRUPT'],
      [Object.assign(new Error('denied'), { code: 'EACCES', path: '/x' }), 'PERMISSION_DENIED'],
      [Object.assign(new Error('ro'), { code: 'EROFS', path: '/x' }), 'READ_ONLY_FILESYSTEM'],
    ];
    for (const [error, code] of real) {
      const classified = classifySystemError(error);
      expect([classified?.code, typeof classified?.fix]).toEqual([code, 'string']);
    }
    expect(classifySystemError(new TypeError('a bug'))).toBe(null);
  });

  it('item 22: only import and record create a library; other commands refuse a folder with none, and --library "" is a usage error', async () => {
    const home = tmpDir('cua-home-');
    const env = { HOME: home, XDG_DATA_HOME: path.join(home, 'data'), CUA_ANNOTATOR_LIBRARY: '' };
    const typo = path.join(tmpDir(), 'typo');
    const list = await runCli(['list', '--library', typo], env);
    expect(list.code).toBe(2);
    expect(list.stderr).toContain(`error [LIBRARY_NOT_FOUND]: No library at ${typo}`);
    expect(list.stderr).toMatch(/^fix: .*--library/m);
    expect(fs.existsSync(typo)).toBe(false);
    const empty = await runCli(['list', '--library', ''], env);
    expect(empty.code).not.toBe(0);
    expect(empty.stderr).toContain('[USAGE]');
    expect(fs.existsSync(path.join(home, 'data'))).toBe(false);
    // serve refuses too (before, it served a new empty library until stopped)
    const serve = spawn(
      process.execPath,
      [path.join(REPO_ROOT, 'bin', 'cua-annotator.mjs'), 'serve', '--library', typo],
      { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stderr = '';
    serve.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const code = await new Promise<number | null>((resolve) => {
      const timer = setTimeout(() => {
        serve.kill('SIGKILL');
        resolve(null);
      }, 20_000);
      serve.on('close', (c) => {
        clearTimeout(timer);
        resolve(c);
      });
    });
    expect([code, stderr.includes('[LIBRARY_NOT_FOUND]')]).toEqual([2, true]);
    expect(fs.existsSync(typo)).toBe(false);
  }, 120_000);
});
