// The child launchers: the source launcher finds the package root above its own module (not the
// cwd) and runs the .ts entry through tsx; the bundled launcher runs <bundle dir>/<entry>.js with
// Node, and is picked when the module runs from out/node/. The bundled one really starts a hook
// (a scripted stand-in copied to a fake out/node/hook-child.js) through InputHook; the source one
// starts the real hook child in tests/recorder/input/hook-process.test.ts.
import { existsSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CHILD_ENTRIES,
  bundledLauncher,
  detectChildLauncher,
  findPackageRoot,
  bundleDirOf,
  sourceLauncher,
} from '../../src/infra/child-launcher';
import { InputHook } from '../../src/recorder/input/hook-process';
import { US_KEYBOARD_LAYOUT } from '../../src/recorder/input/keyboard-layout';
import type { InputEvent } from '../../src/recorder/input/normalize-input-event';
import { REPO_ROOT } from '../helpers/paths';
import { waitFor } from '../recorder/input/x-server';

let tempDir = '';

beforeAll(async () => {
  tempDir = await mkdtemp(path.join(os.tmpdir(), 'child-launcher-'));
});

afterAll(async () => {
  await rm(tempDir, { recursive: true, force: true });
});

describe('sourceLauncher', () => {
  it('runs each entry source through bin/run-ts.mjs from the package root, whatever the cwd', () => {
    const cwd = process.cwd();
    process.chdir(os.tmpdir());
    try {
      const launcher = sourceLauncher();
      expect(launcher.kind).toBe('source');
      const command = launcher.command('hook-child');
      const entry = path.join(REPO_ROOT, 'src', 'recorder', 'input', 'hook-child.ts');
      expect(command).toEqual({
        file: process.execPath,
        args: [path.join(REPO_ROOT, 'bin', 'run-ts.mjs'), entry],
        modulePath: entry,
      });
    } finally {
      process.chdir(cwd);
    }
    for (const name of CHILD_ENTRIES) {
      const { args, modulePath } = sourceLauncher().command(name);
      expect(args.every((arg) => existsSync(arg))).toBe(true);
      expect(existsSync(modulePath)).toBe(true);
    }
  });

  it('finds the root by the package name, skipping other packages on the way up', async () => {
    const root = path.join(tempDir, 'install');
    const nested = path.join(root, 'node_modules', 'other', 'lib');
    await mkdir(nested, { recursive: true });
    await writeFile(path.join(root, 'package.json'), '{"name":"cua-annotator"}');
    await writeFile(path.join(root, 'node_modules', 'other', 'package.json'), '{"name":"other"}');
    expect(findPackageRoot(nested)).toBe(root);
    expect(findPackageRoot(path.join(REPO_ROOT, 'src', 'infra'))).toBe(REPO_ROOT);
    expect(() => findPackageRoot(path.join(tempDir, 'nowhere'))).toThrow(/no package\.json/);
    expect(
      sourceLauncher({ packageRoot: root, execPath: '/opt/node' }).command('hook-child'),
    ).toMatchObject({
      file: '/opt/node',
      args: [path.join(root, 'bin', 'run-ts.mjs'), expect.any(String)],
    });
  });
});

describe('bundledLauncher', () => {
  it('runs <bundle dir>/<entry>.js with Node', () => {
    const launcher = bundledLauncher({ bundleDir: '/app/out/node' });
    expect(launcher.kind).toBe('bundled');
    expect(launcher.command('hook-child')).toEqual({
      file: process.execPath,
      args: ['/app/out/node/hook-child.js'],
      modulePath: '/app/out/node/hook-child.js',
    });
    expect(bundledLauncher({ bundleDir: '/b', execPath: '/e' }).command('hook-child').file).toBe(
      '/e',
    );
  });

  it('is detected for modules under out/node/, the sources otherwise', () => {
    expect(bundleDirOf('/app/out/node')).toBe('/app/out/node');
    expect(bundleDirOf('/app/out/node/')).toBe('/app/out/node');
    expect(bundleDirOf('/app/out/node/chunks')).toBe('/app/out/node');
    expect(bundleDirOf('/app/out/renderer')).toBeNull();
    expect(bundleDirOf('/app/src/infra')).toBeNull();
    expect(bundleDirOf('/node')).toBeNull();
    expect(detectChildLauncher('/app/out/node/chunks').command('hook-child').modulePath).toBe(
      '/app/out/node/hook-child.js',
    );
    const bundled = detectChildLauncher('/app/out/node');
    expect(bundled.kind).toBe('bundled');
    expect(bundled.command('hook-child').modulePath).toBe('/app/out/node/hook-child.js');
    expect(detectChildLauncher(path.join(REPO_ROOT, 'src', 'infra')).kind).toBe('source');
    // the tests run the sources
    expect(detectChildLauncher().kind).toBe('source');
  });

  it('starts a hook from a bundle folder through InputHook, with the hook arguments', async () => {
    const bundleDir = path.join(tempDir, 'app', 'out', 'node');
    await mkdir(bundleDir, { recursive: true });
    await writeFile(path.join(bundleDir, 'package.json'), '{"type":"module"}');
    await copyFile(
      path.join(REPO_ROOT, 'tests', 'recorder', 'input', 'fixtures', 'fake-hook.mjs'),
      path.join(bundleDir, 'hook-child.js'),
    );
    const events: InputEvent[] = [];
    const hook = new InputHook({
      launcher: detectChildLauncher(bundleDir),
      env: { ...process.env, FAKE_HOOK_MODE: 'malformed' },
      shouldCheckPreconditions: false,
      keyboardLayout: US_KEYBOARD_LAYOUT,
      heartbeatIntervalMs: 400,
      onEvents: (batch) => events.push(...batch),
    });
    const info = await hook.start();
    try {
      if (process.platform === 'linux') {
        const argv = (await readFile(`/proc/${info.pid}/cmdline`, 'utf8'))
          .split('\0')
          .filter(Boolean);
        expect(argv.slice(-3)).toEqual([
          path.join(bundleDir, 'hook-child.js'),
          '--heartbeat-ms',
          '400',
        ]);
      }
      expect(await waitFor(() => events.length >= 3)).toBe(true);
    } finally {
      await hook.stop();
    }
    expect(events.map((e) => [e.x, e.y])).toEqual([
      [1, 1],
      [2, 2],
      [3, 3],
    ]);
  });
});
