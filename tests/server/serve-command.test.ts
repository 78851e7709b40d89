import { spawn } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli';
import { exampleLibrary } from '../helpers/example-library';
import { REPO_ROOT } from '../helpers/paths';
import { json, rawRequest } from './http-client';

const t = await exampleLibrary({ keyframes: false });
let id = '';
beforeAll(() => {
  id = t.id;
});
afterAll(() => t.cleanup());

describe('cua-annotator serve (child process)', () => {
  it('--help exits 0 with usage', async () => {
    const r = await runCli(['serve', '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Usage: cua-annotator serve/);
    expect(r.stdout).toContain('--allow-remote');
  });

  it('refuses a non-loopback --host without --allow-remote and a password (exit 1)', async () => {
    const r = await runCli(['serve', '--host', '0.0.0.0', '--library', t.dir]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('--allow-remote');
    const r2 = await runCli(['serve', '--host', '0.0.0.0', '--allow-remote', '--library', t.dir], {
      CUA_SERVE_PASSWORD: '',
    });
    expect(r2.code).toBe(1);
    expect(r2.stderr).toContain('CUA_SERVE_PASSWORD');
    const r3 = await runCli(['serve', '--port', 'eighty', '--library', t.dir]);
    expect(r3.code).toBe(1);
    expect(r3.stderr).toContain('--port');
  });

  it('--port 0 prints the token URL, answers recordings:list, and stops on SIGTERM', async () => {
    const child = spawn(
      process.execPath,
      [
        path.join(REPO_ROOT, 'bin', 'cua-annotator.mjs'),
        'serve',
        '--port',
        '0',
        '--library',
        t.dir,
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    try {
      const url = await new Promise<URL>((resolve, reject) => {
        child.stdout.on('data', (d: Buffer) => {
          stdout += d.toString();
          const m =
            /http:\/\/127\.0\.0\.1:\d+\/s\/[A-Za-z0-9_-]{22}\/\?token=[A-Za-z0-9_-]{43}/.exec(
              stdout,
            );
          if (m) {
            resolve(new URL(m[0]));
          }
        });
        child.on('close', (code) => reject(new Error(`exited ${code}: ${stderr}`)));
      });
      const port = Number(url.port);
      const token = url.searchParams.get('token') ?? '';
      const res = await rawRequest(port, {
        method: 'POST',
        path: '/api/recordings:list',
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
        body: '{}',
      });
      expect(res.status).toBe(200);
      const body = json(res);
      expect(body.ok).toBe(true);
      expect(body.value.items.map((r: { id: string }) => r.id)).toEqual([id]);
      const detail = await rawRequest(port, {
        method: 'POST',
        path: '/api/recordings:get',
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ id }),
      });
      // media URLs lie under the per-launch path, where the browser sends its cookie
      const basePath = url.pathname.replace(/\/$/, '');
      expect(json(detail).value.video.url).toBe(`${basePath}/media/${id}/video`);
      const video = await rawRequest(port, {
        path: `${basePath}/media/${id}/video`,
        headers: { Authorization: `Bearer ${token}`, Range: 'bytes=0-7' },
      });
      expect(video.status).toBe(206);
      expect(video.body.subarray(4, 8).toString('latin1')).toBe('ftyp');
      const denied = await rawRequest(port, { method: 'POST', path: '/api/recordings:list' });
      expect(denied.status).toBe(401);
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
    expect(stderr).toContain('SIGTERM');
  });
});
