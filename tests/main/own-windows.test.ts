// The app's own windows for the recorder: native ids, and the check on the recorder's window ids.
import { describe, expect, it } from 'vitest';
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
