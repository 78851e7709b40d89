// The display to record on macOS and Windows, from the accessibility helper's `displays` answer
// (docs/helper-protocol.md §3; docs/platform-macos-windows.md §1): the primary display, or the
// one CUA_CAPTURE_DISPLAY names, as the recorder's DisplayInfo in physical pixels.
import type { HelperDisplay } from '../../axtree/platform/helper-protocol';
import { AppError } from '../../shared/errors';
import type { DisplayInfo, MonitorInfo } from '../display-info';
import type { DisplayWatcher } from '../display-watcher';
import { SignalDisplayWatcher } from '../display-watcher';
import type { PlatformHelper, PlatformHelperFactory } from './types';

/** Environment variable choosing the display to record (its id, name or 0-based position). */
export const CAPTURE_DISPLAY_ENV_VAR = 'CUA_CAPTURE_DISPLAY';

/** The recorded display and its place in the helper's list. */
export type ChosenDisplay = {
  display: HelperDisplay;
  /** Position in the helper's list (macOS: CoreGraphics' active display order). */
  position: number;
  /** Every display, in the helper's order. */
  all: HelperDisplay[];
};

// Picks the display to record: CUA_CAPTURE_DISPLAY (id, name or position) else the primary one.
export function chooseDisplay(displays: readonly HelperDisplay[], wanted?: string): ChosenDisplay {
  const list = [...displays];
  if (list.length === 0) {
    throw new AppError(
      'ACCESSIBILITY_UNAVAILABLE',
      'The accessibility helper reported no displays: there is no screen to record.',
      {},
      'Check that a display is connected and awake, then start the recording again.',
    );
  }
  const want = wanted?.trim() ?? '';
  let position: number;
  if (want === '') {
    position = Math.max(
      0,
      list.findIndex((d) => d.primary),
    );
  } else {
    position = list.findIndex((d) => d.id === want || d.name === want);
    if (position < 0 && /^\d+$/.test(want) && Number(want) < list.length) {
      position = Number(want);
    }
    if (position < 0) {
      const known = list.map((d, i) => `${i}: ${d.id}${d.name ? ` (${d.name})` : ''}`).join('; ');
      throw new AppError(
        'INVALID_PAYLOAD',
        `${CAPTURE_DISPLAY_ENV_VAR}='${want}' names no display; the displays are ${known}.`,
        { wanted: want, displays: list.map((d) => d.id) },
        `Set ${CAPTURE_DISPLAY_ENV_VAR} to one of those ids or positions, or unset it to record the primary display.`,
      );
    }
  }
  return { display: list[position]!, position, all: list };
}

// The recorder's DisplayInfo of a chosen display: its size in physical px, its scale, every
// monitor (bounds in virtual-desktop physical px, negative left of/above the primary).
export function toDisplayInfo(chosen: ChosenDisplay): DisplayInfo {
  const { display } = chosen;
  const monitors: MonitorInfo[] = chosen.all.map((d) => ({
    x: d.bounds.x,
    y: d.bounds.y,
    width: d.bounds.width,
    height: d.bounds.height,
    primary: d.primary,
    name: d.name ?? d.id,
  }));
  return {
    display: display.id,
    width: display.bounds.width,
    height: display.bounds.height,
    // events and accessibility bounds are stored relative to this corner
    origin: { x: display.bounds.x, y: display.bounds.y },
    scale: display.scale > 0 ? display.scale : 1,
    monitors,
    vendor: null,
  };
}

// Runs `use` with a started helper and always stops it.
export async function withHelper<T>(
  makeHelper: PlatformHelperFactory,
  env: NodeJS.ProcessEnv,
  now: () => number,
  use: (helper: PlatformHelper) => Promise<T>,
): Promise<T> {
  const helper = makeHelper({ env, now });
  try {
    await helper.start();
    return await use(helper);
  } finally {
    await helper.stop();
  }
}

/** Options of {@link HelperDisplayWatcher}. */
export type HelperDisplayWatcherOptions = {
  /** Its own helper client (not started; the watcher starts and stops it). */
  helper: PlatformHelper;
  /** The display chosen again from a new layout, as the platform records it. */
  toDisplayInfo: (displays: HelperDisplay[]) => DisplayInfo;
  /** A failed start or read. */
  onError?: (error: Error) => void;
};

/**
 * The macOS/Windows display watcher: the helper's `displays` events make it read the layout
 * again and compare the recorded display (src/recorder/display-watcher.ts); a change starts a
 * new video segment.
 */
export class HelperDisplayWatcher implements DisplayWatcher {
  private readonly signals: SignalDisplayWatcher;
  private ready: Promise<void> = Promise.resolve();

  constructor(private readonly options: HelperDisplayWatcherOptions) {
    this.signals = new SignalDisplayWatcher({
      read: async () => {
        await this.ready;
        return options.toDisplayInfo(await options.helper.displays());
      },
      subscribe: (signal) => options.helper.onDisplaysChanged?.(() => signal()) ?? (() => {}),
      ...(options.onError ? { onError: options.onError } : {}),
    });
  }

  start(current: DisplayInfo): void {
    this.ready = this.startHelper();
    this.signals.start(current);
  }

  onChange(listener: (next: DisplayInfo) => void): () => void {
    return this.signals.onChange(listener);
  }

  async check(): Promise<boolean> {
    return await this.signals.check();
  }

  async stop(): Promise<void> {
    this.signals.stop();
    await this.ready;
    await this.options.helper.stop();
  }

  private async startHelper(): Promise<void> {
    try {
      await this.options.helper.start();
    } catch (error) {
      this.options.onError?.(error as Error);
    }
  }
}
