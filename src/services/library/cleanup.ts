// One clean-up of what interrupted work left in a library (run when a host opens it, and by
// `doctor --repair`): import/pull staging folders, recording folders that have no row, and
// folders of deletes that stopped half-way. Only what no live process owns is touched: names
// that carry a pid are kept while that process lives, anything else waits out a grace period
// measured from its newest file (a copy in progress keeps touching its file). A recording folder
// with no row is never deleted: it is usually a whole recording whose row was lost (an older
// library.sqlite restored, a salvaged database), for a screen recording the only copy, so it is
// moved into recordings/.orphans for the user to look at (`doctor` lists it).
import fs from 'node:fs';
import path from 'node:path';
import { deleteRecordingRow, listRecordingDirs } from '../../store';
import { isProcessAlive } from '../../infra/process-alive';
import { RECORDINGS_DIR, type Library } from './library';

/** Folder under the library that holds folders of recordings being deleted. */
export const TRASH_DIR = '.trash';

/** Folder under `recordings/` that recording folders with no row are moved into (never deleted
 * by the program; the user inspects them). */
export const ORPHANS_DIR = '.orphans';

/** A file of zeros kept in the library so a full disk still leaves room to open the database and
 * delete recordings: released when the disk is full, made again once there is room. */
export const RESERVE_FILE = '.space-reserve';
/** Size of {@link RESERVE_FILE}. */
export const RESERVE_BYTES = 4 * 1024 * 1024;

/** Makes the space reserve if it is missing and the disk has ample room (never fills a disk). */
export function ensureSpaceReserve(libraryDir: string): boolean {
  const file = path.join(libraryDir, RESERVE_FILE);
  try {
    if (fs.statSync(file).size >= RESERVE_BYTES) {
      return true;
    }
  } catch {
    // missing: made below when there is room
  }
  const free = freeBytes(libraryDir);
  if (free === null || free < RESERVE_BYTES * 2) {
    return false;
  }
  try {
    fs.writeFileSync(file, Buffer.alloc(RESERVE_BYTES));
    return true;
  } catch {
    fs.rmSync(file, { force: true });
    return false;
  }
}

/** Deletes the space reserve when the disk is full; true when that freed space. */
export function releaseSpaceReserve(libraryDir: string): boolean {
  const file = path.join(libraryDir, RESERVE_FILE);
  try {
    fs.unlinkSync(file);
    return true;
  } catch {
    return false;
  }
}

/** Bytes free for this user on the disk holding `dir`, or null when unknown. */
export function freeBytes(dir: string): number | null {
  try {
    const st = fs.statfsSync(dir);
    return st.bavail * st.bsize;
  } catch {
    return null;
  }
}

/** How long a folder nobody claims must have been untouched before it is removed (staging) or
 * moved to {@link ORPHANS_DIR} (a recording folder with no row), in ms. */
export const ORPHAN_GRACE_MS = 15 * 60_000;
/** A folder whose owner pid is alive but that nothing touched for this long belongs to a pid
 * the system has since reused (an import writes continuously), in ms. */
const PID_REUSE_AFTER_MS = 24 * 3600_000;

/** Name of an importer's staging folder under `recordings/`: carries the importing pid. */
export function stagingDirName(id: string, pid = process.pid): string {
  return `.staging-${pid}-${id}`;
}

/** `.trash/<id>--<pid>-<ms>`: the id the folder belonged to and the process deleting it. */
export function trashEntryName(id: string, pid = process.pid, nowMs = Date.now()): string {
  return `${id}--${pid}-${nowMs}`;
}

/** One thing the clean-up found. */
export type CleanupItem = {
  /** Library-relative path. */
  path: string;
  kind: 'import-staging' | 'pull-staging' | 'orphan-folder' | 'interrupted-delete';
  /** What happened (or would happen) and why; `quarantined`: moved to `recordings/.orphans`. */
  action: 'removed' | 'restored' | 'delete-finished' | 'quarantined' | 'kept';
  reason: string;
  bytes: number;
};

/** What {@link cleanupLibrary} did (or, with `dryRun`, would do). */
export type CleanupReport = {
  items: CleanupItem[];
  /** Bytes freed (or that would be freed). */
  freedBytes: number;
  /** Paths that could not be cleaned, with the error. */
  errors: { path: string; message: string }[];
};

