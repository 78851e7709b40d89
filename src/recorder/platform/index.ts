// Picks the recording parts of the operating system: the one place that names a platform
// (docs/architecture.md §1). Linux is verified here; macOS and Windows are built to contract
// (docs/platform-macos-windows.md) and start our accessibility helper as a child, so building
// them loads no FFI (koffi lives only in the helper programs).
import type { ChildLauncher } from '../../infra/child-launcher';
import { AppError } from '../../shared/errors';
import { createDarwinPlatform } from './darwin';
import { createLinuxPlatform } from './linux';
import type { PlatformDoctor, RecorderPlatform } from './types';
import { createWin32Platform } from './win32';

export type {
  CaptureBackend,
  CaptureDeviceFixes,
  PlatformCheck,
  PlatformCheckId,
  PlatformDoctor,
  PlatformHelper,
  PlatformHelperFactory,
  PlatformPartOptions,
  RecorderPlatform,
  WindowStackOptions,
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

/** What `doctor` checks on an OS with no recording parts: only what every OS shares. */
const UNSUPPORTED_DOCTOR: PlatformDoctor = {
  installFfmpeg: 'apt-get install ffmpeg',
  captureDeviceIds: [],
  captureDevices: () => [],
};

// The doctor checks of `os`: its platform's, or none of its own where recording is not supported.
export function platformDoctor(os: NodeJS.Platform): PlatformDoctor {
  try {
    return createPlatform(os).doctor;
  } catch (error) {
    if (error instanceof AppError && error.code === 'PLATFORM_UNSUPPORTED') {
      return UNSUPPORTED_DOCTOR;
    }
    throw error;
  }
}
