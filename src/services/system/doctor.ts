// `doctor`: checks what recording needs on this machine (Linux: not a Wayland session, an X
// display, RECORD, a window manager, x11grab, AT-SPI; macOS: ffmpeg with avfoundation; Windows:
// ffmpeg with ddagrab or gdigrab; everywhere: ffmpeg with libx264, a writable library whose
// database is sound) and says exactly how to fix each problem (docs/platform-linux.md §1, §2,
// §3, §5; docs/platform-macos-windows.md §3). `repair` runs the safe fixes: the library clean-up
// of what interrupted imports, pulls and deletes left. This file runs the checks and renders the
// report; each area's checks live in checks/<area>.ts, the OS-specific ones (the desktop session,
// ffmpeg's capture device, accessibility) come from the platform (src/recorder/platform/doctor/).
import path from 'node:path';
import type { ResolveFfmpegOptions } from '../../infra/ffmpeg/binary';
import { platformDoctor } from '../../recorder/platform';
import type { DoctorCheck, DoctorRepair } from './checks/check';
import { checkDatabase } from './checks/database';
import { checkFfmpeg } from './checks/ffmpeg';
import { checkLibrary } from './checks/library';
import { checkOrphans, checkStepCounts, repairLibrary } from './checks/library-upkeep';

export type { DoctorCheck, DoctorCheckId } from './checks/check';

/** Everything `doctor` found. */
export type DoctorReport = {
  /** True when no check of severity `error` failed. */
  ok: boolean;
  /** Platform the checks ran for. */
  platform: NodeJS.Platform;
  /** The checks in a stable order. */
  checks: DoctorCheck[];
  /** What `repair` did (only when it was asked for and the database is sound). */
  repair?: DoctorRepair;
};

/** Options of {@link runDoctor}. */
export type DoctorOptions = {
  /** Library folder to check (exists or creatable, and writable); the check is skipped if unset. */
  libraryDir?: string;
  /** Platform whose checks run; default `process.platform`. Its platform (src/recorder/platform)
   * supplies the OS-specific checks: X11 and AT-SPI on Linux, the capture devices everywhere. */
  platform?: NodeJS.Platform;
  /** Limit for each external command (xdpyinfo, dbus-send), in ms; default 5 000. */
  commandTimeoutMs?: number;
  /** Passed to `resolveFfmpeg` (test seam). */
  ffmpeg?: ResolveFfmpegOptions;
  /** Run the safe fixes (the library clean-up) and report what they did. */
  repair?: boolean;
};

/** Default limit for each external command, in ms. */
const DEFAULT_COMMAND_TIMEOUT_MS = 5_000;

// Runs every check for this machine and environment; never throws for a failed check.
export async function runDoctor(
  env: NodeJS.ProcessEnv = process.env,
  options: DoctorOptions = {},
): Promise<DoctorReport> {
  const platform = options.platform ?? process.platform;
  const timeoutMs = options.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS;
  const osChecks = platformDoctor(platform);

  const [sessionChecks, ffmpegChecks, accessibilityChecks, libraryCheck] = await Promise.all([
    osChecks.session?.(env, timeoutMs) ?? Promise.resolve([]),
    checkFfmpeg(env, platform, osChecks, options.ffmpeg ?? {}),
    osChecks.accessibility?.(env, timeoutMs) ?? Promise.resolve([]),
    options.libraryDir === undefined ? Promise.resolve(null) : checkLibrary(options.libraryDir),
  ]);

  const checks: DoctorCheck[] = [...sessionChecks, ...ffmpegChecks, ...accessibilityChecks];
  let repair: DoctorReport['repair'];
  if (libraryCheck) {
    checks.push(libraryCheck);
    const database = checkDatabase(options.libraryDir ?? '');
    if (database) {
      if (!database.sound && libraryCheck.ok) {
        // the folder is fine, the library in it is not: never a ✓ for the library then
        libraryCheck.ok = false;
        libraryCheck.summary += ', but its database is not usable (see the database check)';
        libraryCheck.fix = database.check.fix;
      }
      checks.push(database.check);
      if (database.sound) {
        const libDir = path.resolve(options.libraryDir ?? '');
        if (options.repair) {
          repair = repairLibrary(libDir);
        }
        checks.push(checkOrphans(libDir));
        checks.push(checkStepCounts(libDir));
      }
    } else if (options.repair) {
      const libDir = path.resolve(options.libraryDir ?? '');
      repair = {
        items: [],
        freedBytes: 0,
        errors: [],
        lines: [`no library at ${libDir}: nothing to repair`],
      };
    }
  }
  return {
    ok: checks.every((check) => check.ok || check.severity === 'warning'),
    platform,
    checks,
    ...(repair ? { repair } : {}),
  };
}

// Renders a report for the terminal: one ✓/✗/! line per check, fixes indented below.
export function formatDoctorReport(report: DoctorReport): string {
  const idWidth = Math.max(0, ...report.checks.map((check) => check.id.length));
  const lines: string[] = [];
  for (const check of report.checks) {
    const mark = check.ok ? '✓' : check.severity === 'error' ? '✗' : '!';
    lines.push(`${mark} ${check.id.padEnd(idWidth)}  ${check.summary}`);
    if (!check.ok && check.fix) {
      lines.push(`    fix: ${check.fix}`);
    }
  }
  if (report.repair) {
    lines.push(...report.repair.lines.map((line) => `repair: ${line}`));
    for (const e of report.repair.errors) {
      lines.push(`repair: could not clean ${e.path}: ${e.message}`);
    }
  }
  const errors = report.checks.filter((check) => !check.ok && check.severity === 'error').length;
  const warnings = report.checks.filter((check) => !check.ok && check.severity === 'warning');
  const warningText = warnings.length === 1 ? '1 warning' : `${warnings.length} warnings`;
  if (errors === 0) {
    lines.push(
      warnings.length === 0
        ? 'All checks passed.'
        : `Ready to record (${warningText}: some data will be missing).`,
    );
  } else {
    lines.push(
      `${errors} required ${errors === 1 ? 'check' : 'checks'} failed` +
        (warnings.length > 0 ? `, ${warningText}.` : '.'),
    );
  }
  return lines.join('\n');
}
