// The Windows helper's request handlers, capabilities and pollers over a Win32Backend and an
// optional UiaBackend (uia-backend.ts): pure, so the tests drive them with fakes. Without UI
// Automation (CoCreateInstance failed, e.g. REGDB_E_CLASSNOTREG under Wine) the helper still
// answers activeWindow, displays and permissions, and the UIA methods fail with
// ACCESSIBILITY_UNAVAILABLE and the HRESULT (docs/helper-protocol.md §2–§5).
import type {
  ActiveWindowResult,
  ElementAtResult,
  HelperCapability,
  HelperDisplay,
  HelperMethod,
  PermissionsResult,
  SnapshotResult,
} from '../../axtree/platform/helper-protocol';
import {
  HELPER_CAPABILITIES,
  HELPER_SYSTEM_CAPABILITIES,
} from '../../axtree/platform/helper-protocol';
import type { HelperHandler } from '../runtime/serve';
import { HelperFailure } from '../runtime/serve';
import { displaysKey, toHelperDisplays } from './displays';
import type { UiaBackend, Win32Backend } from './uia-backend';
import { rectToBounds } from './uia-backend';
import { elementPathAt, focusedInfo, snapshotTree } from './walk';

/** UIA transaction timeout between snapshots, ms (docs/helper-protocol.md §6: about 1 s). */
export const DEFAULT_CALL_TIMEOUT_MS = 1000;
/** Per-call timeout of a snapshot when the request names none, ms (§3). */
export const DEFAULT_ELEMENT_TIMEOUT_MS = 250;

/** What the helper runs on. */
export type Win32HelperDeps<E> = {
  win32: Win32Backend;
  /** UI Automation, or null when it could not be created (then `uiaError` says why). */
  uia: UiaBackend<E> | null;
  uiaError?: string;
  /** Monotonic clock, ms (budgets). */
  nowMs: () => number;
};

/** Fields of a `focus` event line (docs/helper-protocol.md §5). */
export type FocusEventFields = {
  role: string;
  name: string;
  isSecure: boolean;
  app?: string;
  pid?: number;
};

/** The helper built from its backends. */
export type Win32Helper = {
  capabilities: HelperCapability[];
  handlers: Partial<Record<HelperMethod, HelperHandler>>;
  /** Polls the focused element: the event fields when it changed since the last poll. */
  pollFocus(): FocusEventFields | null;
  /** Polls the monitors: the displays when the layout changed since the last poll. */
  pollDisplays(): HelperDisplay[] | null;
};

function numberParam(params: Record<string, unknown>, name: string): number {
  const value = params[name];
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    throw new HelperFailure('HELPER_REQUEST_FAILED', `param '${name}' must be a finite number`);
  }
  return value;
}

function optionalNumber(params: Record<string, unknown>, name: string): number | undefined {
  return params[name] === undefined ? undefined : numberParam(params, name);
}

