// `cua-annotator hub` as a child process on an embedded data folder (start, {"url"} on one line,
// the data folder held, SIGTERM → exit 0 and the lock released), and the CLI's sign-in against
// it: `login` (one-time password changed with --new-password) → a 0600 token file beside the
// library, `whoami` through that token, `logout` revoking it on the hub.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type CliRun } from '../helpers/cli';
import { REPO_ROOT } from '../helpers/paths';
import { request } from './http/hub-fixture';

const BIN = path.join(REPO_ROOT, 'bin', 'cua-annotator.mjs');
const NEW_PASSWORD = 'a long new password 42';

let root: string;
let dataDir: string;
let library: string;
let hub: ChildProcess | null = null;
let hubStderr = '';

/** Runs the CLI with `input` on standard input. */
function runWithInput(args: string[], input: string): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      env: process.env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input);
  });
}

/** Starts `hub --data DIR --port 0 --json`; resolves with its URL once it prints it. */
function startHub(): Promise<{ child: ChildProcess; url: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [BIN, 'hub', '--data', dataDir, '--port', '0', '--json'],
      {
        env: process.env,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stdout = '';
    child.stderr.on('data', (d: Buffer) => (hubStderr += d.toString()));
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
      const line = stdout.split('\n')[0];
      if (stdout.includes('\n') && line) {
        resolve({ child, url: (JSON.parse(line) as { url: string }).url });
      }
    });
    child.once('exit', (code) => reject(new Error(`hub exited ${code}: ${hubStderr}`)));
  });
}

beforeAll(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'hub-login-'));
  dataDir = path.join(root, 'hub-data');
  library = path.join(root, 'library');
}, 60_000);

afterAll(async () => {
  if (hub && hub.exitCode === null) {
    hub.kill('SIGKILL');
  }
  await rm(root, { recursive: true, force: true });
});

describe('cua-annotator hub / login / whoami / logout', () => {
  it('hub runs with the data folder held; login stores a 0600 token, whoami uses it, logout revokes it; SIGTERM exits 0 and frees the folder', async () => {
    const add = await runCli([
      'hub',
      'user',
      'add',
      'ada',
      '--role',
      'admin',
      '--data',
      dataDir,
      '--json',
    ]);
    expect(add.code).toBe(0);
    const otp = (JSON.parse(add.stdout) as { password: string }).password;

    const started = await startHub();
    hub = started.child;
    expect(started.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);

    // the running hub holds the embedded folder
    const busy = await runCli(['hub', 'user', 'list', '--data', dataDir]);
    expect(busy.code).toBe(2);
    expect(busy.stderr).toContain('HUB_DATA_LOCKED');

    // a one-time password without --new-password: refused with the fix, nothing stored
    const refused = await runWithInput(
      ['login', started.url, '--user', 'ada', '--password-stdin', '--library', library],
      `${otp}\n`,
    );
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('PASSWORD_CHANGE_REQUIRED');
    expect(refused.stderr).toContain('--new-password');
    await expect(stat(`${library}.hub-credentials.json`)).rejects.toThrow(/ENOENT/);

    const login = await runWithInput(
      [
        'login',
        started.url,
        '--user',
        'ada',
        '--password-stdin',
        '--new-password',
        '--library',
        library,
        '--json',
      ],
      `${otp}\n${NEW_PASSWORD}\n`,
    );
    expect(login.stderr).toBe('');
    expect(login.code).toBe(0);
    const credsFile = `${library}.hub-credentials.json`;
    expect(JSON.parse(login.stdout)).toEqual({
      url: started.url,
      user: 'ada',
      roles: ['admin'],
      credentials: credsFile,
    });
    expect((await stat(credsFile)).mode & 0o777).toBe(0o600);
    const creds = JSON.parse(await readFile(credsFile, 'utf8')) as { token: string; user: string };
    expect(creds.token).toMatch(/^cuah_/);

    const me = await runCli(['whoami', '--library', library, '--json']);
    expect(me.code).toBe(0);
    expect(JSON.parse(me.stdout)).toEqual({ url: started.url, user: 'ada', roles: ['admin'] });
    // the token works for HTTP clients too, and the login's own session was ended
    const tokens = await request(started.url, 'tokens:list', {}, { token: creds.token });
    expect(tokens.body.value.tokens).toHaveLength(1);
    expect(tokens.body.value.tokens[0].name).toBe(`cli@${os.hostname()}`);
    const audit = await request(started.url, 'audit:list', {}, { token: creds.token });
    const actions = (audit.body.value.entries as { action: string; client: string }[]).map(
      (e) => `${e.action}/${e.client}`,
    );
    expect(actions).toEqual(
      expect.arrayContaining([
        'auth.login/cli',
        'user.password-change/cli',
        'token.create/cli',
        'auth.logout/cli',
      ]),
    );

    const logout = await runCli(['logout', '--library', library]);
    expect(logout.code).toBe(0);
    expect(logout.stdout).toContain('revoked');
    await expect(stat(credsFile)).rejects.toThrow(/ENOENT/);
    const after = await request(started.url, 'auth:whoami', {}, { token: creds.token });
    expect([after.status, after.body.error?.code]).toEqual([401, 'UNAUTHORIZED']);
    const again = await runCli(['whoami', '--library', library]);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('HUB_NOT_SIGNED_IN');

    const exited = new Promise<number | null>((resolve) =>
      hub!.once('exit', (code) => resolve(code)),
    );
    hub.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(hubStderr).toContain('SIGTERM: stopping the hub');
    // the folder is free again, and the hub's changes are all there
    const list = await runCli(['hub', 'user', 'list', '--data', dataDir, '--json']);
    expect(list.code).toBe(0);
    expect(list.stdout).toContain('"ada"');
  }, 240_000);
});
