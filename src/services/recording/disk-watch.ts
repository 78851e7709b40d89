// Watches the free space of the filesystem holding a recording: a warning while there is still
// room, then a safe stop above a floor, so ffmpeg never dies on a full disk mid-recording.
import fs from 'node:fs/promises';
import { everyPeriod } from '../../infra/shared-tick';
import { freeBytes as freeBytesNow } from '../library/cleanup';

/** Default free space below which the recorder warns, bytes (≈ 10 min of busy 1080p video). */
export const DEFAULT_DISK_WARN_BYTES = 1024 * 1024 * 1024;
/** Default free space below which the recorder stops and saves, bytes (room to finalise). */
export const DEFAULT_DISK_FLOOR_BYTES = 200 * 1024 * 1024;
/** Default time between checks, ms (statfs is a cheap syscall, made synchronously: an async
 * call would wake a thread-pool thread and then the event loop again, twice a second). */
export const DEFAULT_DISK_CHECK_INTERVAL_MS = 500;

/** Options of {@link watchDiskSpace}. */
export type DiskWatchOptions = {
  /** A path on the watched filesystem (the recording's folder). */
  path: string;
  /** Warn once when free space drops below this, bytes; default {@link DEFAULT_DISK_WARN_BYTES}. */
  warnBytes?: number;
  /** Call onFloor once when free space drops below this, bytes; default
   * {@link DEFAULT_DISK_FLOOR_BYTES}. */
  floorBytes?: number;
  /** Time between checks, ms; default {@link DEFAULT_DISK_CHECK_INTERVAL_MS}. */
  intervalMs?: number;
  /** Free space fell below `warnBytes` (called once). */
  onLow: (freeBytes: number) => void;
  /** Free space fell below `floorBytes` (called once; stop and save now). */
  onFloor: (freeBytes: number) => void;
};

/** Bytes an unprivileged process may still write on the filesystem holding `p`. */
export async function freeBytes(p: string): Promise<number> {
  const s = await fs.statfs(p);
  return s.bavail * s.bsize;
}

/** `12.3 MB` style size for messages. */
export function formatMegabytes(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

// Checks free space now and every `intervalMs`; returns the function that stops watching.
export function watchDiskSpace(options: DiskWatchOptions): () => void {
  const warnBytes = options.warnBytes ?? DEFAULT_DISK_WARN_BYTES;
  const floorBytes = options.floorBytes ?? DEFAULT_DISK_FLOOR_BYTES;
  let hasWarned = false;
  let hasHitFloor = false;
  const check = (): void => {
    if (hasHitFloor) {
      return;
    }
    // statfs failing (null: folder removed…) is reported by the writers that fail next
    const free = freeBytesNow(options.path);
    if (free === null) {
      return;
    }
    if (free < floorBytes) {
      hasHitFloor = true;
      options.onFloor(free);
    } else if (free < warnBytes && !hasWarned) {
      hasWarned = true;
      options.onLow(free);
    }
  };
  queueMicrotask(check);
  // on the process's shared tick (src/infra/shared-tick.ts), with the recorder's other checks
  return everyPeriod(options.intervalMs ?? DEFAULT_DISK_CHECK_INTERVAL_MS, check);
}
