// Building the macOS and Windows platforms, and the parts a recording makes from them, loads no
// FFI: koffi belongs to the helper programs (children), never to the recorder's process.
import { createRequire } from 'node:module';
import { describe, expect, it, vi } from 'vitest';

const koffi = vi.hoisted(() => ({ imports: 0 }));
vi.mock('koffi', () => {
  koffi.imports += 1;
  throw new Error('koffi was imported by the recorder');
});

describe('macOS and Windows platforms without koffi', () => {
  it('build and make their parts without importing or requiring koffi', async () => {
    const { createPlatform } = await import('../../../src/recorder/platform');
    for (const os of ['darwin', 'win32'] as const) {
      const platform = createPlatform(os);
      const part = { env: {}, now: () => 0 };
      // made, not started: starting would spawn the helper child
      expect(platform.accessibility(part)).toBeDefined();
      expect(platform.windows(part)).toBeDefined();
    }
    expect(koffi.imports).toBe(0);
    const required = Object.keys(createRequire(import.meta.url).cache);
    expect(required.filter((file) => file.includes(`${'/'}koffi${'/'}`))).toEqual([]);
  });

  it('start their helper through the launcher they are given, one entry per OS', async () => {
    const { createPlatform } = await import('../../../src/recorder/platform');
    const entries: string[] = [];
    const launcher = {
      kind: 'bundled' as const,
      command: (entry: string) => {
        entries.push(entry);
        return { file: '/no/such/node', args: [`/bundle/${entry}.js`], modulePath: entry };
      },
    };
    for (const os of ['darwin', 'win32'] as const) {
      // the client (one per recording, shared by its parts) is made on first use
      createPlatform(os, { launcher })
        .accessibility({ env: {}, now: () => 0 })
        .onFocusChanged?.(() => undefined);
    }
    expect(entries).toEqual(['ax-helper-darwin', 'ax-helper-win32']);
    expect(koffi.imports).toBe(0);
  });
});