/** Options of {@link cleanupLibrary}. */
export type CleanupOptions = {
  /** Only report; change nothing. */
  dryRun?: boolean;
  /** Grace period for folders without an owner pid; default {@link ORPHAN_GRACE_MS}. */
  graceMs?: number;
  now?: () => number;
};

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const STAGING_RE =
  /^\.staging-(?:(\d+)-(?=[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$))?/i;

/** Finds and (unless `dryRun`) cleans up what interrupted imports, pulls and deletes left:
 * staging removed, recording folders with no row moved to `recordings/.orphans`. */
export function cleanupLibrary(lib: Library, options: CleanupOptions = {}): CleanupReport {
  const graceMs = options.graceMs ?? ORPHAN_GRACE_MS;
  const nowMs = (options.now ?? Date.now)();
  const report: CleanupReport = { items: [], freedBytes: 0, errors: [] };
  const rows = listRecordingDirs(lib.db);
  const dirs = new Set(rows.map((r) => r.dir));
  const byId = new Map(rows.map((r) => [r.id, r]));

  const act = (item: Omit<CleanupItem, 'bytes'>, full: string, run: () => void) => {
    const bytes = item.action === 'kept' ? 0 : folderBytes(full);
    try {
      if (!options.dryRun && item.action !== 'kept') {
        run();
      }
      report.items.push({ ...item, bytes });
      if (item.action === 'removed' || item.action === 'delete-finished') {
        report.freedBytes += bytes;
      }
    } catch (e) {
      report.errors.push({ path: item.path, message: (e as Error).message });
    }
  };
  const remove = (full: string) => () => fs.rmSync(full, { recursive: true, force: true });

  const recordingsDir = path.join(lib.dir, RECORDINGS_DIR);
  for (const entry of readDir(recordingsDir)) {
    if (!entry.isDirectory()) {
      continue;
    }
    const rel = `${RECORDINGS_DIR}/${entry.name}`;
    const full = path.join(recordingsDir, entry.name);
    // `.staging-<pid>-<uuid>`, or `.staging-<uuid>` from older versions: a UUID whose first
    // group is all digits is not a pid, so the pid is read only when a whole UUID follows it
    const staging = STAGING_RE.exec(entry.name);
    const pull = /^\.pull-/.test(entry.name);
    if (staging || pull) {
      const kind = staging ? 'import-staging' : 'pull-staging';
      const pid = staging?.[1] === undefined ? null : Number(staging[1]);
      const owner = ownerState(pid, full, nowMs, graceMs);
      act(
        { path: rel, kind, action: owner.live ? 'kept' : 'removed', reason: owner.reason },
        full,
        remove(full),
      );
      continue;
    }
    if (entry.name.startsWith('.') || dirs.has(rel) || !UUID_RE.test(entry.name)) {
      continue; // a recording's folder, or nothing of ours
    }
    // a recording folder with no row: a recording whose row was lost (an older database
    // restored) or an import/record/pull killed before its row committed. Either way it may be
    // the only copy: moved aside, never deleted.
    const owner = ownerState(null, full, nowMs, graceMs);
    act(
      {
        path: rel,
        kind: 'orphan-folder',
        action: owner.live ? 'kept' : 'quarantined',
        reason: owner.live
          ? owner.reason
          : `no recording row; ${owner.reason}; moved to ${RECORDINGS_DIR}/${ORPHANS_DIR}`,
      },
      full,
      () => quarantine(recordingsDir, entry.name),
    );
  }

  const trashDir = path.join(lib.dir, TRASH_DIR);
  for (const entry of readDir(trashDir)) {
    const rel = `${TRASH_DIR}/${entry.name}`;
    const full = path.join(trashDir, entry.name);
    const named = /^(.+?)--(\d+)-\d+$/.exec(entry.name) ?? /^(.{36})-\d+$/.exec(entry.name);
    const id = named?.[1] ?? '';
    const pid = named?.[2] === undefined ? null : Number(named[2]);
    if (pid !== null && pid !== process.pid && isProcessAlive(pid)) {
      act(
        {
          path: rel,
          kind: 'interrupted-delete',
          action: 'kept',
          reason: `process ${pid} is deleting it`,
        },
        full,
        () => undefined,
      );
      continue;
    }
    const row = byId.get(id);
    if (!row) {
      // the delete committed; only its files were left
      act(
        {
          path: rel,
          kind: 'interrupted-delete',
          action: 'removed',
          reason: 'the recording was deleted',
        },
        full,
        remove(full),
      );
      continue;
    }
    const home = lib.resolve(row.dir);
    if (entry.isDirectory() && readDir(full).length === 0) {
      // an empty folder is the mark a delete on a full disk leaves: files freed, row not yet
      act(
        {
          path: rel,
          kind: 'interrupted-delete',
          action: 'delete-finished',
          reason: `recording ${id}'s files were deleted before its row`,
        },
        full,
        () => {
          lib.db.transaction(() => deleteRecordingRow(lib.db, row.seq))();
          fs.rmSync(home, { recursive: true, force: true });
          fs.rmSync(full, { recursive: true, force: true });
        },
      );
      continue;
    }
    if (fs.existsSync(home)) {
      act(
        {
          path: rel,
          kind: 'interrupted-delete',
          action: 'kept',
          reason: `recording ${id} has its folder too; look at both before removing either`,
        },
        full,
        () => undefined,
      );
      continue;
    }
    // the delete stopped before its row went: the recording is still in the library
    act(
      {
        path: rel,
        kind: 'interrupted-delete',
        action: 'restored',
        reason: `the delete of ${id} stopped before it committed; its folder is put back`,
      },
      full,
      () => fs.renameSync(full, home),
    );
  }
  return report;
}

// Moves `recordings/<name>` to `recordings/.orphans/<name>` (same filesystem: a rename), under a
// new name when one of that name is already there.
function quarantine(recordingsDir: string, name: string): void {
  const dir = path.join(recordingsDir, ORPHANS_DIR);
  fs.mkdirSync(dir, { recursive: true });
  let target = path.join(dir, name);
  for (let n = 1; fs.existsSync(target); n += 1) {
    target = path.join(dir, `${name}-${n}`);
  }
  fs.renameSync(path.join(recordingsDir, name), target);
}

/** What `recordings/.orphans` holds: its folders (names) and their total size in bytes. */
export function quarantinedFolders(libraryDir: string): { names: string[]; bytes: number } {
  const dir = path.join(libraryDir, RECORDINGS_DIR, ORPHANS_DIR);
  const names = readDir(dir)
    .map((e) => e.name)
    .sort();
  return { names, bytes: names.length ? folderBytes(dir) : 0 };
}

/** One line per kind of thing cleaned, for the CLI (empty when nothing was done). */
export function describeCleanup(report: CleanupReport): string[] {
  const lines: string[] = [];
  const done = report.items.filter((i) => i.action !== 'kept');
  const count = (kind: CleanupItem['kind'], action: CleanupItem['action']) =>
    done.filter((i) => i.kind === kind && i.action === action).length;
  const phrases: [number, string][] = [
    [count('import-staging', 'removed'), 'staging folder(s) of interrupted imports'],
    [count('pull-staging', 'removed'), 'staging folder(s) of interrupted pulls'],
    [
      count('interrupted-delete', 'removed') + count('interrupted-delete', 'delete-finished'),
      'leftover(s) of interrupted deletes',
    ],
  ];
  for (const [n, what] of phrases) {
    if (n > 0) {
      lines.push(`removed ${n} ${what}`);
    }
  }
  const quarantined = count('orphan-folder', 'quarantined');
  if (quarantined > 0) {
    lines.push(
      `moved ${quarantined} recording folder(s) with no recording to ${RECORDINGS_DIR}/${ORPHANS_DIR} ` +
        '(nothing deleted; see cua-annotator doctor)',
    );
  }
  const restored = count('interrupted-delete', 'restored');
  if (restored > 0) {
    lines.push(`put back ${restored} recording folder(s) whose delete did not finish`);
  }
  if (lines.length && report.freedBytes > 0) {
    lines.push(`freed ${formatBytes(report.freedBytes)}`);
  }
  return lines;
}

/** Bytes as B/KiB/MiB/GiB with one decimal. */
export function formatBytes(n: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let v = n;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u += 1;
  }
  return u === 0 ? `${v} B` : `${v.toFixed(1)} ${units[u]}`;
}

