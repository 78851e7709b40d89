// Starting and stopping a real `cua-annotator serve` child for the browser tests, and building the
// renderer once when out/renderer is missing.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { REPO_ROOT } from '../helpers/paths';

const RENDERER_INDEX = path.join(REPO_ROOT, 'out', 'renderer', 'index.html');

// Runs a child process to completion, failing with its output on a non-zero exit.
export function run(command: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve() : reject(new Error(`${args.join(' ')} exited ${code}:\n${output}`)),
    );
  });
}

// Builds out/renderer when it is missing.
export async function ensureRendererBuilt(): Promise<void> {
  if (!fs.existsSync(RENDERER_INDEX)) {
    await run(process.execPath, [
      path.join(REPO_ROOT, 'node_modules', 'vite', 'bin', 'vite.js'),
      'build',
      '-c',
      'vite.renderer.config.ts',
    ]);
  }
}

/**
 * The renderer build a browser test should serve: null for the default one (out/renderer, built
 * when missing) when one of its scripts holds `marker`, i.e. it was built from sources that have
 * the feature under test, or when CUA_E2E_RENDERER names another build; else a fresh build of
 * src/renderer in a temp folder, which the test passes on as CUA_E2E_RENDERER (read by
 * startServer) and removes afterwards. out/renderer is shared with the other browser tests and is
 * never rebuilt under them.
 */
export async function rendererHolding(marker: string): Promise<string | null> {
  if (process.env.CUA_E2E_RENDERER) {
    return null;
  }
  await ensureRendererBuilt();
  const assets = path.join(REPO_ROOT, 'out', 'renderer', 'assets');
  const isCurrent = fs
    .readdirSync(assets)
    .some(
      (f) => f.endsWith('.js') && fs.readFileSync(path.join(assets, f), 'utf8').includes(marker),
    );
  if (isCurrent) {
    return null;
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cua-renderer-'));
  await run(process.execPath, [
    path.join(REPO_ROOT, 'node_modules', 'vite', 'bin', 'vite.js'),
    ...['build', '-c', 'vite.renderer.config.ts', '--outDir', dir, '--emptyOutDir'],
    ...['--logLevel', 'warn'],
  ]);
  return dir;
}

/** A running server: the child, the printed token URL, the UI's base (origin + per-launch path;
 * `${origin}/#/…` opens a page, `${origin}/api/…` calls a method) and the token. */
export type Served = { child: ChildProcess; url: string; origin: string; token: string };

// Starts `cua-annotator serve` on a free port and resolves with the printed token URL.
export function startServer(libraryDir: string): Promise<Served> {
  const child = spawn(
    process.execPath,
    [
      path.join(REPO_ROOT, 'bin', 'cua-annotator.mjs'),
      'serve',
      '--port',
      '0',
      '--library',
      libraryDir,
      // another build of the renderer (e.g. an older one, to see a fault test fail on it)
      ...(process.env.CUA_E2E_RENDERER ? ['--renderer', process.env.CUA_E2E_RENDERER] : []),
    ],
    { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve, reject) => {
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
      // the UI lives under a per-launch path: http://127.0.0.1:<port>/s/<random>/?token=<token>
      const m =
        /(http:\/\/127\.0\.0\.1:\d+(?:\/s\/[A-Za-z0-9_-]+)?)\/\?token=([A-Za-z0-9_-]+)/.exec(
          stdout,
        );
      if (m?.[1] && m[2]) {
        resolve({ child, url: m[0], origin: m[1], token: m[2] });
      }
    });
    child.on('close', (code) => reject(new Error(`serve exited ${code}: ${stderr}`)));
  });
}

// Calls one contract method over HTTP with the launch token; resolves with the Result envelope.
export async function callApi(
  served: Served,
  method: string,
  payload: unknown,
): Promise<{ ok: boolean; value?: unknown; error?: { code: string; message: string } }> {
  const response = await fetch(`${served.origin}/api/${method}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${served.token}` },
    body: JSON.stringify(payload),
  });
  return (await response.json()) as {
    ok: boolean;
    value?: unknown;
    error?: { code: string; message: string };
  };
}

// Stops a child with SIGTERM and waits for it.
export async function stop(child: ChildProcess | null | undefined): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) {
    return;
  }
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
  child.kill('SIGTERM');
  await closed;
}
