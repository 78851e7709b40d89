// The app's own windows for the recorder: their native ids.
import { describe, expect, it } from 'vitest';
import { nativeWindowId, ownWindowIds } from '../../src/main/own-windows';

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
  it('reads the native ids of the live windows', () => {
    const windows = [
      { getNativeWindowHandle: () => handle(0x3a00007), isDestroyed: () => false },
      { getNativeWindowHandle: () => handle(0x3c00003, 4), isDestroyed: () => false },
      { getNativeWindowHandle: () => handle(0x1), isDestroyed: () => true },
    ];
    expect(ownWindowIds(windows)).toEqual([0x3a00007, 0x3c00003]);
    expect(nativeWindowId(Buffer.alloc(2))).toBe(0);
  });
});
