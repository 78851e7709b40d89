// `doctor`: checks what recording needs on this machine (Linux: not a Wayland session, an X
// display, RECORD, a window manager, x11grab, AT-SPI; macOS: ffmpeg with avfoundation; Windows:
// ffmpeg with ddagrab or gdigrab; everywhere: ffmpeg with libx264, a writable library whose
// database is sound) and says exactly how to fix each problem (docs/platform-linux.md §1, §2,
// §3, §5; docs/platform-macos-windows.md §3). `repair` runs the safe fixes: the library clean-up
// of what interrupted imports, pulls and deletes left.
import { randomBytes } from 'node:crypto';
import { constants as fsConstants } from 'node:fs';
import { access, stat, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { tailLines } from '../../infra/lines';
import { ProcessStartError, runCommand } from '../../infra/run-command';
import type { CommandResult } from '../../infra/run-command';
import { resolveFfmpeg } from '../../infra/ffmpeg/binary';
import type { FfmpegBinary, ResolveFfmpegOptions } from '../../infra/ffmpeg/binary';
import { detectWaylandSession, waylandSessionError } from '../../recorder/platform/wayland';
import { isAppError } from '../../shared/errors';
import {
  isCaptureFfmpegVersion,
  MIN_CAPTURE_FFMPEG_VERSION,
} from '../../recorder/screen/ffmpeg-args';
import {
  checkDatabaseIntegrity,
  LATEST_SCHEMA_VERSION,
  listRecordingDirs,
  openDatabase,
  readDatabaseVersion,
} from '../../store';
import {
  cleanupLibrary,
  describeCleanup,
  formatBytes,
  ORPHANS_DIR,
  quarantinedFolders,
  type CleanupReport,
} from '../library/cleanup';
import { DB_FILE_NAME, openLibrary, RECORDINGS_DIR, type Library } from '../library/library';
import { staleStepCounts } from '../recordings';

/** Identifier of one doctor check. */
export type DoctorCheckId =
  | 'session'
  | 'display'
  | 'xrecord'
  | 'xtest'
  | 'windowmanager'
  | 'ffmpeg'
  | 'x11grab'
  | 'avfoundation'
  | 'ddagrab'
  | 'gdigrab'
  | 'libx264'
  | 'atspi'
  | 'library'
  | 'database'
  | 'orphans'
  | 'stepcounts';

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

/** Everything `doctor` found. */
export type DoctorReport = {
  /** True when no check of severity `error` failed. */
  ok: boolean;
  /** Platform the checks ran for. */
  platform: NodeJS.Platform;
  /** The checks in a stable order. */
  checks: DoctorCheck[];
  /** What `repair` did (only when it was asked for and the database is sound). */
  repair?: CleanupReport & { lines: string[] };
};

/** Options of {@link runDoctor}. */
export type DoctorOptions = {
  /** Library folder to check (exists or creatable, and writable); the check is skipped if unset. */
  libraryDir?: string;
  /** Platform whose checks run; default `process.platform`. X11 and AT-SPI checks are Linux-only. */
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

const XVFB_FIX =
  'apt-get install xvfb x11-utils, then start a virtual display: ' +
  '`Xvfb :99 -screen 0 1280x800x24 -nolisten tcp &` and `export DISPLAY=:99` ' +
  '(or run from a logged-in X11 desktop session)';
const XDPYINFO_FIX = 'apt-get install x11-utils (provides xdpyinfo)';
const ATSPI_LAUNCH =
  '/usr/libexec/at-spi-bus-launcher --launch-immediately & (from a shell where DISPLAY and ' +
  'DBUS_SESSION_BUS_ADDRESS are set)';

// Runs every check for this machine and environment; never throws for a failed check.
export async function runDoctor(
  env: NodeJS.ProcessEnv = process.env,
  options: DoctorOptions = {},
): Promise<DoctorReport> {
  const platform = options.platform ?? process.platform;
  const timeoutMs = options.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS;
  const isLinux = platform === 'linux';

  const [x11Checks, ffmpegChecks, atspiCheck, libraryCheck] = await Promise.all([
    isLinux ? checkX11(env, timeoutMs) : Promise.resolve([]),
    checkFfmpeg(env, platform, options.ffmpeg ?? {}),
    isLinux ? checkAtspi(env, timeoutMs) : Promise.resolve(null),
    options.libraryDir === undefined ? Promise.resolve(null) : checkLibrary(options.libraryDir),
  ]);

  const checks = [...(isLinux ? [checkSessionType(env)] : []), ...x11Checks, ...ffmpegChecks];
  if (atspiCheck) {
    checks.push(atspiCheck);
  }
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

// The database beside the library folder, read without creating, migrating or writing it:
// present, not empty, SQLite, a schema this build knows, and SQLite's quick_check passes.
function checkDatabase(libraryDir: string): { check: DoctorCheck; sound: boolean } | null {
  const file = path.join(path.resolve(libraryDir), DB_FILE_NAME);
  const base = { id: 'database', severity: 'error' } as const;
  const aside =
    `move it aside (\`mv '${file}' '${file}.broken'\`) and restore the library from a backup ` +
    `(a library.sqlite.bak-* file beside it if one exists)`;
  const found = readDatabaseVersion(file);
  switch (found.kind) {
    case 'missing':
      return null; // no library here yet: the first import or record creates it
    case 'empty':
      return {
        sound: false,
        check: {
          ...base,
          ok: false,
          summary: `${file} is empty (0 bytes): the library's recordings are not readable from it`,
          fix: `${aside}; do not open it with other commands first`,
        },
      };
    case 'unreadable':
      return {
        sound: false,
        check: {
          ...base,
          ok: false,
          summary: `${file} is not a readable SQLite database (${found.code})`,
          fix: aside,
        },
      };
    case 'ok':
      break;
  }
  if (found.version > LATEST_SCHEMA_VERSION) {
    return {
      sound: false,
      check: {
        ...base,
        ok: false,
        summary:
          `${file} has schema version ${found.version}, newer than this cua-annotator knows ` +
          `(${LATEST_SCHEMA_VERSION}): it was written by a newer version`,
        fix:
          `upgrade cua-annotator to the version that wrote this library, or use another ` +
          'library with --library DIR',
      },
    };
  }
  let integrity: ReturnType<typeof checkDatabaseIntegrity>;
  let recordings = 0;
  try {
    const db = openDatabase(file, { readonly: true });
    try {
      integrity = checkDatabaseIntegrity(db, { mode: 'quick', maxProblems: 5 });
      if (integrity.ok) {
        recordings = listRecordingDirs(db).length;
      }
    } finally {
      db.close();
    }
  } catch (e) {
    integrity = { ok: false, problems: [(e as Error).message] };
  }
  if (!integrity.ok) {
    return {
      sound: false,
      check: {
        ...base,
        ok: false,
        summary: `${file} is damaged (SQLite integrity check: ${integrity.problems[0] ?? 'failed'})`,
        fix:
          `copy the library folder aside first, then salvage what SQLite can read: ` +
          `\`sqlite3 '${file}' .recover | sqlite3 '${file}.recovered'\`, check it, and put it ` +
          `in place of ${DB_FILE_NAME}; or restore a backup`,
      },
    };
  }
  const upgrade =
    found.version < LATEST_SCHEMA_VERSION
      ? `; upgraded to ${LATEST_SCHEMA_VERSION} on the next open (backed up first)`
      : '';
  return {
    sound: true,
    check: {
      ...base,
      ok: true,
      summary:
        `${DB_FILE_NAME}: schema version ${found.version}${upgrade}, integrity ok, ` +
        `${recordings} recording${recordings === 1 ? '' : 's'}`,
    },
  };
}

// Read-only view of the library for the clean-up's dry run (nothing is migrated or written).
function readOnlyLibrary(dir: string): Library {
  const db = openDatabase(path.join(dir, DB_FILE_NAME), { readonly: true });
  return {
    dir,
    db,
    resolve: (relative) => path.resolve(dir, relative),
    close: () => db.close(),
  };
}

// What interrupted imports, pulls and deletes left (`--repair` cleans it up), and the recording
// folders with no row that a clean-up moved to recordings/.orphans (only the user deletes those).
function checkOrphans(libraryDir: string): DoctorCheck {
  const base = { id: 'orphans', severity: 'warning' } as const;
  let report: CleanupReport;
  let held: ReturnType<typeof quarantinedFolders>;
  try {
    const lib = readOnlyLibrary(libraryDir);
    try {
      report = cleanupLibrary(lib, { dryRun: true });
    } finally {
      lib.close();
    }
    held = quarantinedFolders(libraryDir);
  } catch (e) {
    return { ...base, ok: false, summary: `could not look for leftovers: ${(e as Error).message}` };
  }
  const quarantine = `${RECORDINGS_DIR}/${ORPHANS_DIR}`;
  const pending = report.items.filter((i) => i.action !== 'kept');
  const inUse = report.items.length - pending.length;
  const inUseText = inUse ? ` (${inUse} in use by a running import or delete, left alone)` : '';
  if (!pending.length && !held.names.length) {
    return {
      ...base,
      ok: true,
      summary: `no leftovers of interrupted imports or deletes${inUseText}`,
    };
  }
  const parts: string[] = [];
  if (held.names.length) {
    parts.push(
      `${held.names.length} recording folder(s) with no recording in ${quarantine} ` +
        `(${formatBytes(held.bytes)}, kept, never deleted automatically): ${held.names.join(', ')}`,
    );
  }
  if (pending.length) {
    const aside = pending.filter((i) => i.action === 'quarantined').length;
    parts.push(
      `${pending.length} leftover(s) of interrupted imports, pulls or deletes ` +
        `(${formatBytes(report.freedBytes)} to free` +
        (aside ? `; ${aside} recording folder(s) to move to ${quarantine}` : '') +
        `): ${pending.map((i) => i.path).join(', ')}`,
    );
  }
  const inspect =
    `inspect the folders in ${path.join(libraryDir, RECORDINGS_DIR, ORPHANS_DIR)} and delete ` +
    'those you do not need yourself; get back those you want by restoring the library.sqlite ' +
    'backup that still lists them (an imported recording can also be re-imported with ' +
    '`cua-annotator import <folder>/raw`)';
  return {
    ...base,
    ok: false,
    summary: `${parts.join('; ')}${inUseText}`,
    fix: held.names.length
      ? pending.length
        ? `run \`cua-annotator doctor --repair\` to clean up the leftovers, then ${inspect}`
        : inspect.charAt(0).toUpperCase() + inspect.slice(1)
      : 'run `cua-annotator doctor --repair` (or any command that opens the library) to clean them up',
  };
}

// Libraries edited before step counts followed edits show stale counts in `list`.
function checkStepCounts(libraryDir: string): DoctorCheck {
  const base = { id: 'stepcounts', severity: 'warning' } as const;
  let stale: ReturnType<typeof staleStepCounts>;
  try {
    const lib = readOnlyLibrary(libraryDir);
    try {
      stale = staleStepCounts(lib);
    } finally {
      lib.close();
    }
  } catch (e) {
    return { ...base, ok: false, summary: `could not check step counts: ${(e as Error).message}` };
  }
  if (!stale.length) {
    return { ...base, ok: true, summary: 'step counts match the edited steps' };
  }
  return {
    ...base,
    ok: false,
    summary:
      `${stale.length} recording(s) list a stale step count (` +
      stale
        .slice(0, 3)
        .map((r) => `${r.id.slice(0, 8)}: ${r.stored} listed, ${r.shown} shown`)
        .join('; ') +
      (stale.length > 3 ? '; …' : '') +
      ')',
    fix: 'run `cua-annotator doctor --repair` to store the right counts',
  };
}

// The safe fixes: the same clean-up every command runs when it opens the library.
function repairLibrary(libraryDir: string): NonNullable<DoctorReport['repair']> {
  let lib: Library | null = null;
  try {
    // repairing never creates a library where there is none (a mistyped --library)
    lib = openLibrary(libraryDir, { create: false });
    const report = cleanupLibrary(lib);
    const lines = describeCleanup(report);
    const recounted = staleStepCounts(lib, { fix: true });
    if (recounted.length) {
      lines.push(`stored the right step count of ${recounted.length} recording(s)`);
    }
    return { ...report, lines: lines.length ? lines : ['nothing to repair'] };
  } catch (e) {
    return {
      items: [],
      freedBytes: 0,
      errors: [{ path: libraryDir, message: (e as Error).message }],
      lines: [`could not repair: ${(e as Error).message}`],
    };
  } finally {
    lib?.close();
  }
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

async function checkX11(env: NodeJS.ProcessEnv, timeoutMs: number): Promise<DoctorCheck[]> {
  const display = env.DISPLAY?.trim() ?? '';
  // RECORD and XTEST are only known once the display answers: point at the display fix
  const dependents = (reason: string): DoctorCheck[] =>
    (['xrecord', 'xtest'] as const).map((id) => ({
      id,
      ok: false,
      severity: id === 'xrecord' ? 'error' : 'warning',
      summary: `not checked: ${reason}`,
      fix: 'fix the display check first',
    }));

  if (display === '') {
    const onWayland = (env.WAYLAND_DISPLAY ?? '') !== '';
    return [
      {
        id: 'display',
        ok: false,
        severity: 'error',
        summary: onWayland
          ? 'DISPLAY is not set (Wayland session without Xwayland): capture needs X11'
          : 'DISPLAY is not set: no X display to record',
        fix: onWayland ? `log in to an X11 (Xorg) session, or ${XVFB_FIX}` : XVFB_FIX,
      },
      ...dependents('no X display'),
    ];
  }

  let result: CommandResult;
  try {
    result = await runCommand('xdpyinfo', ['-display', display], { env, timeoutMs });
  } catch (error) {
    if (error instanceof ProcessStartError) {
      return [
        {
          id: 'display',
          ok: false,
          severity: 'error',
          summary: `cannot query DISPLAY=${display}: xdpyinfo is not installed`,
          fix: XDPYINFO_FIX,
        },
        ...dependents('xdpyinfo is not installed'),
      ];
    }
    throw error;
  }

  if (result.code !== 0 || result.isTimedOut) {
    const reason = result.isTimedOut
      ? 'xdpyinfo timed out'
      : tailLines(result.stderr, 1) || `xdpyinfo exited with ${result.code ?? result.signal}`;
    const fix =
      `start the X server for DISPLAY=${display} or point DISPLAY at a running one ` +
      `(check XAUTHORITY if access is refused); for a virtual display: ${XVFB_FIX}`;
    return [
      {
        id: 'display',
        ok: false,
        severity: 'error',
        summary: `X display ${display} does not answer (${reason})`,
        fix,
      },
      ...dependents(`X display ${display} does not answer`),
    ];
  }

  const info = parseXdpyinfo(result.stdout);
  const details = [info.vendor, info.dimensions].filter((part) => part !== null).join(', ');
  const hasRecord = info.extensions.includes('RECORD');
  const hasXtest = info.extensions.includes('XTEST');
  const windowManager = await checkWindowManager(env, display, timeoutMs);
  return [
    {
      id: 'display',
      ok: true,
      severity: 'error',
      summary: `X display ${display} answers${details ? ` (${details})` : ''}`,
    },
    {
      id: 'xrecord',
      ok: hasRecord,
      severity: 'error',
      summary: hasRecord
        ? 'RECORD extension present (global input capture works)'
        : `RECORD extension missing on ${display}: the input hook cannot capture mouse and keys`,
      ...(hasRecord
        ? {}
        : {
            fix:
              'enable RECORD: Xorg: add `Section "Extensions"` / `Option "RECORD" "Enable"` / ' +
              '`EndSection` to xorg.conf and restart X; Xvfb: drop `-extension RECORD` ' +
              "(Debian's Xvfb enables it by default)",
          }),
    },
    {
      id: 'xtest',
      ok: hasXtest,
      severity: 'warning',
      summary: hasXtest
        ? 'XTEST extension present (synthetic input for tests and replay)'
        : `XTEST extension missing on ${display}: synthetic input (xdotool, replay) will not work`,
      ...(hasXtest
        ? {}
        : {
            fix:
              'enable XTEST: Xorg: `Option "XTEST" "Enable"` in `Section "Extensions"`; ' +
              'Xvfb: drop `-extension XTEST`',
          }),
    },
    windowManager,
  ];
}

// The active-window timeline reads _NET_ACTIVE_WINDOW, which only an EWMH window manager sets;
// one is running when the root window names its check window (_NET_SUPPORTING_WM_CHECK).
async function checkWindowManager(
  env: NodeJS.ProcessEnv,
  display: string,
  timeoutMs: number,
): Promise<DoctorCheck> {
  const base = { id: 'windowmanager', severity: 'warning' } as const;
  const consequence = 'recordings will have no window timeline (no window title or app per step)';
  const xprop = async (args: string[]) => {
    try {
      return await runCommand('xprop', ['-display', display, ...args], { env, timeoutMs });
    } catch (error) {
      if (error instanceof ProcessStartError) {
        return null;
      }
      throw error;
    }
  };
  const root = await xprop(['-root', '_NET_SUPPORTING_WM_CHECK']);
  if (root === null) {
    return {
      ...base,
      ok: false,
      summary: `cannot ask ${display} for a window manager: xprop is not installed (${consequence})`,
      fix: 'apt-get install x11-utils (provides xprop, which the window timeline uses too)',
    };
  }
  const windowId = /window id # (0x[0-9a-f]+)/i.exec(root.stdout)?.[1];
  if (root.code !== 0 || windowId === undefined) {
    return {
      ...base,
      ok: false,
      summary: `no window manager is running on ${display}: ${consequence}`,
      fix:
        'record inside a desktop session, or start a window manager on this display ' +
        `(apt-get install openbox; \`DISPLAY=${display} openbox &\`)`,
    };
  }
  const named = await xprop(['-id', windowId, '_NET_WM_NAME']);
  const name = named ? /=\s*"([^"]*)"/.exec(named.stdout)?.[1] : undefined;
  return {
    ...base,
    ok: true,
    summary: `window manager ${name ?? '(unnamed)'} is running (window timeline available)`,
  };
}

type XdpyinfoFacts = {
  vendor: string | null;
  dimensions: string | null;
  extensions: string[];
};

function parseXdpyinfo(output: string): XdpyinfoFacts {
  const lines = output.split(/\r?\n/);
  const extensions: string[] = [];
  const start = lines.findIndex((line) => line.startsWith('number of extensions:'));
  if (start >= 0) {
    // the extension names follow, one per indented line
    for (const line of lines.slice(start + 1)) {
      if (!/^\s+\S/.test(line)) {
        break;
      }
      extensions.push(line.trim());
    }
  }
  const vendor = lines.find((line) => line.startsWith('vendor string:'));
  const dimensions = /^\s*dimensions:\s+(\d+x\d+) pixels/m.exec(output);
  return {
    vendor: vendor === undefined ? null : vendor.slice('vendor string:'.length).trim(),
    dimensions: dimensions?.[1] ?? null,
    extensions,
  };
}

async function checkFfmpeg(
  env: NodeJS.ProcessEnv,
  platform: NodeJS.Platform,
  ffmpegOptions: ResolveFfmpegOptions,
): Promise<DoctorCheck[]> {
  const installFfmpeg =
    platform === 'darwin'
      ? 'brew install ffmpeg'
      : platform === 'win32'
        ? 'winget install Gyan.FFmpeg'
        : 'apt-get install ffmpeg';
  let binary: FfmpegBinary;
  try {
    binary = await resolveFfmpeg(env, { ...ffmpegOptions, platform });
  } catch (error) {
    if (!isAppError(error, 'FFMPEG_NOT_FOUND')) {
      throw error;
    }
    const isEnvProblem = error.details?.envVar !== undefined;
    const fix = isEnvProblem
      ? `fix or unset CUA_FFMPEG (currently '${env.CUA_FFMPEG ?? ''}'); without it ffmpeg is taken from PATH (${installFfmpeg})`
      : `${installFfmpeg}, or set CUA_FFMPEG=/path/to/ffmpeg`;
    const skipped = (id: DoctorCheckId): DoctorCheck => ({
      id,
      ok: false,
      severity: 'error',
      summary: 'not checked: no usable ffmpeg',
      fix,
    });
    const checks: DoctorCheck[] = [
      { id: 'ffmpeg', ok: false, severity: 'error', summary: error.message, fix },
    ];
    checks.push(...captureDeviceIds(platform).map(skipped));
    checks.push(skipped('libx264'));
    return checks;
  }

  const sourceText =
    binary.source === 'env'
      ? 'from CUA_FFMPEG'
      : binary.source === 'ffmpeg-static'
        ? 'from ffmpeg-static'
        : 'from PATH';
  const probeText =
    binary.ffprobePath === null
      ? 'no ffprobe (probing falls back to ffmpeg)'
      : `ffprobe ${binary.ffprobePath}`;
  const otherBuild =
    binary.source === 'path'
      ? `${installFfmpeg} (Debian's build has it)`
      : `unset CUA_FFMPEG and ${installFfmpeg} (Debian's build has it)`;
  const isRecent = isCaptureFfmpegVersion(binary.version);
  const checks: DoctorCheck[] = [
    {
      id: 'ffmpeg',
      ok: isRecent,
      severity: 'error',
      summary: `ffmpeg ${binary.version} at ${binary.path} (${sourceText}); ${probeText}${isRecent ? '' : `; recording needs ${MIN_CAPTURE_FFMPEG_VERSION} or newer`}`,
      ...(isRecent
        ? {}
        : {
            fix: `install ffmpeg ${MIN_CAPTURE_FFMPEG_VERSION} or newer (${installFfmpeg}), or set CUA_FFMPEG`,
          }),
    },
  ];
  if (platform === 'darwin' || platform === 'win32') {
    checks.push(...checkCaptureDevices(binary, platform, installFfmpeg));
  }
  if (platform === 'linux') {
    checks.push({
      id: 'x11grab',
      ok: binary.hasX11grab,
      severity: 'error',
      summary: binary.hasX11grab
        ? 'ffmpeg has the x11grab input device'
        : `${binary.path} was built without x11grab: it cannot capture the X screen`,
      ...(binary.hasX11grab
        ? {}
        : { fix: `${otherBuild}, or point CUA_FFMPEG at a build configured with --enable-libxcb` }),
    });
  }
  checks.push({
    id: 'libx264',
    ok: binary.hasLibx264,
    severity: 'error',
    summary: binary.hasLibx264
      ? 'ffmpeg has the libx264 encoder'
      : `${binary.path} was built without libx264: recordings cannot be encoded as H.264`,
    ...(binary.hasLibx264
      ? {}
      : { fix: `${otherBuild}, or point CUA_FFMPEG at a build configured with --enable-libx264` }),
  });
  return checks;
}

// The screen capture device checks of `platform` (their ids, in report order).
function captureDeviceIds(platform: NodeJS.Platform): DoctorCheckId[] {
  switch (platform) {
    case 'linux':
      return ['x11grab'];
    case 'darwin':
      return ['avfoundation'];
    case 'win32':
      return ['ddagrab', 'gdigrab'];
    default:
      return [];
  }
}

// macOS: avfoundation; Windows: ddagrab (preferred, a warning when missing) or gdigrab (every
// build; an error only when neither is there). docs/platform-macos-windows.md §2, §3.
function checkCaptureDevices(
  binary: FfmpegBinary,
  platform: 'darwin' | 'win32',
  installFfmpeg: string,
): DoctorCheck[] {
  const devices = binary.captureDevices;
  if (platform === 'darwin') {
    return [
      {
        id: 'avfoundation',
        ok: devices.avfoundation,
        severity: 'error',
        summary: devices.avfoundation
          ? 'ffmpeg has the avfoundation input device (macOS screen capture)'
          : `${binary.path} was built without avfoundation: it cannot capture the macOS screen`,
        ...(devices.avfoundation
          ? {}
          : { fix: `${installFfmpeg}, or point CUA_FFMPEG at a macOS build with avfoundation` }),
      },
    ];
  }
  return [
    {
      id: 'ddagrab',
      ok: devices.ddagrab,
      severity: 'warning',
      summary: devices.ddagrab
        ? 'ffmpeg has the ddagrab filter (Desktop Duplication, one monitor at a time)'
        : `${binary.path} has no ddagrab filter (ffmpeg 6.0+ with D3D11): capture falls back to gdigrab, which costs more CPU`,
      ...(devices.ddagrab
        ? {}
        : { fix: `${installFfmpeg} (a current full build has ddagrab), or set CUA_FFMPEG to one` }),
    },
    {
      id: 'gdigrab',
      ok: devices.gdigrab || devices.ddagrab,
      severity: 'error',
      summary: devices.gdigrab
        ? 'ffmpeg has the gdigrab input device (GDI capture of a desktop rectangle)'
        : devices.ddagrab
          ? `${binary.path} has no gdigrab; ddagrab captures instead`
          : `${binary.path} has neither ddagrab nor gdigrab: it cannot capture the Windows screen`,
      ...(devices.gdigrab || devices.ddagrab
        ? {}
        : { fix: `${installFfmpeg}, or point CUA_FFMPEG at a Windows build of ffmpeg` }),
    },
  ];
}

// Linux: the recorder captures through X11, which under Wayland sees only XWayland (black
// video even though DISPLAY answers), so the session type is checked first.
function checkSessionType(env: NodeJS.ProcessEnv): DoctorCheck {
  const base = { id: 'session', severity: 'error' } as const;
  const wayland = detectWaylandSession(env);
  if (wayland) {
    const error = waylandSessionError(wayland);
    return {
      ...base,
      ok: false,
      summary: `[${error.code}] ${error.message}`,
      ...(error.fix ? { fix: error.fix } : {}),
    };
  }
  const type = env.XDG_SESSION_TYPE?.trim();
  return {
    ...base,
    ok: true,
    summary: type
      ? `${type} session (not Wayland)`
      : 'not a Wayland session (XDG_SESSION_TYPE unset)',
  };
}

async function checkAtspi(env: NodeJS.ProcessEnv, timeoutMs: number): Promise<DoctorCheck> {
  const base = { id: 'atspi', severity: 'warning' } as const;
  const consequence = 'recordings will have no accessibility tree';
  const address = env.DBUS_SESSION_BUS_ADDRESS?.trim() ?? '';
  if (address === '') {
    return {
      ...base,
      ok: false,
      summary: `DBUS_SESSION_BUS_ADDRESS is not set: no session D-Bus, ${consequence}`,
      fix:
        'apt-get install dbus-x11 at-spi2-core, start a session bus with ' +
        '`eval "$(dbus-launch --sh-syntax)"`, then ' +
        ATSPI_LAUNCH,
    };
  }

  let result: CommandResult;
  try {
    result = await runCommand(
      'dbus-send',
      [
        '--session',
        '--print-reply',
        `--reply-timeout=${Math.max(1, timeoutMs - 500)}`,
        '--dest=org.a11y.Bus',
        '/org/a11y/bus',
        'org.a11y.Bus.GetAddress',
      ],
      { env, timeoutMs },
    );
  } catch (error) {
    if (error instanceof ProcessStartError) {
      return {
        ...base,
        ok: false,
        summary: `cannot ask the session bus for AT-SPI: dbus-send is not installed (${consequence})`,
        fix: 'apt-get install dbus-bin at-spi2-core (dbus-bin provides dbus-send)',
      };
    }
    throw error;
  }

  if (result.code === 0 && !result.isTimedOut) {
    const busAddress = /string "([^"]*)"/.exec(result.stdout)?.[1];
    return {
      ...base,
      ok: true,
      summary: `AT-SPI bus answers${busAddress ? ` at ${busAddress}` : ''}`,
    };
  }

  const reason = result.isTimedOut ? 'dbus-send timed out' : tailLines(result.stderr, 1);
  if (/ServiceUnknown|was not provided/.test(result.stderr)) {
    return {
      ...base,
      ok: false,
      summary: `the session bus has no org.a11y.Bus (AT-SPI is not running): ${consequence}`,
      fix: `apt-get install at-spi2-core, then ${ATSPI_LAUNCH}`,
    };
  }
  return {
    ...base,
    ok: false,
    summary: `session D-Bus at ${address} does not answer (${reason || 'no reply'}): ${consequence}`,
    fix:
      'start a session bus and export its address: ' +
      '`dbus-daemon --session --fork --address=unix:path=$XDG_RUNTIME_DIR/bus` and ' +
      '`export DBUS_SESSION_BUS_ADDRESS=unix:path=$XDG_RUNTIME_DIR/bus` ' +
      '(or `eval "$(dbus-launch --sh-syntax)"`), then ' +
      ATSPI_LAUNCH,
  };
}

