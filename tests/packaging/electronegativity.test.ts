// Electronegativity runs offline over built JavaScript and judges its findings
// (tools/packaging/electronegativity.ts, lint-electron.ts). The bundles have known findings: the
// fixture main process opens an unsandboxed, non-isolated window loading http, and a CommonJS
// preload written per test run (a .cjs file, as electron-vite emits the preload) calls
// shell.openExternal.
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type AllowEntry,
  type LintResult,
  lintElectron,
  NETWORK_CHECKS,
  readAllowList,
} from '../../tools/packaging/electronegativity';

const root = path.resolve(import.meta.dirname, '../..');
const FIXTURE = 'tests/packaging/fixtures/electronegativity';
const MAIN = `${FIXTURE}/main/index.js`;
const REASON = 'a reason long enough to say why this is acceptable';
const PRELOAD_SOURCE = `const { shell } = require('electron');
exports.openAnything = (url) => shell.openExternal(url);
`;

let dir: string;
/** The scanned folders: the fixture main, and the preload folder in `dir`. */
let DIRS: string[];
/** The preload as findings name it (relative to the project). */
let PRELOAD: string;
let bare: LintResult;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'electronegativity-test-'));
  await mkdir(path.join(dir, 'preload'));
  await writeFile(path.join(dir, 'preload', 'index.cjs'), PRELOAD_SOURCE);
  DIRS = [`${FIXTURE}/main`, path.join(dir, 'preload')];
  PRELOAD = path.relative(root, path.join(dir, 'preload', 'index.cjs'));
  bare = await lintElectron({ root, dirs: DIRS, allow: [] });
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('lintElectron', () => {
  it('reports the known findings of the main bundle, above INFORMATIONAL, unexplained', () => {
    const ids = (file: string): string[] =>
      bare.unexplained.filter((f) => f.file === file).map((f) => f.id);
    expect(ids(MAIN)).toEqual(
      expect.arrayContaining([
        'SANDBOX_JS_CHECK',
        'CONTEXT_ISOLATION_JS_CHECK',
        'HTTP_RESOURCES_JS_CHECK',
      ]),
    );
    const isolation = bare.findings.find((f) => f.id === 'CONTEXT_ISOLATION_JS_CHECK');
    expect(isolation).toMatchObject({ severity: 'HIGH', file: MAIN, line: 7 });
    expect(bare.parseErrors).toEqual([]);
  });

  it('reads a .cjs preload (which Electronegativity skips by itself) and names it as it is', () => {
    expect(bare.unexplained.filter((f) => f.file === PRELOAD).map((f) => f.id)).toEqual([
      'OPEN_EXTERNAL_JS_CHECK',
    ]);
  });

  it('runs its global checks over main and preload together, without the network checks', () => {
    const ids = bare.findings.map((f) => f.id);
    // neither bundle limits navigation nor handles permission requests
    expect(ids).toContain('LIMIT_NAVIGATION_GLOBAL_CHECK');
    expect(ids).toContain('PERMISSION_REQUEST_HANDLER_GLOBAL_CHECK');
    expect(ids).not.toContain('AVAILABLE_SECURITY_FIXES_GLOBAL_CHECK');
    expect(ids).not.toContain('ELECTRON_VERSION_JSON_CHECK');
    expect(NETWORK_CHECKS).toHaveLength(2);
    expect(bare.checks).toBeGreaterThan(30);
  });

  it('leaves nothing unexplained when every finding has an allow entry, and flags a stale entry', async () => {
    const allow: AllowEntry[] = Array.from(new Set(bare.unexplained.map((f) => f.id)), (id) => ({
      id,
      reason: REASON,
    }));
    const stale: AllowEntry = { id: 'SANDBOX_JS_CHECK', file: 'out/main/other.js', reason: REASON };
    const result = await lintElectron({ root, dirs: DIRS, allow: [...allow, stale] });
    expect(result.unexplained).toEqual([]);
    expect(result.unused).toEqual([stale]);
  });

  it('fails on an allow entry for one file when the finding is in another', async () => {
    const allow: AllowEntry[] = [{ id: 'OPEN_EXTERNAL_JS_CHECK', file: MAIN, reason: REASON }];
    const result = await lintElectron({ root, dirs: DIRS, allow });
    expect(result.unexplained.map((f) => f.id)).toContain('OPEN_EXTERNAL_JS_CHECK');
    expect(result.unused).toEqual(allow);
  });
});

describe('readAllowList', () => {
  it('reads the project list, each entry with a reason', async () => {
    const entries = await readAllowList(
      path.join(root, 'tools/packaging/electronegativity-allow.json'),
    );
    for (const entry of entries) {
      expect(entry.reason.length).toBeGreaterThanOrEqual(20);
    }
  });

  it('refuses an entry without a real reason', async () => {
    const file = path.join(dir, 'lazy.json');
    await writeFile(file, JSON.stringify([{ id: 'SANDBOX_JS_CHECK', reason: 'ok' }]));
    await expect(readAllowList(file)).rejects.toThrow(/must say why/);
    await writeFile(file, JSON.stringify([{ id: 'SANDBOX_JS_CHECK' }]));
    await expect(readAllowList(file)).rejects.toThrow(/id and reason are required/);
  });
});

describe('npm run lint:electron', () => {
  const run = async (args: string[]): Promise<{ code: number; stdout: string; stderr: string }> => {
    try {
      const { stdout, stderr } = await promisify(execFile)(
        process.execPath,
        [
          path.join(root, 'node_modules/tsx/dist/cli.mjs'),
          'tools/packaging/lint-electron.ts',
          ...args,
        ],
        { cwd: root },
      );
      return { code: 0, stdout, stderr };
    } catch (error) {
      const e = error as { code: number; stdout: string; stderr: string };
      return { code: e.code, stdout: e.stdout, stderr: e.stderr };
    }
  };

  it('exits 1 on unexplained findings and lists them', async () => {
    const empty = path.join(dir, 'empty.json');
    await writeFile(empty, '[]');
    const { code, stdout, stderr } = await run(['--allow', empty, ...DIRS]);
    expect(code).toBe(1);
    expect(stdout).toMatch(
      /HIGH CONTEXT_ISOLATION_JS_CHECK \(FIRM\) .*main\/index\.js:7.*NOT EXPLAINED/,
    );
    expect(stderr).toMatch(/finding\(s\) above INFORMATIONAL not explained/);
  });

  it('exits 1 with a fix when the bundles are not built', async () => {
    const { code, stderr } = await run([`${FIXTURE}/no-such-dir`]);
    expect(code).toBe(1);
    expect(stderr).toMatch(/does not exist\. Fix: build the app first/);
  });
});
