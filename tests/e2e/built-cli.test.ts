// The built install (docs/platform-linux.md §6): a fresh `vite.node.config.ts` build in the layout
// `prepare` writes (out/node beside out/renderer, bin/ above them), run with plain Node: `list`,
// `serve` answering the UI from any working directory, bin/cua-annotator.mjs, and the bundle's
// imports (runtime dependencies only, never tsx).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { builtinModules } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pkg from '../../package.json' with { type: 'json' };
import { bundledLauncher, CHILD_ENTRIES } from '../../src/infra/child-launcher';
import type { CliRun } from '../helpers/cli';
import { FIXTURE_DIR, REPO_ROOT } from '../helpers/paths';
import { startXvfb } from '../recorder/input/x-server';
import { ensureRendererBuilt, run } from './serve';

// inside the repository, so the bundle resolves node_modules as an install does
const TMP_ROOT = path.join(REPO_ROOT, '.tmp');
fs.mkdirSync(TMP_ROOT, { recursive: true });
const install = fs.mkdtempSync(path.join(TMP_ROOT, 'built-cli-'));
const nodeDir = path.join(install, 'out', 'node');
const cliJs = path.join(nodeDir, 'cli.js');
const library = fs.mkdtempSync(path.join(os.tmpdir(), 'cua-built-lib-'));

// The environment of a user's shell: no source-mode switch from the test config.
function userEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  delete env.CUA_ANNOTATOR_FROM_SOURCE;
  return env;
}