async function checkLibrary(libraryDir: string): Promise<DoctorCheck> {
  const absolute = path.resolve(libraryDir);
  const base = { id: 'library', severity: 'error' } as const;
  const chooseOther = 'or choose another library folder';

  let isDirectory: boolean | null;
  try {
    isDirectory = (await stat(absolute)).isDirectory();
  } catch {
    isDirectory = null;
  }

  if (isDirectory === false) {
    return {
      ...base,
      ok: false,
      summary: `library path ${absolute} exists but is not a folder`,
      fix: `move that file away, ${chooseOther}`,
    };
  }

  if (isDirectory === true) {
    // a real write: access(W_OK) says yes to root even where writes fail (read-only mounts, ACLs)
    const probe = path.join(absolute, `.doctor-write-test-${randomBytes(6).toString('hex')}`);
    try {
      await writeFile(probe, '');
      await unlink(probe);
      return { ...base, ok: true, summary: `library folder ${absolute} is writable` };
    } catch (error) {
      // read-only (issue 26 item 20): reading commands still work, say so and give the fix
      // that fits (a read-only mount is not a permission problem)
      const code = errnoOf(error);
      const reads =
        'commands that only read still work (list, show, check, scan, export to a writable ' +
        'folder, doctor); recording, importing and editing need it writable';
      return {
        ...base,
        ok: false,
        summary:
          code === 'EROFS'
            ? `library folder ${absolute} is read-only: its file system is mounted read-only (EROFS); ${reads}`
            : `library folder ${absolute} is read-only for this user (${code}); ${reads}`,
        fix:
          code === 'EROFS'
            ? `remount its file system read-write (\`mount -o remount,rw\` on its mount point), or copy the library to a writable folder and pass --library DIR`
            : `have the folder's owner make it writable for this user (\`chmod -R u+w '${absolute}'\` as the owner), run as its owner, ${chooseOther}`,
      };
    }
  }

  const ancestor = await nearestExistingAncestor(absolute);
  try {
    if (ancestor === null || !(await stat(ancestor)).isDirectory()) {
      throw new Error('ENOTDIR');
    }
    await access(ancestor, fsConstants.W_OK | fsConstants.X_OK);
    return {
      ...base,
      ok: true,
      summary: `library folder ${absolute} does not exist yet; it can be created in ${ancestor}`,
    };
  } catch (error) {
    return {
      ...base,
      ok: false,
      summary: `library folder ${absolute} cannot be created (${ancestor ?? 'no parent'}: ${errnoOf(error)})`,
      fix: `create it with \`mkdir -p '${absolute}'\` as a user allowed to and make it writable for this user, ${chooseOther}`,
    };
  }
}

async function nearestExistingAncestor(dir: string): Promise<string | null> {
  let current = path.dirname(dir);
  for (;;) {
    try {
      await stat(current);
      return current;
    } catch {
      const parent = path.dirname(current);
      if (parent === current) {
        return null;
      }
      current = parent;
    }
  }
}

function errnoOf(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code ?? error.message;
  }
  return String(error);
}
