// The macOS accessibility helper without its OS bindings: the protocol handlers
// (docs/helper-protocol.md §3), the capabilities of the hello line, focus and display polling
// (§5) and the permission rule (§4: without the accessibility permission the helper announces
// no elementAt/snapshot/secure/focusEvents and those methods fail with PERMISSION_DENIED).
// main.ts plugs in the koffi backend; tests plug in an in-memory one.
import type { Readable, Writable } from 'node:stream';
import type {
  ActiveWindowResult,
  HelperDisplay,
  HelperMethod,
  PermissionsResult,
  SnapshotParams,
} from '../../axtree/platform/helper-protocol';
import {
  HELPER_ACCESSIBILITY_CAPABILITIES,
  HELPER_SYSTEM_CAPABILITIES,
} from '../../axtree/platform/helper-protocol';
import type { HelperHandler, ServedHelper } from '../runtime/serve';
import { HelperFailure, serveHelper } from '../runtime/serve';
import type { AxBackend, CgWindow, DarwinSystem, OsPermission } from './ax-backend';
import { AX_ERROR, AxCallError } from './ax-backend';
import { AxReader } from './ax-reader';
import type { DisplayLayout } from './displays';
import { layoutDisplays, rectToPixels, toHelperDisplays } from './displays';

/** Default focus polling period, ms. */
export const FOCUS_POLL_MS = 250;
/** Default display-layout polling period, ms. */
export const DISPLAYS_POLL_MS = 1000;

/** Where the user grants the permission, naming the app that asks (docs/helper-protocol.md §4). */
export function accessibilityDeniedMessage(hostApp: string): string {
  return (
    `accessibility access is not granted: open System Settings › Privacy & Security › ` +
    `Accessibility: allow ${hostApp}, then start the recording again`
  );
}

/** Options of {@link DarwinHelper}. */
export type DarwinHelperOptions<E> = {
  backend: AxBackend<E>;
  system: DarwinSystem;
  /** Monotonic clock, ms. */
  nowMs: () => number;
  /** The app the permission belongs to (Terminal for the CLI, the desktop app), for messages. */
  hostApp: string;
};

function numberParam(params: Record<string, unknown>, name: string): number {
  const value = params[name];
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    throw new Error(`params.${name} must be a finite number`);
  }
  return value;
}

function optionalNumber(params: Record<string, unknown>, name: string): number | undefined {
  return params[name] === undefined ? undefined : numberParam(params, name);
}

/** The helper's state: the AX reader, the display layout, what polling last saw. */
export class DarwinHelper<E> {
  readonly reader: AxReader<E>;
  private layout: DisplayLayout | null = null;
  private lastDisplaysJson: string | null = null;

  constructor(private readonly options: DarwinHelperOptions<E>) {
    this.reader = new AxReader({
      backend: options.backend,
      nowMs: options.nowMs,
      layout: () => this.currentLayout(),
    });
  }

  /** The hello line's capabilities: the AX ones only with the permission. */
  capabilities(): string[] {
    const trusted = this.isTrusted();
    // the system ones work without it (CoreGraphics, IOKit)
    return [...(trusted ? HELPER_ACCESSIBILITY_CAPABILITIES : []), ...HELPER_SYSTEM_CAPABILITIES];
  }

  private isTrusted(): boolean {
    return this.accessibility() === 'granted';
  }

  // AXIsProcessTrusted; unknown when the call itself fails (no ApplicationServices to load)
  private accessibility(): OsPermission {
    try {
      return this.options.backend.isProcessTrusted() ? 'granted' : 'denied';
    } catch {
      return 'unknown';
    }
  }

  private currentLayout(): DisplayLayout {
    this.layout ??= layoutDisplays(this.options.system.displays());
    return this.layout;
  }

  /** Reads the displays again; returns them as the protocol's `displays` result. */
  refreshDisplays(): HelperDisplay[] {
    this.layout = layoutDisplays(this.options.system.displays());
    return toHelperDisplays(this.layout);
  }

  // Runs an AX request: PERMISSION_DENIED without the permission (or when AX says so).
  private withAccessibility<T>(run: () => T): T {
    const denied = (): HelperFailure =>
      new HelperFailure('PERMISSION_DENIED', accessibilityDeniedMessage(this.options.hostApp));
    if (!this.isTrusted()) {
      throw denied();
    }
    try {
      return run();
    } catch (error) {
      if (error instanceof AxCallError && error.code === AX_ERROR.apiDisabled) {
        throw denied();
      }
      throw error;
    }
  }