function runNode(args: string[], cwd = os.tmpdir()): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, {
      cwd,
      env: userEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

beforeAll(async () => {
  await run(process.execPath, [
    path.join(REPO_ROOT, 'node_modules', 'vite', 'bin', 'vite.js'),
    'build',
    '-c',
    'vite.node.config.ts',
    '--outDir',
    nodeDir,
  ]);
  // the renderer's content does not matter here, only that serve finds it beside the bundle
  await ensureRendererBuilt();
  fs.symlinkSync(path.join(REPO_ROOT, 'out', 'renderer'), path.join(install, 'out', 'renderer'));
  fs.mkdirSync(path.join(install, 'bin'));
  fs.copyFileSync(
    path.join(REPO_ROOT, 'bin', 'cua-annotator.mjs'),
    path.join(install, 'bin', 'cua-annotator.mjs'),
  );
});

afterAll(() => {
  fs.rmSync(install, { recursive: true, force: true });
  fs.rmSync(library, { recursive: true, force: true });
});

describe('the built CLI (out/node)', () => {
  it('emits the CLI and every child-process entry where the bundled launcher starts it', () => {
    expect(fs.existsSync(cliJs)).toBe(true);
    expect(CHILD_ENTRIES.length).toBeGreaterThan(0);
    const launcher = bundledLauncher({ bundleDir: nodeDir });
    for (const entry of CHILD_ENTRIES) {
      const { file, args, modulePath } = launcher.command(entry);
      expect(file).toBe(process.execPath);
      expect(args).toEqual([modulePath]);
      expect(modulePath).toBe(path.join(nodeDir, `${entry}.js`));
      expect(fs.existsSync(modulePath), entry).toBe(true);
    }
    // chunks sit beside the entries: every module of the bundle has out/node as its folder
    expect(
      fs.readdirSync(nodeDir).every((name) => !fs.statSync(path.join(nodeDir, name)).isDirectory()),
    ).toBe(true);
  });

  it('bundled hook child via the launcher: hello, then a clean exit on EOF', async () => {
    const x = await startXvfb();
    try {
      const { file, args } = bundledLauncher({ bundleDir: nodeDir }).command('hook-child');
      const child = spawn(file, args, {
        env: { ...userEnv(), DISPLAY: x.display },
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      let stderr = '';
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
      const hello = await new Promise<{ type: string; pid: number }>((resolve, reject) => {
        let stdout = '';
        child.stdout.on('data', (d: Buffer) => {
          stdout += d.toString();
          for (const line of stdout.split('\n').slice(0, -1)) {
            const parsed = JSON.parse(line) as { type: string; pid: number };
            if (parsed.type === 'hello') {
              resolve(parsed);
            }
          }
        });
        child.on('close', (code) => reject(new Error(`hook child exited ${code}: ${stderr}`)));
      });
      expect(hello.pid).toBe(child.pid);
      child.stdin.end();
      expect(await exited, stderr).toBe(0);
    } finally {
      await x.stop();
    }
  });

  it('imports the example and lists it as JSON with plain Node', async () => {
    const imported = await runNode([cliJs, 'import', FIXTURE_DIR, '--library', library, '--json']);
    expect(imported.code, imported.stderr).toBe(0);
    const { result } = JSON.parse(imported.stdout) as { result: { id: string; events: number } };
    expect(result.events).toBe(4099);

    const listed = await runNode([cliJs, 'list', '--json', '--library', library]);
    expect(listed.code, listed.stderr).toBe(0);
    const rows = JSON.parse(listed.stdout) as { id: string; task: string }[];
    expect(rows.map((r) => r.id)).toEqual([result.id]);
    expect(rows[0]?.task).toMatch(/^Open the system display settings/);
  });

  it('`list` loads none of the packages only other commands need (AWS SDK, execa, dbus-next)', async () => {
    // a preload that records every package the process resolves (Node's synchronous hooks)
    const preload = path.join(install, 'record-packages.mjs');
    fs.writeFileSync(
      preload,
      [
        "import { registerHooks } from 'node:module';",
        'const seen = new Set();',
        'registerHooks({ resolve(specifier, context, next) {',
        "  if (!specifier.startsWith('.') && !specifier.startsWith('/') && !specifier.includes(':')) seen.add(specifier);",
        '  return next(specifier, context);',
        '} });',
        "process.on('exit', () => process.stderr.write(`PACKAGES ${JSON.stringify([...seen])}\\n`));",
      ].join('\n'),
    );
    const listed = await runNode([
      '--import',
      preload,
      cliJs,
      'list',
      '--json',
      '--library',
      library,
    ]);
    expect(listed.code, listed.stderr).toBe(0);
    const line = listed.stderr.split('\n').find((l) => l.startsWith('PACKAGES '));
    expect(line, listed.stderr).toBeDefined();
    const packages = JSON.parse(line!.slice('PACKAGES '.length)) as string[];
    // the hook sees what it should: the database is opened
    expect(packages).toContain('better-sqlite3');
    const heavy = packages.filter((p) => /^(@aws-sdk\/|@smithy\/|execa$|dbus-next$)/.test(p));
    expect(heavy).toEqual([]);
  });

  it('bin/cua-annotator.mjs runs the build (there are no sources beside this copy)', async () => {
    const r = await runNode([path.join(install, 'bin', 'cua-annotator.mjs'), '--version']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe(pkg.version);
  });

  it('bin/cua-annotator.mjs without a build says so and how to build', async () => {
    const bare = fs.mkdtempSync(path.join(TMP_ROOT, 'unbuilt-'));
    try {
      fs.mkdirSync(path.join(bare, 'bin'));
      fs.copyFileSync(
        path.join(REPO_ROOT, 'bin', 'cua-annotator.mjs'),
        path.join(bare, 'bin', 'cua-annotator.mjs'),
      );
      const r = await runNode([path.join(bare, 'bin', 'cua-annotator.mjs'), 'list']);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('the CLI is not built');
      expect(r.stderr).toContain('npm run build:node');
    } finally {
      fs.rmSync(bare, { recursive: true, force: true });
    }
  });

  it('serve answers / with the built review UI, from any working directory', async () => {
    const child = spawn(process.execPath, [cliJs, 'serve', '--port', '0', '--library', library], {
      cwd: os.tmpdir(),
      env: userEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    try {
      const url = await new Promise<URL>((resolve, reject) => {
        let stdout = '';
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
        child.on('close', (code) => reject(new Error(`serve exited ${code}: ${stderr}`)));
      });
      // the printed link moves the token into a cookie, then its path (`/s/<random>/`) is the UI
      const launch = await fetch(url, { redirect: 'manual' });
      expect(launch.status).toBe(303);
      const cookie = (launch.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
      expect(cookie).toMatch(/^cua_token=/);
      const page = await fetch(new URL('./', url), { headers: { cookie } });
      expect(page.status).toBe(200);
      const html = await page.text();
      expect(html).toContain('<div id="root"></div>');
      const script = /src="\.\/(assets\/[^"]+\.js)"/.exec(html)?.[1];
      expect(script, html).toBeDefined();
      const asset = await fetch(new URL(script ?? '', url));
      expect(asset.status).toBe(200);
      expect(asset.headers.get('content-type')).toContain('text/javascript');
      // and the API over the same bundle
      const list = await fetch(new URL('api/recordings:list', url), {
        method: 'POST',
        headers: {
          authorization: `Bearer ${url.searchParams.get('token') ?? ''}`,
          'content-type': 'application/json',
        },
        body: '{}',
      });
      expect(((await list.json()) as { ok: boolean }).ok).toBe(true);
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
  });

  it('imports only Node built-ins and runtime dependencies: never tsx or a dev dependency', () => {
    const runtime = new Set([
      ...Object.keys(pkg.dependencies),
      ...Object.keys(pkg.optionalDependencies),
    ]);
    // rolldown writes static imports at the start of a line, dynamic ones as import("…")
    const patterns = [
      /^\s*(?:import|export)\b[^;'"`]*?\bfrom\s*"([^"]+)"/gm,
      /^\s*import\s*"([^"]+)"/gm,
      /\bimport\(\s*"([^"]+)"\s*\)/g,
      /\brequire\(\s*"([^"]+)"\s*\)/g,
    ];
    const specifiers = new Set<string>();
    for (const name of fs.readdirSync(nodeDir).filter((n) => n.endsWith('.js'))) {
      const code = fs.readFileSync(path.join(nodeDir, name), 'utf8');
      for (const pattern of patterns) {
        for (const m of code.matchAll(pattern)) {
          specifiers.add(m[1] ?? '');
        }
      }
    }
    const bare = [...specifiers].filter((s) => !s.startsWith('./') && !s.startsWith('../'));
    expect(bare.length).toBeGreaterThan(0);
    const packageOf = (s: string) =>
      s
        .split('/')
        .slice(0, s.startsWith('@') ? 2 : 1)
        .join('/');
    const outside = bare.filter(
      (s) => !s.startsWith('node:') && !builtinModules.includes(s) && !runtime.has(packageOf(s)),
    );
    expect(outside).toEqual([]);
    expect(bare.filter((s) => packageOf(s) === 'tsx')).toEqual([]);
    expect(runtime.has('tsx')).toBe(false);
    // relative imports stay inside the bundle folder
    expect([...specifiers].filter((s) => s.startsWith('../'))).toEqual([]);
  });
});
