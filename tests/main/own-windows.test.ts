// The app's own windows for the recorder (native ids), and the utility-process child launcher.
import path from 'node:path';
import type { UtilityProcess } from 'electron';
import { describe, expect, it, vi } from 'vitest';
import { CHILD_ENTRIES } from '../../src/infra/child-launcher';
import { utilityProcessLauncher } from '../../src/main/launcher';
import {
  createOwnWindowCheck,
  nativeWindowId,
  ownWindowIds,
  parseWindowId,
} from '../../src/main/own-windows';

function handle(id: number, bytes = 8): Buffer {
  const b = Buffer.alloc(bytes);
  if (bytes === 8) {
    b.writeBigUInt64LE(BigInt(id));
  } else {
    b.writeUInt32LE(id);
  }
  return b;
}

describe('own windows', () => {
  it('reads native ids of live windows and recognises them in the recorder window ids', () => {
    const windows = [
      { getNativeWindowHandle: () => handle(0x3a00007), isDestroyed: () => false },
      { getNativeWindowHandle: () => handle(0x3c00003, 4), isDestroyed: () => false },
      { getNativeWindowHandle: () => handle(0x1), isDestroyed: () => true },
    ];
    expect(ownWindowIds(windows)).toEqual([0x3a00007, 0x3c00003]);
    const isOwn = createOwnWindowCheck(() => ownWindowIds(windows));
    expect(isOwn('0x3a00007')).toBe(true);
    expect(isOwn('0x3A00007')).toBe(true);
    expect(isOwn(String(0x3c00003))).toBe(true);
    expect(isOwn('0x3a00008')).toBe(false);
    expect(isOwn('0x1')).toBe(false);
    expect(isOwn('')).toBe(false);
    expect(isOwn('window')).toBe(false);
    expect(parseWindowId('0x0')).toBe(0);
    expect(nativeWindowId(Buffer.alloc(2))).toBe(0);
  });
});

describe('utility-process launcher', () => {
  it('forks each child entry from the main bundle folder with piped output', () => {
    const fork = vi.fn(() => ({}) as UtilityProcess);
    const launcher = utilityProcessLauncher({ fork }, { bundleDir: '/app/out/main' });
    expect(launcher.kind).toBe('bundled');
    for (const entry of CHILD_ENTRIES) {
      expect(launcher.command(entry).modulePath).toBe(path.join('/app/out/main', `${entry}.js`));
      launcher.fork(entry, ['--heartbeat-ms', '250'], { DISPLAY: ':5' });
      expect(fork).toHaveBeenLastCalledWith(
        path.join('/app/out/main', `${entry}.js`),
        ['--heartbeat-ms', '250'],
        { env: { DISPLAY: ':5' }, stdio: 'pipe', serviceName: `cua-annotator ${entry}` },
      );
    }
  });
});
