// Issue 26 faults of `cua-annotator serve` (README fault rows 36 and 50): exports from remote
// clients, and starting on a machine that has no library yet. Real HTTP against a real server
// over a real library.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEventHub, createServer, mediaPath, type ServerHandle } from '../../src/server';
import { createServices, type Services } from '../../src/services/create-services';
import { exampleLibrary } from '../helpers/example-library';
import { REPO_ROOT } from '../helpers/paths';
import { callApi, rawRequest } from '../server/http-client';

// Files (not folders) under `dir`, or 0 when it does not exist.
function countFiles(dir: string): number {
  if (!fs.existsSync(dir)) {
    return 0;
  }
  return fs.readdirSync(dir, { withFileTypes: true, recursive: true }).filter((e) => e.isFile())
    .length;
}

describe('issue 26 item 8: exports:run from a remote client of serve --host', () => {
  let t: Awaited<ReturnType<typeof exampleLibrary>>;
  let services: Services;
  let work = '';
  let root = '';
  let outside = '';
  const servers: ServerHandle[] = [];

  // A server bound to every interface (as `serve --host 0.0.0.0 --allow-remote`): every client
  // counts as remote, even this test's own loopback connection.
  const remoteServer = async (exportRoot?: string) => {
    const s = await createServer({
      services,
      events: createEventHub(),
      host: '0.0.0.0',
      allowRemote: true,
      password: 'correct horse battery',
      exportRoot,
    });
    servers.push(s);
    return s;
  };
  const exportTo = async (s: ServerHandle, outDir: string) => {
    const basic = `Basic ${Buffer.from('reviewer:correct horse battery').toString('base64')}`;
    const res = await rawRequest(s.port, {
      method: 'POST',
      path: `/api/exports:run`,
      // the password (HTTP Basic) and the token (cookie, as a browser sends it)
      headers: {
        Authorization: basic,
        Cookie: `cua_token=${s.token}`,
        'Content-Type': 'application/json',
      },
      body: JSON.stringify({ ids: [t.id], format: 'agentnet-raw', outDir }),
    });
    return {
      status: res.status,
      body: JSON.parse(res.body.toString('utf8')) as {
        ok: boolean;
        error?: { code: string; message: string; fix?: string };
      },
    };
  };

  beforeAll(async () => {
    t = await exampleLibrary();
    services = createServices(t.lib, {
      appVersion: '0.0.0-test',
      mediaUrl: mediaPath,
      log: () => undefined,
    });
    work = fs.mkdtempSync(path.join(os.tmpdir(), 'cua-remote-export-'));
    root = path.join(work, 'exports');
    outside = path.join(work, 'elsewhere');
    fs.mkdirSync(root);
    fs.mkdirSync(outside);
  }, 120_000);

  afterAll(async () => {
    for (const s of servers) {
      await s.close();
    }
    await services?.close();
    t?.cleanup();
    fs.rmSync(work, { recursive: true, force: true });
  });

  it('item 36: without an export root a remote client cannot export anywhere (403 + fix)', async () => {
    const s = await remoteServer();
    const target = path.join(outside, 'no-root');
    const r = await exportTo(s, target);
    expect(r.status).toBe(403);
    expect(r.body.ok).toBe(false);
    expect(r.body.error?.code).toBe('FORBIDDEN');
    expect(r.body.error?.fix).toContain('--export-root');
    expect(countFiles(target)).toBe(0);
  }, 120_000);

  it('item 36: with an export root: inside is written; outside, .. and symlink escapes are refused', async () => {
    const s = await remoteServer(root);
    // a symlink inside the root that leads out of it, and a `..` path that climbs out
    fs.symlinkSync(outside, path.join(root, 'link-out'));
    for (const escape of [
      path.join(outside, 'plain'),
      `${root}/../elsewhere/dotdot`,
      path.join(root, 'link-out', 'via-link'),
      '/tmp/cua-remote-export-never',
    ]) {
      const r = await exportTo(s, escape);
      expect(r.status, escape).toBe(403);
      expect(r.body.error?.code, escape).toBe('FORBIDDEN');
      expect(r.body.error?.fix, escape).toContain(root);
    }
    expect(countFiles(outside)).toBe(0);
    expect(fs.existsSync('/tmp/cua-remote-export-never')).toBe(false);

    const inside = path.join(root, 'batch-1');
    const ok = await exportTo(s, inside);
    expect(ok.body.error).toBeUndefined();
    expect(ok.status).toBe(200);
    expect(countFiles(inside)).toBeGreaterThan(0);
  }, 120_000);

  it('item 36: a browser on this machine (loopback client, loopback server) still exports anywhere', async () => {
    const local = await createServer({ services, events: createEventHub() });
    servers.push(local);
    const target = path.join(outside, 'local');
    const r = await callApi(local.port, local.token, 'exports:run', {
      ids: [t.id],
      format: 'agentnet-raw',
      outDir: target,
    });
    expect(r.json.error).toBeUndefined();
    expect(r.status).toBe(200);
    expect(countFiles(target)).toBeGreaterThan(0);
  }, 120_000);
});

