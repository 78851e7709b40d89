// Picks the recording parts of the operating system: the one place that names a platform
// (docs/architecture.md §1). Linux is implemented; macOS and Windows come in their own issue.
import { AppError } from '../../shared/errors';
import { createLinuxPlatform } from './linux';
import type { RecorderPlatform } from './types';

export type { CaptureBackend, PlatformPartOptions, RecorderPlatform, WindowTracker } from './types';

/** Operating systems whose recording parts are planned but not written yet. */
const PLANNED: Partial<Record<NodeJS.Platform, string>> = {
  darwin: 'macOS',
  win32: 'Windows',
};

// The recording parts of `os` (default this process's); PLATFORM_UNSUPPORTED elsewhere.
export function createPlatform(os: NodeJS.Platform = process.platform): RecorderPlatform {
  if (os === 'linux') {
    return createLinuxPlatform();
  }
  const planned = PLANNED[os];
  throw new AppError(
    'PLATFORM_UNSUPPORTED',
    planned
      ? `Recording on ${planned} is not supported yet: its screen capture, accessibility and window tracking are not written.`
      : `Recording on ${os} is not supported: there are no screen capture, accessibility or window tracking parts for it.`,
    { platform: os },
    planned
      ? `Record on Linux (X11) for now; ${planned} support is planned.`
      : 'Record on Linux (X11).',
  );
}
