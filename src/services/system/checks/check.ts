// One doctor check's result and the ids of every check, shared by the check modules beside this
// file and by the orchestrator (../doctor.ts); the OS-specific checks come from the platform.
import type { PlatformCheckId } from '../../../recorder/platform';
import type { CleanupReport } from '../../library/cleanup';

/** Identifier of one doctor check: the platform's (src/recorder/platform/types.ts) and those
 * every OS shares. */
export type DoctorCheckId =
  PlatformCheckId | 'ffmpeg' | 'libx264' | 'library' | 'database' | 'orphans' | 'stepcounts';

/** Result of one check. */
export type DoctorCheck = {
  /** Which check this is. */
  id: DoctorCheckId;
  /** True when the requirement is met. */
  ok: boolean;
  /** How bad a failure is: `error` blocks recording, `warning` degrades it. */
  severity: 'error' | 'warning';
  /** One line saying what was found. */
  summary: string;
  /** What to install, enable or run when `ok` is false. */
  fix?: string;
};

/** What `doctor --repair` did: the library clean-up's report and one line per thing done. */
export type DoctorRepair = CleanupReport & { lines: string[] };
