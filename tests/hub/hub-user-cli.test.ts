// `cua-annotator hub user …` as a child process (tests/helpers/cli.ts) on both backends: the
// one-time password of --json verifies against the stored argon2id hash; list, roles, remove;
// usage errors. Embedded: two processes on one data folder — a second one refused with
// HUB_DATA_LOCKED naming the holder's pid, and the lock of a SIGKILLed holder taken over.
// PostgreSQL: the CLI works while another process has the database open (a running hub).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyPassword } from '../../src/hub/auth/passwords';
import { findUserByName, listAudit, openHubDb, type HubDbTarget } from '../../src/hub/db';
import { runCli } from '../helpers/cli';
import { REPO_ROOT } from '../helpers/paths';
import { startPostgres, type Postgres } from '../helpers/postgres';

const HOLDER = path.join(REPO_ROOT, 'tests', 'hub', 'fixtures', 'hold-hub-data.ts');

let pgServer: Postgres;
let dataDir: string;
beforeAll(async () => {
  [pgServer, dataDir] = await Promise.all([
    startPostgres(),
    mkdtemp(path.join(os.tmpdir(), 'hub-cli-')),
  ]);
}, 120_000);
afterAll(async () => {
  await pgServer?.stop();
  await rm(dataDir, { recursive: true, force: true });
});

function where(target: HubDbTarget): string[] {
  return 'data' in target ? ['--data', target.data] : ['--database', target.url];
}

// starts the holder child; resolves once it holds the data folder
function startHolder(dir: string): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', HOLDER, dir], {
      cwd: REPO_ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.stdout.on('data', (d: Buffer) => {
      if (d.toString().includes('ready')) {
        resolve(child);
      }
    });
    child.once('exit', (code) => reject(new Error(`holder exited ${code}: ${stderr}`)));
  });
}

