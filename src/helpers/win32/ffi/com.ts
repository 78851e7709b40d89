// COM over koffi for the Windows helper: ole32 CoInitializeEx (multithreaded), CoCreateInstance,
// CoUninitialize, oleaut32 SysFreeString, and calls through an interface's vtable (the function
// pointer in slot N of the table the object points to, called with the object as `this`).
// Slots come from vtables.ts. docs/helper-protocol.md §6.
import type { Koffi, KoffiType } from './koffi';
import { parseGuid, win32Types } from './koffi';
import { VTABLE } from './vtables';

/** COINIT_MULTITHREADED. */
const COINIT_MULTITHREADED = 0;
/** CLSCTX_INPROC_SERVER. */
const CLSCTX_INPROC_SERVER = 1;
/** E_POINTER: a call that succeeded without giving the pointer it promised. */
export const E_POINTER = 0x80004003 | 0;
/** E_FAIL. */
export const E_FAIL = 0x80004005 | 0;

/** `0x80040154` for an HRESULT (negative int32 or unsigned). */
export function hresultHex(hr: number): string {
  return `0x${(hr >>> 0).toString(16).padStart(8, '0')}`;
}

/** Well-known HRESULTs, named in messages. */
const HRESULT_NAMES: Record<string, string> = {
  '0x80040154': 'REGDB_E_CLASSNOTREG',
  '0x80004002': 'E_NOINTERFACE',
  '0x80004005': 'E_FAIL',
  '0x80004003': 'E_POINTER',
  '0x80070005': 'E_ACCESSDENIED',
  '0x80010106': 'RPC_E_CHANGED_MODE',
  '0x800401f0': 'CO_E_NOTINITIALIZED',
  '0x80040201': 'UIA_E_ELEMENTNOTAVAILABLE',
  '0x80131505': 'UIA_E_TIMEOUT',
};

/** A failed COM call with its HRESULT. */
export class ComError extends Error {
  constructor(
    readonly call: string,
    readonly hresult: number,
  ) {
    const hex = hresultHex(hresult);
    const name = HRESULT_NAMES[hex];
    super(`${call} failed with HRESULT ${hex}${name === undefined ? '' : ` (${name})`}`);
  }
}

type Fn<A extends unknown[], R> = (...args: A) => R;

/** ole32/oleaut32 and vtable calls. */
export type ComApi = {
  koffi: Koffi;
  /** CoInitializeEx(NULL, COINIT_MULTITHREADED); the HRESULT (S_OK, S_FALSE or an error). */
  initialize(): number;
  /** CoUninitialize. */
  uninitialize(): void;
  /** CoCreateInstance(clsid, NULL, CLSCTX_INPROC_SERVER, iid); throws ComError. */
  createInstance(clsid: string, iid: string): bigint;
  /** IUnknown::QueryInterface; null on E_NOINTERFACE or another failure. */
  queryInterface(object: bigint, iid: string): bigint | null;
  /** IUnknown::Release. */
  release(object: bigint): void;
  /** Calls vtable slot `slot` of `object` with `proto` (its first argument is `this`). */
  call(object: bigint, slot: number, proto: KoffiType, ...args: unknown[]): unknown;
  /** Calls a slot returning an HRESULT; throws ComError(`name`) on failure. */
  check(name: string, object: bigint, slot: number, proto: KoffiType, ...args: unknown[]): number;
  /** Reads a BSTR and frees it (SysFreeString); '' for NULL. */
  takeBstr(bstr: unknown): string;
};

function asPointer(value: unknown): bigint | null {
  if (value === null || value === undefined || value === 0n || value === 0) {
    return null;
  }
  return typeof value === 'bigint' ? value : BigInt(value as number);
}

/** The four ole32/oleaut32 exports {@link makeComApi} needs (faked in the Linux tests). */
export type ComNatives = {
  CoInitializeEx(reserved: null, flags: number): number;
  CoUninitialize(): void;
  /** `out[0]` receives the interface pointer. */
  CoCreateInstance(
    clsid: unknown,
    outer: null,
    context: number,
    iid: unknown,
    out: unknown[],
  ): number;
  SysFreeString(bstr: bigint): void;
};

