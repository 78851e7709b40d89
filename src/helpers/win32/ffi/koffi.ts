// The one place the Windows helper loads koffi, lazily (never at import), plus the Win32 struct
// layouts it passes by pointer or value: GUID, POINT, RECT, MONITORINFOEXW and VARIANT, sized
// for x64 Windows (docs/helper-protocol.md §6). Layouts are defined once per koffi instance
// (koffi type names are global to the instance), so the layout tests can run them on Linux.
import type * as KoffiModule from 'koffi';

/** The koffi module (its default export). */
export type Koffi = typeof KoffiModule.default;
/** A koffi type object. */
export type KoffiType = KoffiModule.TypeObject;

/** The struct types of the Windows bindings. */
export type Win32Types = {
  GUID: KoffiType;
  POINT: KoffiType;
  RECT: KoffiType;
  MONITORINFOEXW: KoffiType;
  VARIANT: KoffiType;
};

let loaded: Koffi | undefined;

/** Imports koffi once (the helper calls this at start, never at import time). */
export async function loadKoffi(): Promise<Koffi> {
  if (loaded === undefined) {
    const mod = (await import('koffi')) as unknown as { default?: Koffi } & Koffi;
    loaded = mod.default ?? mod;
  }
  return loaded;
}

const typesByKoffi = new WeakMap<Koffi, Win32Types>();

/** Defines (once per koffi instance) and returns the Win32 struct types. */
export function win32Types(koffi: Koffi): Win32Types {
  const known = typesByKoffi.get(koffi);
  if (known !== undefined) {
    return known;
  }
  const RECT = koffi.struct('WIN32_RECT', {
    left: 'int32_t',
    top: 'int32_t',
    right: 'int32_t',
    bottom: 'int32_t',
  });
  const types: Win32Types = {
    GUID: koffi.struct('WIN32_GUID', {
      Data1: 'uint32_t',
      Data2: 'uint16_t',
      Data3: 'uint16_t',
      Data4: koffi.array('uint8_t', 8),
    }),
    POINT: koffi.struct('WIN32_POINT', { x: 'int32_t', y: 'int32_t' }),
    RECT,
    // MONITORINFO (cbSize, rcMonitor, rcWork, dwFlags) + szDevice[CCHDEVICENAME = 32] WCHARs
    MONITORINFOEXW: koffi.struct('WIN32_MONITORINFOEXW', {
      cbSize: 'uint32_t',
      rcMonitor: RECT,
      rcWork: RECT,
      dwFlags: 'uint32_t',
      szDevice: koffi.array('char16_t', 32, 'String'),
    }),
    // vt + 3 reserved WORDs, then a 16-byte union (the largest member, BRECORD, is two
    // pointers) aligned to 8: 24 bytes on x64
    VARIANT: koffi.struct('WIN32_VARIANT', {
      vt: 'uint16_t',
      wReserved1: 'uint16_t',
      wReserved2: 'uint16_t',
      wReserved3: 'uint16_t',
      value: 'uint64_t',
      extra: 'uint64_t',
    }),
  };
  typesByKoffi.set(koffi, types);
  return types;
}

/** A GUID string `xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx` as the GUID struct's fields. */
export function parseGuid(text: string): {
  Data1: number;
  Data2: number;
  Data3: number;
  Data4: number[];
} {
  const m = /^\{?([0-9a-f]{8})-([0-9a-f]{4})-([0-9a-f]{4})-([0-9a-f]{4})-([0-9a-f]{12})\}?$/i.exec(
    text,
  );
  if (m === null) {
    throw new Error(`not a GUID: ${text}`);
  }
  const [, d1, d2, d3, d4a, d4b] = m as unknown as [string, string, string, string, string, string];
  const tail = `${d4a}${d4b}`;
  const data4: number[] = [];
  for (let i = 0; i < 16; i += 2) {
    data4.push(Number.parseInt(tail.slice(i, i + 2), 16));
  }
  return {
    Data1: Number.parseInt(d1, 16),
    Data2: Number.parseInt(d2, 16),
    Data3: Number.parseInt(d3, 16),
    Data4: data4,
  };
}