  /** One handler per method of docs/helper-protocol.md §3. */
  handlers(): Record<HelperMethod, HelperHandler> {
    return {
      elementAt: (params) =>
        this.withAccessibility(() =>
          this.reader.elementAt(
            numberParam(params, 'x'),
            numberParam(params, 'y'),
            optionalNumber(params, 'elementTimeoutMs'),
          ),
        ),
      snapshotFocusedWindow: (params) =>
        this.withAccessibility(() => {
          const budget: Partial<SnapshotParams> = {};
          for (const key of ['maxNodes', 'maxMs', 'maxChildrenPerNode', 'elementTimeoutMs']) {
            const value = optionalNumber(params, key);
            if (value !== undefined) {
              budget[key as keyof SnapshotParams] = value;
            }
          }
          return this.reader.snapshotFocusedWindow(budget);
        }),
      focusedIsSecure: () =>
        this.withAccessibility(() => this.reader.focused()?.info.isSecure ?? false),
      activeWindow: () => this.activeWindow(),
      displays: () => this.refreshDisplays(),
      permissions: (): PermissionsResult => ({
        accessibility: this.accessibility(),
        screenRecording: this.options.system.screenRecording(),
        inputMonitoring: this.options.system.inputMonitoring(),
      }),
    };
  }

  /** The frontmost application's frontmost ordinary (layer 0) window, or null. */
  activeWindow(): ActiveWindowResult | null {
    let pid: number | null = null;
    if (this.isTrusted()) {
      try {
        pid = this.reader.focusedApplicationPid();
      } catch {
        // a hung frontmost app: fall back to the front window of any app
      }
    }
    // the list is in front-to-back order: the first ordinary window is the frontmost one
    const ordinary = this.options.system
      .windows()
      .filter((w) => w.layer === 0 && w.bounds.width > 0 && w.bounds.height > 0);
    const window: CgWindow | undefined =
      (pid === null ? undefined : ordinary.find((w) => w.pid === pid)) ?? ordinary[0];
    if (window === undefined) {
      return null;
    }
    return {
      title: window.name ?? '',
      app: window.ownerName,
      pid: window.pid,
      bounds: rectToPixels(this.currentLayout(), window.bounds),
      windowId: String(window.number),
    };
  }

  /** One focus poll: emits `focus` when the focused element changed (§5). */
  pollFocus(emit: ServedHelper['emit']): void {
    if (!this.isTrusted()) {
      return;
    }
    try {
      const focused = this.reader.focused({ track: true });
      if (focused?.changed === true) {
        emit('focus', { ...focused.info });
      }
    } catch {
      // a busy or vanished element: the next poll tries again
    }
  }

  /** One display poll: emits `displays` when the layout changed since the last poll (§5). */
  pollDisplays(emit: ServedHelper['emit']): void {
    let displays: HelperDisplay[];
    try {
      displays = this.refreshDisplays();
    } catch {
      return;
    }
    const json = JSON.stringify(displays);
    if (this.lastDisplaysJson !== null && json !== this.lastDisplaysJson) {
      emit('displays', { displays });
    }
    this.lastDisplaysJson = json;
  }

  /** Releases the reader's elements. */
  dispose(): void {
    this.reader.dispose();
  }
}

/** Timer functions (fake in tests). */
export type PollTimers = {
  setInterval: (run: () => void, ms: number) => unknown;
  clearInterval: (handle: unknown) => void;
};

/** Options of {@link startDarwinHelper}. */
export type StartDarwinHelperOptions<E> = DarwinHelperOptions<E> & {
  input: Readable;
  output: Writable;
  clockSec?: () => number;
  pid?: number;
  focusPollMs?: number;
  displaysPollMs?: number;
  timers?: PollTimers;
};

/** Serves the protocol and starts polling; polling stops when `done` settles. */
export function startDarwinHelper<E>(options: StartDarwinHelperOptions<E>): {
  helper: DarwinHelper<E>;
  served: ServedHelper;
} {
  const helper = new DarwinHelper(options);
  const timers: PollTimers = options.timers ?? {
    setInterval: (run, ms) => setInterval(run, ms),
    clearInterval: (handle) => clearInterval(handle as NodeJS.Timeout),
  };
  const capabilities = helper.capabilities();
  const served = serveHelper({
    name: 'ax-helper',
    os: 'darwin',
    capabilities,
    handlers: helper.handlers(),
    input: options.input,
    output: options.output,
    ...(options.clockSec === undefined ? {} : { clockSec: options.clockSec }),
    ...(options.pid === undefined ? {} : { pid: options.pid }),
  });
  const emit: ServedHelper['emit'] = (event, fields) => served.emit(event, fields);
  // the baseline layout, so the first poll reports changes only
  helper.pollDisplays(() => undefined);
  const handles = [
    timers.setInterval(() => helper.pollFocus(emit), options.focusPollMs ?? FOCUS_POLL_MS),
    timers.setInterval(() => helper.pollDisplays(emit), options.displaysPollMs ?? DISPLAYS_POLL_MS),
  ];
  void (async (): Promise<void> => {
    try {
      await served.done;
    } finally {
      handles.forEach((h) => timers.clearInterval(h));
      helper.dispose();
    }
  })();
  return { helper, served };
}
