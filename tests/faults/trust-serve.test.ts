// Issue 26 faults of `cua-annotator serve` (README fault rows 36 and 50): exports from remote
// clients, and starting on a machine that has no library yet. Real HTTP against a real server
// over a real library.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEventHub, createServer, mediaPath, type ServerHandle } from '../../src/server';
import { createServices, type Services } from '../../src/services/create-services';
import { exampleLibrary } from '../helpers/example-library';
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