type Started =
  | { kind: 'serving'; child: ChildProcess; url: URL; stdout: () => string; stderr: () => string }
  | { kind: 'exited'; code: number | null; stdout: string; stderr: string };

// Runs `cua-annotator serve --port 0 …` with `env` (HOME and friends) and resolves once it prints
// its URL, or with its exit when it stops first.
function startServe(args: string[], env: NodeJS.ProcessEnv): Promise<Started> {
  const child = spawn(
    process.execPath,
    [path.join(REPO_ROOT, 'bin', 'cua-annotator.mjs'), 'serve', '--port', '0', ...args],
    { env, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) => {
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
      const m = /http:\/\/127\.0\.0\.1:\d+\S*\?token=[A-Za-z0-9_-]+/.exec(stdout);
      if (m) {
        resolve({
          kind: 'serving',
          child,
          url: new URL(m[0]),
          stdout: () => stdout,
          stderr: () => stderr,
        });
      }
    });
    child.on('close', (code) => resolve({ kind: 'exited', code, stdout, stderr }));
  });
}

async function stopServe(started: Started): Promise<void> {
  if (started.kind !== 'serving' || started.child.exitCode !== null) {
    return;
  }
  const closed = new Promise<void>((resolve) => started.child.once('close', () => resolve()));
  started.child.kill('SIGTERM');
  await closed;
}

describe('issue 26 item 22: serve on a machine with no library yet', () => {
  let home = '';
  let env: NodeJS.ProcessEnv = {};
  let defaultDir = '';
  const running: Started[] = [];

  beforeAll(() => {
    home = fs.mkdtempSync(path.join(os.tmpdir(), 'cua-new-home-'));
    // a new annotator: no library anywhere, no CUA_ANNOTATOR_LIBRARY, the default data folder
    env = { ...process.env, HOME: home, CUA_ANNOTATOR_FROM_SOURCE: '1' };
    delete env.XDG_DATA_HOME;
    delete env.CUA_ANNOTATOR_LIBRARY;
    defaultDir = path.join(home, '.local', 'share', 'cua-annotator');
  });

  afterAll(async () => {
    for (const s of running) {
      await stopServe(s);
    }
    fs.rmSync(home, { recursive: true, force: true });
  });

  it('item 50: serve with no library at the default location starts, answers, and has created the library', async () => {
    const started = await startServe([], env);
    running.push(started);
    expect(started.kind, started.kind === 'exited' ? started.stderr : '').toBe('serving');
    if (started.kind !== 'serving') {
      return;
    }
    // the library exists where record and the desktop app would put it, empty
    expect(fs.existsSync(path.join(defaultDir, 'library.sqlite'))).toBe(true);
    expect(started.stderr()).toContain(defaultDir);
    const port = Number(started.url.port);
    const token = started.url.searchParams.get('token') ?? '';
    const list = await callApi(port, token, 'recordings:list', {});
    expect(list.status).toBe(200);
    expect(list.json.value.items).toEqual([]);
    // the Record page's settings answer too (the annotator's next step)
    const settings = await callApi(port, token, 'settings:get', {});
    expect(settings.status).toBe(200);
    // the UI itself is served
    const page = await rawRequest(port, { path: started.url.pathname });
    expect(page.status).toBe(200);
    await stopServe(started);
  }, 120_000);

  it('item 50: --library naming the default folder also starts it; a typo stays an error and creates nothing', async () => {
    const other = fs.mkdtempSync(path.join(os.tmpdir(), 'cua-new-home-'));
    try {
      const otherEnv = { ...env, HOME: other };
      const otherDefault = path.join(other, '.local', 'share', 'cua-annotator');
      const started = await startServe(['--library', otherDefault], otherEnv);
      running.push(started);
      expect(started.kind, started.kind === 'exited' ? started.stderr : '').toBe('serving');
      expect(fs.existsSync(path.join(otherDefault, 'library.sqlite'))).toBe(true);
      await stopServe(started);

      const typo = path.join(other, 'typo-library');
      for (const run of [
        startServe(['--library', typo], otherEnv),
        startServe([], { ...otherEnv, CUA_ANNOTATOR_LIBRARY: typo }),
      ]) {
        const r = await run;
        running.push(r);
        expect(r.kind).toBe('exited');
        if (r.kind === 'exited') {
          expect(r.code).toBe(2);
          expect(r.stderr).toContain('LIBRARY_NOT_FOUND');
          expect(r.stderr).toContain('fix:');
        }
        expect(fs.existsSync(typo)).toBe(false);
      }
    } finally {
      fs.rmSync(other, { recursive: true, force: true });
    }
  }, 120_000);
});
