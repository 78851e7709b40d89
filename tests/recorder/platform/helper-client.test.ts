// The macOS/Windows helper client in the desktop app: when the launcher can fork (Electron's
// utility process), the helper is started through fork() with its entry, not spawned from the
// command (which is the Electron binary there). A real child stands in for the utility process.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { helperFactory } from '../../../src/recorder/platform/helper-client';
import { REPO_ROOT } from '../../helpers/paths';

const FAKE_HELPER = path.join(REPO_ROOT, 'tests/fixtures/bin/fake-ax-helper.js');

describe('helper client through a forking launcher', () => {
  it('starts the OS entry with fork() and speaks to it', async () => {
    const forked: string[] = [];
    const launcher = {
      kind: 'bundled' as const,
      command: (entry: string) => ({
        file: '/no/such/electron',
        args: [`/bundle/${entry}.js`],
        modulePath: entry,
      }),
      fork: (entry: string, args: readonly string[], env: NodeJS.ProcessEnv) => {
        forked.push(entry);
        return spawn(process.execPath, [FAKE_HELPER, ...args], {
          env,
          stdio: ['pipe', 'pipe', 'pipe'],
        });
      },
    };
    const adapter = helperFactory('win32', launcher)({ env: process.env, now: () => 0 });
    try {
      const info = await adapter.start();
      expect(info.capabilities).toContain('displays');
      expect(await adapter.displays()).not.toEqual([]);
    } finally {
      await adapter.stop();
    }
    expect(forked).toEqual(['ax-helper-win32']);
  });

  it("runs one helper for a recording's parts", async () => {
    const forked: string[] = [];
    const launcher = {
      kind: 'bundled' as const,
      command: (entry: string) => ({ file: '/no/such/electron', args: [], modulePath: entry }),
      fork: (entry: string, args: readonly string[], env: NodeJS.ProcessEnv) => {
        forked.push(entry);
        return spawn(process.execPath, [FAKE_HELPER, ...args], {
          env,
          stdio: ['pipe', 'pipe', 'pipe'],
        });
      },
    };
    const make = helperFactory('darwin', launcher);
    const parts = [1, 2, 3].map(() => make({ env: process.env, now: () => 0 }));
    try {
      await Promise.all(parts.map((p) => p.start()));
      expect(await parts[1]?.activeWindow()).not.toBeUndefined();
    } finally {
      await Promise.all(parts.map((p) => p.stop()));
    }
    expect(forked).toEqual(['ax-helper-darwin']);
  });
});
