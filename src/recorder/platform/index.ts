// Picks the recording parts of the operating system: the one place that names a platform
// (docs/architecture.md §1). Linux is verified here; macOS and Windows are built to contract
// (docs/platform-macos-windows.md) and start our accessibility helper as a child, so building
// them loads no FFI (koffi lives only in the helper programs).
import type { ChildLauncher } from '../../infra/child-launcher';
import { AppError } from '../../shared/errors';
import { createDarwinPlatform } from './darwin';
import { createLinuxPlatform } from './linux';
import type { RecorderPlatform } from './types';
import { createWin32Platform } from './win32';

export type {
  CaptureBackend,
  PlatformHelper,
  PlatformHelperFactory,
  PlatformPartOptions,
  RecorderPlatform,
  WindowTracker,
} from './types';

/** Options of {@link createPlatform}. */
export type CreatePlatformOptions = {
  /** How macOS/Windows start their accessibility helper child; default detected. */
  launcher?: ChildLauncher;
};

// The recording parts of `os` (default this process's); PLATFORM_UNSUPPORTED elsewhere.
export function createPlatform(
  os: NodeJS.Platform = process.platform,
  options: CreatePlatformOptions = {},
): RecorderPlatform {
  const helperOptions = options.launcher ? { launcher: options.launcher } : {};
  switch (os) {
    case 'linux':
      return createLinuxPlatform();
    case 'darwin':
      return createDarwinPlatform(helperOptions);
    case 'win32':
      return createWin32Platform(helperOptions);
    default:
      throw new AppError(
        'PLATFORM_UNSUPPORTED',
        `Recording on ${os} is not supported: there are no screen capture, accessibility or window tracking parts for it.`,
        { platform: os },
        'Record on Linux (X11), macOS or Windows.',
      );
  }
}