/** Builds the handlers, capabilities and pollers of the Windows helper. */
export function createWin32Helper<E>(deps: Win32HelperDeps<E>): Win32Helper {
  const { win32, uia } = deps;
  const requireUia = (): UiaBackend<E> => {
    if (uia === null) {
      throw new HelperFailure(
        'ACCESSIBILITY_UNAVAILABLE',
        `UI Automation is not available: ${deps.uiaError ?? 'not initialised'}`,
      );
    }
    return uia;
  };
  const appOf = (pid: number | undefined): string | null =>
    pid === undefined || pid <= 0 ? null : win32.processName(pid);

  const elementAt: HelperHandler = (params): ElementAtResult | null => {
    const x = Math.round(numberParam(params, 'x'));
    const y = Math.round(numberParam(params, 'y'));
    const found = elementPathAt(requireUia(), x, y);
    if (found === null || found.path.length === 0) {
      return null;
    }
    const result: ElementAtResult = {
      path: found.path,
      app: appOf(found.pid),
      isSecure: found.isSecure,
    };
    if (found.pid !== undefined) {
      result.pid = found.pid;
    }
    return result;
  };

  const snapshotFocusedWindow: HelperHandler = (params): SnapshotResult => {
    const backend = requireUia();
    const budget = {
      maxNodes: optionalNumber(params, 'maxNodes'),
      maxMs: optionalNumber(params, 'maxMs'),
      maxChildrenPerNode: optionalNumber(params, 'maxChildrenPerNode'),
    };
    const elementTimeoutMs =
      optionalNumber(params, 'elementTimeoutMs') ?? DEFAULT_ELEMENT_TIMEOUT_MS;
    const window = win32.foregroundWindow();
    if (window === null) {
      return { root: null, nodeCount: 0, truncated: false, note: 'no window has focus' };
    }
    backend.setCallTimeout(elementTimeoutMs);
    try {
      const element = backend.elementFromHandle(window.hwnd);
      if (element === null) {
        return {
          root: null,
          nodeCount: 0,
          truncated: false,
          note: 'the focused window has no UI Automation element',
        };
      }
      const tree = snapshotTree(
        backend,
        element,
        {
          ...(budget.maxNodes === undefined ? {} : { maxNodes: budget.maxNodes }),
          ...(budget.maxMs === undefined ? {} : { maxMs: budget.maxMs }),
          ...(budget.maxChildrenPerNode === undefined
            ? {}
            : { maxChildrenPerNode: budget.maxChildrenPerNode }),
        },
        deps.nowMs,
      );
      const result: SnapshotResult = {
        root: tree.root,
        nodeCount: tree.nodeCount,
        truncated: tree.truncated,
      };
      if (tree.note !== undefined) {
        result.note = tree.note;
      }
      const app = appOf(tree.pid ?? window.pid);
      if (app !== null) {
        result.app = app;
      }
      return result;
    } finally {
      backend.setCallTimeout(DEFAULT_CALL_TIMEOUT_MS);
    }
  };

  const focusedIsSecure: HelperHandler = (): boolean =>
    focusedInfo(requireUia())?.isSecure ?? false;

  const activeWindow: HelperHandler = (): ActiveWindowResult | null => {
    const window = win32.foregroundWindow();
    if (window === null) {
      return null;
    }
    const bounds = rectToBounds(window.rect) ?? {
      x: window.rect.left,
      y: window.rect.top,
      width: 0,
      height: 0,
    };
    return {
      title: window.title,
      app: appOf(window.pid) ?? '',
      pid: window.pid,
      bounds,
      windowId: String(window.hwnd),
    };
  };

  const displays: HelperHandler = (): HelperDisplay[] => toHelperDisplays(win32.monitors());

  const permissions: HelperHandler = (): PermissionsResult => ({
    accessibility: 'not-required',
    screenRecording: 'not-required',
    inputMonitoring: 'not-required',
  });

  const capabilities: HelperCapability[] =
    uia === null ? [...HELPER_SYSTEM_CAPABILITIES] : [...HELPER_CAPABILITIES];

  let lastFocusKey: string | null = null;
  const pollFocus = (): FocusEventFields | null => {
    if (uia === null) {
      return null;
    }
    const info = focusedInfo(uia);
    const key =
      info === null ? '' : JSON.stringify([info.role, info.name, info.isSecure, info.pid]);
    if (key === lastFocusKey) {
      return null;
    }
    lastFocusKey = key;
    if (info === null) {
      return null;
    }
    const fields: FocusEventFields = { role: info.role, name: info.name, isSecure: info.isSecure };
    const app = appOf(info.pid);
    if (app !== null) {
      fields.app = app;
    }
    if (info.pid !== undefined) {
      fields.pid = info.pid;
    }
    return fields;
  };

  let lastDisplaysKey: string | null = null;
  const pollDisplays = (): HelperDisplay[] | null => {
    const current = toHelperDisplays(win32.monitors());
    const key = displaysKey(current);
    if (lastDisplaysKey === null || key === lastDisplaysKey) {
      lastDisplaysKey = key;
      return null;
    }
    lastDisplaysKey = key;
    return current;
  };

  return {
    capabilities,
    handlers: {
      activeWindow,
      displays,
      permissions,
      elementAt,
      snapshotFocusedWindow,
      focusedIsSecure,
    },
    pollFocus,
    pollDisplays,
  };
}