describe('cua-annotator hub user (CLI)', () => {
  it('embedded: add --json prints {user, roles, password} once (the stored argon2id hash verifies it); list, roles, remove; audited as cli', async () => {
    const target = { data: dataDir };
    const add = await runCli([
      'hub',
      'user',
      'add',
      'ada',
      '--role',
      'admin',
      '--role',
      'reviewer',
      ...where(target),
      '--json',
    ]);
    expect(add.stderr).toBe('');
    expect(add.code).toBe(0);
    const added = JSON.parse(add.stdout);
    expect(Object.keys(added)).toEqual(['user', 'roles', 'password']);
    expect(added).toMatchObject({ user: 'ada', roles: ['reviewer', 'admin'] });

    const bob = await runCli([
      'hub',
      'user',
      'add',
      'bob',
      '--role',
      'annotator',
      ...where(target),
    ]);
    expect(bob.code).toBe(0);
    expect(bob.stdout).toMatch(/^added bob \(annotator\)\none-time password: [a-z2-9-]{29}\n/);

    const roles = await runCli([
      'hub',
      'user',
      'roles',
      'bob',
      '--set',
      'annotator',
      '--set',
      'reviewer',
      ...where(target),
      '--json',
    ]);
    expect(JSON.parse(roles.stdout)).toEqual({ user: 'bob', roles: ['annotator', 'reviewer'] });
    const last = await runCli(['hub', 'user', 'remove', 'ada', ...where(target)]);
    expect(last.code).toBe(2);
    expect(last.stderr).toMatch(/error \[HUB_LAST_ADMIN\]: .*\nfix: Add another admin first/);
    const removed = await runCli(['hub', 'user', 'remove', 'bob', ...where(target), '--json']);
    expect(JSON.parse(removed.stdout)).toEqual({ user: 'bob', removed: true, tokensRevoked: 0 });

    const list = await runCli(['hub', 'user', 'list', '--all', ...where(target), '--json']);
    expect(JSON.parse(list.stdout).users).toEqual([
      expect.objectContaining({
        user: 'ada',
        roles: ['reviewer', 'admin'],
        removedAt: null,
        mustChangePassword: true,
      }),
      expect.objectContaining({
        user: 'bob',
        roles: ['annotator', 'reviewer'],
        removedAt: expect.any(String),
      }),
    ]);

    // one open for the checks in the database (each PGlite open costs ~0.5 s and 0.5 GB)
    const hub = await openHubDb(target);
    const stored = (await findUserByName(hub.db, 'ada'))!.password_hash;
    const audit = await listAudit(hub.db);
    await hub.close();
    expect(await verifyPassword(stored, added.password)).toBe(true);
    expect(audit.map((a) => `${a.action} ${a.target} ${a.client}`).reverse()).toEqual([
      'user.add user:ada cli',
      'user.add user:bob cli',
      'user.roles user:bob cli',
      'user.remove user:bob cli',
    ]);
    expect(audit[0]!.actor).toBe(`os:${os.userInfo().username}@${os.hostname()}`);
  }, 120_000);

  it("embedded: while another process holds the data folder the CLI is refused (HUB_DATA_LOCKED, pid, fix); a SIGKILLed holder's lock is taken over", async () => {
    const holder = await startHolder(dataDir);
    try {
      const refused = await runCli([
        'hub',
        'user',
        'add',
        'cy',
        '--role',
        'annotator',
        '--data',
        dataDir,
      ]);
      expect(refused.code).toBe(2);
      expect(refused.stdout).toBe('');
      expect(refused.stderr).toContain(
        `error [HUB_DATA_LOCKED]: the hub data folder ${dataDir} is in use by process ${holder.pid} (cua-annotator hub (test)`,
      );
      expect(refused.stderr).toMatch(
        /fix: If it is a running hub, make the change on its Team page .*or stop it/,
      );
    } finally {
      const gone = new Promise((r) => holder.once('exit', r));
      holder.kill('SIGKILL'); // leaves its lock file behind
      await gone;
    }
    const after = await runCli([
      'hub',
      'user',
      'add',
      'cy',
      '--role',
      'annotator',
      '--data',
      dataDir,
      '--json',
    ]);
    expect(after.stderr).toBe('');
    expect(JSON.parse(after.stdout)).toMatchObject({ user: 'cy', roles: ['annotator'] });
  }, 120_000);

  it('PostgreSQL: add --json, list and password while another process has the database open', async () => {
    const url = await pgServer.createDatabase();
    const running = await openHubDb({ url }); // as a running hub would
    try {
      const add = await runCli([
        'hub',
        'user',
        'add',
        'rita',
        '--role',
        'reviewer',
        '--database',
        url,
        '--json',
      ]);
      expect(add.stderr).toBe('');
      const added = JSON.parse(add.stdout);
      expect(Object.keys(added)).toEqual(['user', 'roles', 'password']);
      expect(added).toMatchObject({ user: 'rita', roles: ['reviewer'] });
      const row = await findUserByName(running.db, 'rita');
      expect(await verifyPassword(row!.password_hash, added.password)).toBe(true);
      const list = await runCli(['hub', 'user', 'list', '--json'], {
        CUA_ANNOTATOR_HUB_DATABASE: url,
      });
      expect(JSON.parse(list.stdout).users.map((u: { user: string }) => u.user)).toEqual(['rita']);
      // a lost one-time password: a new one, the old one no longer verifies
      const reset = await runCli(['hub', 'user', 'password', 'rita', '--database', url, '--json']);
      expect(reset.stderr).toBe('');
      const fresh = JSON.parse(reset.stdout);
      expect(Object.keys(fresh)).toEqual(['user', 'password']);
      const after = (await findUserByName(running.db, 'rita'))!.password_hash;
      expect(await verifyPassword(after, fresh.password)).toBe(true);
      expect(await verifyPassword(after, added.password)).toBe(false);
    } finally {
      await running.close();
    }
    const down = await runCli([
      'hub',
      'user',
      'list',
      '--database',
      `postgres://postgres@127.0.0.1:${pgServer.port}/missing`,
    ]);
    expect(down.code).toBe(2);
    expect(down.stderr).toMatch(/error \[HUB_DB_UNREACHABLE\]: .*\nfix: Check that PostgreSQL/);
  }, 120_000);

  it('usage: where the data is, one name, known roles; a missing data folder is NOT_FOUND; --help', async () => {
    const none = await runCli(['hub', 'user', 'add', 'x', '--role', 'annotator'], {
      CUA_ANNOTATOR_HUB_DATABASE: '',
    });
    expect(none.code).toBe(1);
    expect(none.stderr).toContain('--data DIR (embedded) or --database URL');
    const both = await runCli([
      'hub',
      'user',
      'list',
      '--data',
      dataDir,
      '--database',
      pgServer.url,
    ]);
    expect(both.stderr).toContain('not both');
    const noRole = await runCli(['hub', 'user', 'add', 'x', '--data', dataDir]);
    expect(noRole.stderr).toContain('needs at least one --role');
    const badRole = await runCli([
      'hub',
      'user',
      'add',
      'x',
      '--role',
      'owner',
      '--database',
      pgServer.url,
    ]);
    expect(badRole.code).toBe(2);
    expect(badRole.stderr).toMatch(/error \[INVALID_PAYLOAD\]: unknown role "owner"\nfix: /);
    const missing = await runCli(['hub', 'user', 'list', '--data', path.join(dataDir, 'nope')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/error \[NOT_FOUND\]: no hub data in .*\nfix: Check --data/);
    const help = await runCli(['hub', 'user', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('hub user add NAME --role ROLE');
    const top = await runCli(['hub', '--help']);
    expect(top.stdout).toContain('hub user …');
  }, 120_000);
});
