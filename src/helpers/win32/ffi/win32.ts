// Plain Win32 over koffi for the Windows helper: per-monitor-v2 DPI awareness (the first call of
// the process), the foreground window (user32, dwmapi), monitors (EnumDisplayMonitors,
// GetMonitorInfoW, shcore GetDpiForMonitor) and process names (kernel32). Implements
// Win32Backend (uia-backend.ts). docs/helper-protocol.md §6.
import type { Win32Backend, Win32Monitor, Win32Rect, Win32Window } from '../uia-backend';
import { MONITORINFOF_PRIMARY } from '../displays';
import type { Koffi } from './koffi';
import { win32Types } from './koffi';

/** DPI_AWARENESS_CONTEXT_PER_MONITOR_AWARE_V2, a pseudo handle. */
export const DPI_AWARENESS_CONTEXT_PER_MONITOR_AWARE_V2 = -4;
/** PROCESS_PER_MONITOR_DPI_AWARE of SetProcessDpiAwareness (Windows 8.1). */
const PROCESS_PER_MONITOR_DPI_AWARE = 2;
/** DWMWA_EXTENDED_FRAME_BOUNDS: the window rectangle without the invisible resize borders. */
const DWMWA_EXTENDED_FRAME_BOUNDS = 9;
/** MDT_EFFECTIVE_DPI of GetDpiForMonitor. */
const MDT_EFFECTIVE_DPI = 0;
/** PROCESS_QUERY_LIMITED_INFORMATION of OpenProcess. */
const PROCESS_QUERY_LIMITED_INFORMATION = 0x1000;

/** Which DPI call made the process aware (for the log line). */
export type DpiAwareness = 'per-monitor-v2' | 'per-monitor' | 'system' | 'none';

type Fn<A extends unknown[], R> = (...args: A) => R;

/** Tries a load that may fail (a DLL or an export missing on old Windows or Wine). */
function optional<T>(make: () => T): T | null {
  try {
    return make();
  } catch {
    return null;
  }
}

/**
 * Makes the process per-monitor-v2 DPI aware, falling back to SetProcessDpiAwareness and
 * SetProcessDPIAware; must run before any other user32 call (or UIA reports logical pixels).
 */
export function setDpiAwareness(koffi: Koffi): DpiAwareness {
  const user32 = koffi.load('user32.dll');
  const setContext = optional(
    () =>
      user32.func('SetProcessDpiAwarenessContext', 'int32_t', ['intptr_t']) as Fn<[number], number>,
  );
  if (setContext !== null && setContext(DPI_AWARENESS_CONTEXT_PER_MONITOR_AWARE_V2) !== 0) {
    return 'per-monitor-v2';
  }
  // the call fails when the awareness was set already (an application manifest) or when the
  // system does not know per-monitor v2 (Windows 10 before 1703, Wine 8: ERROR_INVALID_PARAMETER)
  const current = optional(() => {
    const get = user32.func('GetThreadDpiAwarenessContext', 'intptr_t', []) as Fn<
      [],
      number | bigint
    >;
    const equal = user32.func('AreDpiAwarenessContextsEqual', 'int32_t', [
      'intptr_t',
      'intptr_t',
    ]) as Fn<[number | bigint, number], number>;
    const awareness = user32.func('GetAwarenessFromDpiAwarenessContext', 'int32_t', [
      'intptr_t',
    ]) as Fn<[number | bigint], number>;
    return (): DpiAwareness => {
      const context = get();
      if (equal(context, DPI_AWARENESS_CONTEXT_PER_MONITOR_AWARE_V2) !== 0) {
        return 'per-monitor-v2';
      }
      const level = awareness(context);
      return level === 2 ? 'per-monitor' : level === 1 ? 'system' : 'none';
    };
  });
  const before = current?.() ?? 'none';
  if (before === 'per-monitor-v2' || before === 'per-monitor') {
    return before;
  }
  const setAwareness = optional(
    () =>
      koffi.load('shcore.dll').func('SetProcessDpiAwareness', 'int32_t', ['int32_t']) as Fn<
        [number],
        number
      >,
  );
  let result: DpiAwareness = before;
  if (setAwareness !== null && setAwareness(PROCESS_PER_MONITOR_DPI_AWARE) >= 0) {
    result = 'per-monitor';
  } else if (before === 'none') {
    const setAware = optional(
      () => user32.func('SetProcessDPIAware', 'int32_t', []) as Fn<[], number>,
    );
    if (setAware !== null && setAware() !== 0) {
      result = 'system';
    }
  }
  // report what the process is now, when the system can say
  return current?.() ?? result;
}

