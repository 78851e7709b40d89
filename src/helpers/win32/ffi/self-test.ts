// `--self-test` of the Windows helper: proves that COM works through koffi on this machine (or
// under Wine) without UI Automation: CoInitializeEx, an IStream from CreateStreamOnHGlobal
// written, rewound and read back through its vtable slots (the same call path as the UIA
// bindings: com.ts), QueryInterface hits and misses, Release. Prints one JSON line.
import type { ComApi } from './com';
import { outPointer } from './com';

/** IStream slots: IUnknown 0–2, ISequentialStream Read 3, Write 4, IStream Seek 5 … */
const ISTREAM = { Read: 3, Write: 4, Seek: 5 } as const;
/** IID_IStream. */
const IID_ISTREAM = '0000000c-0000-0000-c000-000000000046';
/** IID_IUIAutomation: an IStream does not implement it (a miss must come back as null). */
const IID_IUIAUTOMATION = '30cbe57d-d9d0-452a-ab13-7ac5ac4825ee';
/** STREAM_SEEK_SET. */
const STREAM_SEEK_SET = 0;

/** What the self-test found. */
export type ComSelfTest = {
  /** CoInitializeEx's HRESULT (0 S_OK, 1 S_FALSE). */
  initHr: number;
  /** Bytes read back after writing `written` and seeking to `seekTo`. */
  readBack: string;
  written: number;
  position: number;
  queryHit: boolean;
  queryMiss: boolean;
};

/** Runs the IStream round trip (COM must be initialised by the caller). */
export function comSelfTest(com: ComApi, initHr: number): ComSelfTest {
  const { koffi } = com;
  const CreateStreamOnHGlobal = koffi
    .load('ole32.dll')
    .func('CreateStreamOnHGlobal', 'int32_t', [
      'void *',
      'int32_t',
      koffi.out(koffi.pointer('void *')),
    ]) as (memory: null, deleteOnRelease: number, out: unknown[]) => number;
  const out: unknown[] = [null];
  const hr = CreateStreamOnHGlobal(null, 1, out);
  const stream = outPointer(out[0]);
  if (hr < 0 || stream === null) {
    throw new Error(`CreateStreamOnHGlobal failed with HRESULT 0x${(hr >>> 0).toString(16)}`);
  }
  const P_IO = koffi.proto('int32_t', [
    'void *',
    'void *',
    'uint32_t',
    koffi.out(koffi.pointer('uint32_t')),
  ]);
  const P_SEEK = koffi.proto('int32_t', [
    'void *',
    'int64_t',
    'uint32_t',
    koffi.out(koffi.pointer('uint64_t')),
  ]);
  try {
    const text = Buffer.from('hello through the vtable', 'utf8');
    const written = [0];
    com.check('IStream::Write', stream, ISTREAM.Write, P_IO, text, text.length, written);
    const position = [0];
    com.check('IStream::Seek', stream, ISTREAM.Seek, P_SEEK, 6, STREAM_SEEK_SET, position);
    const buffer = Buffer.alloc(7);
    const read = [0];
    com.check('IStream::Read', stream, ISTREAM.Read, P_IO, buffer, buffer.length, read);
    const hit = com.queryInterface(stream, IID_ISTREAM);
    if (hit !== null) {
      com.release(hit);
    }
    const miss = com.queryInterface(stream, IID_IUIAUTOMATION);
    return {
      initHr,
      readBack: buffer.toString('utf8', 0, read[0] ?? 0),
      written: written[0] ?? 0,
      position: Number(position[0] ?? 0),
      queryHit: hit !== null,
      queryMiss: miss === null,
    };
  } finally {
    com.release(stream);
  }
}