/** Loads ole32/oleaut32 (Windows only). */
export function loadComNatives(koffi: Koffi): ComNatives {
  const types = win32Types(koffi);
  const ole32 = koffi.load('ole32.dll');
  const oleaut32 = koffi.load('oleaut32.dll');
  const GUIDp = koffi.pointer(types.GUID);
  return {
    CoInitializeEx: ole32.func('CoInitializeEx', 'int32_t', ['void *', 'uint32_t']) as Fn<
      [null, number],
      number
    >,
    CoUninitialize: ole32.func('CoUninitialize', 'void', []) as Fn<[], void>,
    CoCreateInstance: ole32.func('CoCreateInstance', 'int32_t', [
      GUIDp,
      'void *',
      'uint32_t',
      GUIDp,
      koffi.out(koffi.pointer('void *')),
    ]) as Fn<[unknown, null, number, unknown, unknown[]], number>,
    SysFreeString: oleaut32.func('SysFreeString', 'void', ['void *']) as Fn<[bigint], void>,
  };
}

/** Binds COM on Windows: ole32/oleaut32 plus vtable calls. */
export function bindCom(koffi: Koffi): ComApi {
  return makeComApi(koffi, loadComNatives(koffi));
}

/** COM over `natives`, with vtable calls through koffi (any OS: the tests fake the objects). */
export function makeComApi(koffi: Koffi, natives: ComNatives): ComApi {
  const types = win32Types(koffi);
  const GUIDp = koffi.pointer(types.GUID);
  const QueryInterfaceProto = koffi.proto('int32_t', [
    'void *',
    GUIDp,
    koffi.out(koffi.pointer('void *')),
  ]);
  const ReleaseProto = koffi.proto('uint32_t', ['void *']);
  const pointerSize = koffi.sizeof('void *');

  const call = (object: bigint, slot: number, proto: KoffiType, ...args: unknown[]): unknown => {
    const vtable = asPointer(koffi.decode(object, 'void *') as unknown);
    if (vtable === null) {
      throw new Error(`COM object ${object} has no vtable`);
    }
    const fn = koffi.decode(vtable, slot * pointerSize, 'void *') as unknown;
    return koffi.call(fn, proto, object, ...args) as unknown;
  };

  return {
    koffi,
    initialize: () => natives.CoInitializeEx(null, COINIT_MULTITHREADED),
    uninitialize: () => natives.CoUninitialize(),
    createInstance(clsid, iid) {
      const out: unknown[] = [null];
      const hr = natives.CoCreateInstance(
        parseGuid(clsid),
        null,
        CLSCTX_INPROC_SERVER,
        parseGuid(iid),
        out,
      );
      const object = asPointer(out[0]);
      if (hr < 0 || object === null) {
        throw new ComError(`CoCreateInstance(${clsid})`, hr < 0 ? hr : E_POINTER);
      }
      return object;
    },
    queryInterface(object, iid) {
      const out: unknown[] = [null];
      const hr = call(
        object,
        VTABLE.IUnknown.QueryInterface,
        QueryInterfaceProto,
        parseGuid(iid),
        out,
      ) as number;
      return hr < 0 ? null : asPointer(out[0]);
    },
    release(object) {
      call(object, VTABLE.IUnknown.Release, ReleaseProto);
    },
    call,
    check(name, object, slot, proto, ...args) {
      const hr = call(object, slot, proto, ...args) as number;
      if (hr < 0) {
        throw new ComError(name, hr);
      }
      return hr;
    },
    takeBstr(bstr) {
      const pointer = asPointer(bstr);
      if (pointer === null) {
        return '';
      }
      try {
        return koffi.decode.string16(pointer);
      } finally {
        natives.SysFreeString(pointer);
      }
    },
  };
}

/** A pointer out-value as a bigint, or null. */
export function outPointer(value: unknown): bigint | null {
  return asPointer(value);
}