type RectOut = Partial<Win32Rect>;

function rectOf(value: RectOut): Win32Rect {
  return {
    left: value.left ?? 0,
    top: value.top ?? 0,
    right: value.right ?? 0,
    bottom: value.bottom ?? 0,
  };
}

function isNull(handle: unknown): boolean {
  return handle === null || handle === undefined || handle === 0n || handle === 0;
}

function toBigint(handle: unknown): bigint {
  return typeof handle === 'bigint' ? handle : BigInt(handle as number);
}

/** Binds the Win32 calls the helper uses; call after {@link setDpiAwareness}. */
export function bindWin32(koffi: Koffi): Win32Backend {
  const types = win32Types(koffi);
  const user32 = koffi.load('user32.dll');
  const kernel32 = koffi.load('kernel32.dll');
  const RECTp = koffi.out(koffi.pointer(types.RECT));
  const GetForegroundWindow = user32.func('GetForegroundWindow', 'void *', []) as Fn<[], unknown>;
  const GetWindowTextLengthW = user32.func('GetWindowTextLengthW', 'int32_t', ['void *']) as Fn<
    [unknown],
    number
  >;
  const GetWindowTextW = user32.func('GetWindowTextW', 'int32_t', [
    'void *',
    'void *',
    'int32_t',
  ]) as Fn<[unknown, Buffer, number], number>;
  const GetWindowThreadProcessId = user32.func('GetWindowThreadProcessId', 'uint32_t', [
    'void *',
    koffi.out(koffi.pointer('uint32_t')),
  ]) as Fn<[unknown, number[]], number>;
  const GetWindowRect = user32.func('GetWindowRect', 'int32_t', ['void *', RECTp]) as Fn<
    [unknown, RectOut],
    number
  >;
  const IsWindowVisible = user32.func('IsWindowVisible', 'int32_t', ['void *']) as Fn<
    [unknown],
    number
  >;
  const MonitorEnumProc = koffi.proto('int32_t', [
    'void *',
    'void *',
    koffi.pointer(types.RECT),
    'intptr_t',
  ]);
  const EnumDisplayMonitors = user32.func('EnumDisplayMonitors', 'int32_t', [
    'void *',
    'void *',
    koffi.pointer(MonitorEnumProc),
    'intptr_t',
  ]) as Fn<[null, null, (monitor: unknown) => number, number], number>;
  const GetMonitorInfoW = user32.func('GetMonitorInfoW', 'int32_t', [
    'void *',
    koffi.inout(koffi.pointer(types.MONITORINFOEXW)),
  ]) as Fn<[unknown, Record<string, unknown>], number>;
  const GetDpiForMonitor = optional(
    () =>
      koffi
        .load('shcore.dll')
        .func('GetDpiForMonitor', 'int32_t', [
          'void *',
          'int32_t',
          koffi.out(koffi.pointer('uint32_t')),
          koffi.out(koffi.pointer('uint32_t')),
        ]) as Fn<[unknown, number, number[], number[]], number>,
  );
  const DwmGetWindowAttribute = optional(
    () =>
      koffi
        .load('dwmapi.dll')
        .func('DwmGetWindowAttribute', 'int32_t', ['void *', 'uint32_t', RECTp, 'uint32_t']) as Fn<
        [unknown, number, RectOut, number],
        number
      >,
  );
  const OpenProcess = kernel32.func('OpenProcess', 'void *', [
    'uint32_t',
    'int32_t',
    'uint32_t',
  ]) as Fn<[number, number, number], unknown>;
  const QueryFullProcessImageNameW = kernel32.func('QueryFullProcessImageNameW', 'int32_t', [
    'void *',
    'uint32_t',
    'void *',
    koffi.inout(koffi.pointer('uint32_t')),
  ]) as Fn<[unknown, number, Buffer, number[]], number>;
  const CloseHandle = kernel32.func('CloseHandle', 'int32_t', ['void *']) as Fn<[unknown], number>;

  const windowTitle = (hwnd: unknown): string => {
    const length = GetWindowTextLengthW(hwnd);
    if (length <= 0) {
      return '';
    }
    const buffer = Buffer.alloc((length + 1) * 2);
    const copied = GetWindowTextW(hwnd, buffer, length + 1);
    return buffer.toString('utf16le', 0, Math.max(0, copied) * 2);
  };

  const windowRect = (hwnd: unknown): Win32Rect => {
    if (DwmGetWindowAttribute !== null) {
      const out: RectOut = {};
      if (DwmGetWindowAttribute(hwnd, DWMWA_EXTENDED_FRAME_BOUNDS, out, 16) === 0) {
        const rect = rectOf(out);
        if (rect.right > rect.left && rect.bottom > rect.top) {
          return rect;
        }
      }
    }
    const out: RectOut = {};
    GetWindowRect(hwnd, out);
    return rectOf(out);
  };

  return {
    foregroundWindow(): Win32Window | null {
      const hwnd = GetForegroundWindow();
      if (isNull(hwnd) || IsWindowVisible(hwnd) === 0) {
        return null;
      }
      const pid = [0];
      GetWindowThreadProcessId(hwnd, pid);
      return {
        hwnd: toBigint(hwnd),
        title: windowTitle(hwnd),
        pid: pid[0] ?? 0,
        rect: windowRect(hwnd),
      };
    },
    monitors(): Win32Monitor[] {
      const handles: unknown[] = [];
      EnumDisplayMonitors(
        null,
        null,
        (monitor) => {
          handles.push(monitor);
          return 1;
        },
        0,
      );
      const monitors: Win32Monitor[] = [];
      for (const handle of handles) {
        const info: Record<string, unknown> = {
          cbSize: koffi.sizeof(types.MONITORINFOEXW),
          rcMonitor: { left: 0, top: 0, right: 0, bottom: 0 },
          rcWork: { left: 0, top: 0, right: 0, bottom: 0 },
          dwFlags: 0,
          szDevice: '',
        };
        if (GetMonitorInfoW(handle, info) === 0) {
          continue;
        }
        let dpi: number | null = null;
        if (GetDpiForMonitor !== null) {
          const dpiX = [0];
          const dpiY = [0];
          if (GetDpiForMonitor(handle, MDT_EFFECTIVE_DPI, dpiX, dpiY) === 0 && (dpiX[0] ?? 0) > 0) {
            dpi = dpiX[0] ?? null;
          }
        }
        const flags = Number(info.dwFlags ?? 0);
        monitors.push({
          device: typeof info.szDevice === 'string' ? info.szDevice.replace(/\0.*$/s, '') : '',
          rect: rectOf(info.rcMonitor as RectOut),
          primary: (flags & MONITORINFOF_PRIMARY) !== 0,
          dpi,
        });
      }
      return monitors;
    },
    processName(pid: number): string | null {
      const handle = OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, 0, pid);
      if (isNull(handle)) {
        return null;
      }
      try {
        const capacity = 1024;
        const size = [capacity];
        const buffer = Buffer.alloc(capacity * 2);
        if (QueryFullProcessImageNameW(handle, 0, buffer, size) === 0) {
          return null;
        }
        const path = buffer.toString('utf16le', 0, (size[0] ?? 0) * 2);
        return exeBaseName(path);
      } finally {
        CloseHandle(handle);
      }
    },
  };
}

/** `C:\Windows\explorer.exe` → `explorer` (the name AgentNet records as the top window). */
export function exeBaseName(path: string): string {
  const base = path.split(/[\\/]/).pop() ?? path;
  return base.replace(/\.exe$/i, '');
}