// A pid in the name decides; without one the folder is live while something in it changed
// within the grace period.
function ownerState(
  pid: number | null,
  full: string,
  nowMs: number,
  graceMs: number,
): { live: boolean; reason: string } {
  if (pid !== null) {
    // our own pid in a name means an earlier process that had it (we clean before we import)
    if (!isProcessAlive(pid) || pid === process.pid) {
      return { live: false, reason: `process ${pid} that wrote it is gone` };
    }
    const idleMs = nowMs - newestMtimeMs(full);
    return idleMs < PID_REUSE_AFTER_MS
      ? { live: true, reason: `process ${pid} is still writing it` }
      : { live: false, reason: `untouched for ${Math.round(idleMs / 3600_000)} h` };
  }
  const ageMs = nowMs - newestMtimeMs(full);
  const minutes = Math.round(graceMs / 60_000);
  return ageMs < graceMs
    ? {
        live: true,
        reason: `changed ${Math.round(ageMs / 1000)} s ago (may still be in use; left alone for ${minutes} min)`,
      }
    : { live: false, reason: `untouched for ${Math.round(ageMs / 60_000)} min` };
}

function readDir(dir: string): fs.Dirent[] {
  try {
    return fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
}

// Calls `onEntry` with the lstat of `full` and of everything below it (links are not followed;
// entries that vanish or cannot be read are passed over).
function walkTree(full: string, onEntry: (st: fs.Stats) => void): void {
  let st: fs.Stats;
  try {
    st = fs.lstatSync(full);
  } catch {
    return;
  }
  onEntry(st);
  if (st.isDirectory()) {
    for (const e of readDir(full)) {
      walkTree(path.join(full, e.name), onEntry);
    }
  }
}

function newestMtimeMs(full: string): number {
  let newest = 0;
  walkTree(full, (st) => {
    newest = Math.max(newest, st.mtimeMs);
  });
  return newest;
}

function folderBytes(full: string): number {
  let total = 0;
  walkTree(full, (st) => {
    if (!st.isDirectory()) {
      total += st.size;
    }
  });
  return total;
}
