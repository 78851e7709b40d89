// The main bundle and the preload as electron-vite builds them. Main: ESM entries for the app and
// each child-process entry, importing only Node built-ins, electron and runtime dependencies.
// The preload as electron-vite builds it (electron.vite.config.ts) runs where a sandboxed preload
// runs: one CommonJS file whose only require is 'electron' (a sandboxed preload has no module
// loader for anything else), exposing `api` with invoke/on and nothing more.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import vm from 'node:vm';
import { afterAll, describe, expect, it } from 'vitest';
import { CHILD_ENTRIES } from '../../src/infra/child-launcher';

const root = path.resolve(import.meta.dirname, '..', '..');
const outDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cua-preload-build-'));
afterAll(() => fs.rmSync(outDir, { recursive: true, force: true }));

// builds one section of the app's config into a temp folder; returns that folder
function buildSection(section: 'main' | 'preload'): string {
  // inside the package, so that the config's own imports (vite plugins) resolve
  const cacheDir = path.join(root, 'node_modules', '.cache');
  fs.mkdirSync(cacheDir, { recursive: true });
  const configDir = fs.mkdtempSync(path.join(cacheDir, 'cua-preload-'));
  const config = path.join(configDir, 'preload-only.config.ts');
  fs.writeFileSync(
    config,
    `import app from ${JSON.stringify(path.join(root, 'electron.vite.config.ts'))};\n` +
      `export default { ${section}: { ...app.${section}, build: { ...app.${section}.build, ` +
      `outDir: ${JSON.stringify(path.join(outDir, section))} } } };\n`,
  );
  try {
    execFileSync(
      process.execPath,
      [
        path.join(root, 'node_modules', 'electron-vite', 'bin', 'electron-vite.js'),
        'build',
        '-c',
        config,
        '--logLevel',
        'error',
      ],
      { cwd: root, stdio: 'pipe', timeout: 120_000 },
    );
  } finally {
    fs.rmSync(configDir, { recursive: true, force: true });
  }
  return path.join(outDir, section);
}

/** Runs a built preload where a sandboxed preload runs: its api, and the IPC calls it sends. */
function runPreload(file: string) {
  const code = fs.readFileSync(file, 'utf8');
  const required = [...code.matchAll(/require\(\s*["']([^"']+)["']\s*\)/g)].map((m) => m[1]);
  expect([...new Set(required)], file).toEqual(['electron']);
  const exposed: [string, Record<string, unknown>][] = [];
  const invoked: [string, unknown][] = [];
  const electron = {
    contextBridge: {
      exposeInMainWorld: (name: string, api: Record<string, unknown>) => exposed.push([name, api]),
    },
    ipcRenderer: {
      invoke: (channel: string, payload: unknown) => (
        invoked.push([channel, payload]),
        Promise.resolve({ ok: true, value: null })
      ),
      on: () => undefined,
      removeListener: () => undefined,
    },
  };
  const sandboxRequire = (name: string): unknown => {
    if (name !== 'electron') {
      throw new Error(`module not found: ${name}`);
    }
    return electron;
  };
  const module = { exports: {} };
  vm.runInNewContext(`(function (require, module, exports) {\n${code}\n})`, {
    setTimeout,
    console,
  })(sandboxRequire, module, module.exports);
  expect(exposed.map(([name]) => name)).toEqual(['api']);
  const api = exposed[0]![1] as {
    invoke: (m: string, p: unknown) => Promise<unknown>;
    on: (e: string, l: () => void) => () => void;
  };
  expect(Object.keys(api).sort()).toEqual(['invoke', 'on']);
  return { api, invoked };
}

describe('built preload', () => {
  const dir = buildSection('preload');

  it('is one CommonJS file per window (main, HUD) requiring only electron', () => {
    const files = fs.readdirSync(dir).filter((f) => !f.endsWith('.map'));
    expect(files.sort()).toEqual(['hud.cjs', 'index.cjs']);
  });

  it("the main window's exposes only invoke/on over the contract", async () => {
    const { api, invoked } = runPreload(path.join(dir, 'index.cjs'));
    await api.invoke('recordings:list', {});
    await expect(api.invoke('shell:exec', { cmd: 'rm' })).resolves.toMatchObject({
      ok: false,
      error: { code: 'UNKNOWN_METHOD' },
    });
    expect(invoked).toEqual([['cua:recordings:list', {}]]);
    expect(() => api.on('anything', () => undefined)).toThrow();
  });

  it("item 37: the HUD's exposes only the HUD's methods and events", async () => {
    const { api, invoked } = runPreload(path.join(dir, 'hud.cjs'));
    await api.invoke('recorder:stop', {});
    for (const method of ['recordings:list', 'exports:run', 'settings:set', 'recorder:start']) {
      await expect(api.invoke(method, {}), method).resolves.toMatchObject({
        ok: false,
        error: { code: 'UNKNOWN_METHOD' },
      });
    }
    expect(invoked).toEqual([['cua:recorder:stop', {}]]);
    api.on('recorder:status-changed', () => undefined)();
    expect(() => api.on('uploads:progress', () => undefined)).toThrow();
  });
});

describe('built main', () => {
  it('holds the app and child entries, importing only built-ins, electron and dependencies', () => {
    const dir = buildSection('main');
    const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
      optionalDependencies: Record<string, string>;
    };
    const allowed = new Set([
      'electron',
      ...Object.keys(pkg.dependencies),
      ...Object.keys(pkg.optionalDependencies),
    ]);
    const files = fs.readdirSync(dir).filter((f) => f.endsWith('.js'));
    expect(files).toContain('index.js');
    for (const entry of CHILD_ENTRIES) {
      expect(files).toContain(`${entry}.js`);
    }
    const seen: string[] = [];
    for (const file of files) {
      const code = fs.readFileSync(path.join(dir, file), 'utf8');
      const specifiers = [
        ...code.matchAll(/^\s*(?:import|export)\b[^;]*?\bfrom\s*["']([^"']+)["']/gm),
        ...code.matchAll(/^\s*import\s*["']([^"']+)["']/gm),
        ...code.matchAll(/\bimport\(\s*["']([^"']+)["']\s*\)/g),
      ]
        .map((m) => m[1]!)
        .filter((spec) => !spec.startsWith('.'));
      seen.push(...specifiers);
      for (const spec of specifiers) {
        const name = spec.startsWith('@')
          ? spec.split('/').slice(0, 2).join('/')
          : spec.split('/')[0]!;
        expect(spec.startsWith('node:') || allowed.has(name), `${file} imports ${spec}`).toBe(true);
      }
    }
    // the scan sees the imports: electron and the native SQLite module stay external
    expect(seen).toEqual(expect.arrayContaining(['electron', 'better-sqlite3']));
  });
});
