// Picks the accessibility adapter for the platform: AT-SPI over D-Bus on Linux, the native
// helper program (src/helpers/, TypeScript over koffi) on macOS and Windows.
import type { AccessibilityAdapter } from '../../axtree/adapter';
import { AtspiAdapter } from '../../axtree/platform/linux/atspi-adapter';
import { AppError } from '../../shared/errors';
import { createNativeHelperAdapter } from './native-helper-process';

/** Options of {@link createAccessibilityAdapter}. */
export type CreateAccessibilityAdapterOptions = {
  /** Session clock in ms (CLOCK_MONOTONIC), the recorder's one clock. */
  now: () => number;
  /** Platform to build for; default `process.platform`. */
  platform?: NodeJS.Platform;
  /** Environment (DISPLAY, DBUS_SESSION_BUS_ADDRESS on Linux); default `process.env`. */
  env?: NodeJS.ProcessEnv;
  /** Path of the native helper executable (macOS/Windows); required there. */
  helperPath?: string;
  /** Arguments for the helper; default none. */
  helperArgs?: readonly string[];
};

// The adapter for this platform (not started); ACCESSIBILITY_UNAVAILABLE when there is none.
export function createAccessibilityAdapter(
  options: CreateAccessibilityAdapterOptions,
): AccessibilityAdapter {
  const platform = options.platform ?? process.platform;
  if (platform === 'linux') {
    return new AtspiAdapter({ now: options.now, env: options.env });
  }
  if (platform === 'darwin' || platform === 'win32') {
    if (options.helperPath === undefined) {
      throw new AppError(
        'ACCESSIBILITY_UNAVAILABLE',
        `accessibility capture on ${platform} needs the native helper (src/helpers/): pass helperPath`,
      );
    }
    return createNativeHelperAdapter({
      command: options.helperPath,
      args: options.helperArgs,
      env: options.env,
      now: options.now,
    });
  }
  throw new AppError('ACCESSIBILITY_UNAVAILABLE', `no accessibility adapter for ${platform}`);
}
