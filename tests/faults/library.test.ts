// Faults of the library's lifecycle found in issue 10 (items 4, 12, 13, 19): deleting a recording
// while it records, leftovers of imports killed at named moments, step counts stale after edits,
// and `delete` on a disk that is 100 % full. Real SQLite, real imports in child processes killed
// with SIGKILL, the real CLI, a real tmpfs.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ServiceContext } from '../../src/services/context';
import { createServices } from '../../src/services/create-services';
import { dispatch } from '../../src/services/dispatch';
import { applyEdit, undoLastEdit } from '../../src/services/edits/edit-service';
import { importAgentNetFolder } from '../../src/services/import/agentnet-import';
import { cleanupLibrary } from '../../src/services/library/cleanup';
import { openLibrary, type Library } from '../../src/services/library/library';
import { deleteRecording, listLibrary, staleStepCounts } from '../../src/services/recordings';
import { reduceRecording } from '../../src/services/reduce-service';
import { insertEvents, queryRecordingPage } from '../../src/store';
import { runCli } from '../helpers/cli';
import { FIXTURE_DIR, REPO_ROOT } from '../helpers/paths';
import { makeRecording, syntheticEvents } from '../helpers/store';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'cua-faults-lib-'));
const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) {
    c.kill('SIGKILL');
  }
  fs.rmSync(root, { recursive: true, force: true });
});

function newLibrary(name: string): Library {
  return openLibrary(path.join(root, name));
}

function ctxFor(lib: Library): ServiceContext {
  return createServices(lib, { appVersion: '0.0.0-test', log: () => undefined }).context;
}

/** A live process standing in for a recorder (its pid is what the row names). */
function liveProcess(): ChildProcess {
  const child = spawn('sleep', ['600'], { stdio: 'ignore' });
  children.push(child);
  return child;
}

/** Starts a real import in a child process that stops dead at `moment` (prints `at <moment>`). */
async function importStoppedAt(
  libDir: string,
  moment: 'copying' | 'committing',
): Promise<ChildProcess> {
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      path.join(REPO_ROOT, 'tests/fixtures/bin/import-until.ts'),
      libDir,
      FIXTURE_DIR,
      moment,
    ],
    { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  children.push(child);
  await new Promise<void>((resolve, reject) => {
    let seen = '';
    child.stdout.on('data', (d: Buffer) => {
      seen += d.toString();
      if (seen.includes(`at ${moment}`)) {
        resolve();
      }
    });
    child.on('exit', (code) => reject(new Error(`import child exited (${code}) before ${moment}`)));
  });
  return child;
}

async function kill9(child: ChildProcess): Promise<void> {
  const gone = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await gone;
}

function setTreeMtime(dir: string, when: Date): void {
  for (const e of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    fs.utimesSync(path.join(e.parentPath, e.name), when, when);
  }
  fs.utimesSync(dir, when, when);
}

describe('issue 10: library lifecycle', { timeout: 90_000 }, () => {
  it("item 4: a recording that is still recording cannot be deleted (CLI and API); a dead recorder's is recovered first", async () => {
    const lib = newLibrary('active');
    const recorder = liveProcess();
    const { id } = makeRecording(lib.db, {
      status: 'active',
      capture: { pid: recorder.pid, segments: [] },
    });
    const folder = path.join(lib.dir, 'recordings', id);
    fs.mkdirSync(folder, { recursive: true });
    fs.writeFileSync(path.join(folder, 'events.part'), 'being written');
    lib.close();

    const cli = await runCli(['delete', id, '--library', path.join(root, 'active')]);
    expect(cli.code).toBe(2);
    expect(cli.stderr).toContain('[RECORDING_ACTIVE]');
    expect(cli.stderr).toMatch(/fix: Stop the recording first/);
    expect(fs.existsSync(path.join(folder, 'events.part'))).toBe(true);

    const again = openLibrary(path.join(root, 'active'));
    try {
      const api = await dispatch(ctxFor(again), 'recordings:delete', { id });
      expect(api).toMatchObject({ ok: false, error: { code: 'RECORDING_ACTIVE' } });
      expect(listLibrary(again).map((r) => r.id)).toContain(id);

      // the recorder dies: its recording is recovered (no longer `active`), then deleted
      await kill9(recorder);
      const done = await dispatch(ctxFor(again), 'recordings:delete', { id });
      expect(done).toMatchObject({ ok: true, value: { id } });
      expect(listLibrary(again)).toEqual([]);
      expect(fs.existsSync(folder)).toBe(false);
    } finally {
      again.close();
    }
  });

  it('item 12: leftovers of imports killed while copying and before committing are cleaned up on start-up; a live import is left alone', async () => {
    const libDir = path.join(root, 'orphans');
    newLibrary('orphans').close();
    const recordings = path.join(libDir, 'recordings');

    await kill9(await importStoppedAt(libDir, 'copying'));
    const [deadStaging] = fs.readdirSync(recordings).filter((n) => n.startsWith('.staging-'));
    expect(deadStaging).toBeDefined();

    await kill9(await importStoppedAt(libDir, 'committing'));
    const orphan = fs.readdirSync(recordings).find((n) => !n.startsWith('.'));
    expect(orphan).toBeDefined();

    const live = await importStoppedAt(libDir, 'copying');
    const liveStaging = fs
      .readdirSync(recordings)
      .find((n) => n.startsWith('.staging-') && n !== deadStaging);
    expect(liveStaging).toBeDefined();

    // any command opening the library cleans up: the dead import's staging goes, the running
    // import's stays, the folder without a row stays while it may still be committing
    const list = await runCli(['list', '--json', '--library', libDir]);
    expect(list.code, list.stderr).toBe(0);
    expect(JSON.parse(list.stdout)).toEqual([]);
    expect(list.stderr).toContain('removed 1 staging folder(s) of interrupted imports');
    expect(fs.readdirSync(recordings).sort()).toEqual([liveStaging, orphan].sort());

    // once the orphan is older than the grace period, doctor --repair moves it (never deletes
    // it) to recordings/.orphans and says so
    setTreeMtime(path.join(recordings, orphan!), new Date(Date.now() - 2 * 3600_000));
    const doctor = await runCli(['doctor', '--repair', '--json', '--library', libDir]);
    const report = JSON.parse(doctor.stdout) as {
      repair: { items: { path: string; action: string; kind: string }[]; lines: string[] };
      checks: { id: string; ok: boolean }[];
    };
    expect(report.repair.items).toContainEqual(
      expect.objectContaining({
        path: `recordings/${orphan}`,
        kind: 'orphan-folder',
        action: 'quarantined',
      }),
    );
    expect(report.repair.items).toContainEqual(
      expect.objectContaining({ path: `recordings/${liveStaging}`, action: 'kept' }),
    );
    expect(report.repair.lines.join('\n')).toMatch(
      /moved 1 recording folder\(s\) with no recording to recordings\/\.orphans/,
    );
    expect(fs.readdirSync(recordings).sort()).toEqual(['.orphans', liveStaging].sort());
    expect(fs.readdirSync(path.join(recordings, '.orphans'))).toEqual([orphan]);

    // the running import dies too: its staging folder goes on the next clean-up
    await kill9(live);
    const lib = openLibrary(libDir);
    try {
      const again = cleanupLibrary(lib);
      expect(again.items).toEqual([
        expect.objectContaining({ path: `recordings/${liveStaging}`, action: 'removed' }),
      ]);
    } finally {
      lib.close();
    }
    expect(fs.readdirSync(recordings)).toEqual(['.orphans']);
  });

  it('item 12: a complete recording folder whose row is missing (an older library.sqlite restored) is moved to recordings/.orphans, never deleted', async () => {
    const libDir = path.join(root, 'restored');
    newLibrary('restored').close();
    const olderDb = path.join(root, 'restored-older.sqlite');
    fs.copyFileSync(path.join(libDir, 'library.sqlite'), olderDb);
    const lib = newLibrary('restored');
    const { id } = await importAgentNetFolder(lib, FIXTURE_DIR, { appVersion: '0.0.0-test' });
    lib.close();
    const folder = path.join(libDir, 'recordings', id);
    const contents = (dir: string) =>
      fs
        .readdirSync(dir, { recursive: true, withFileTypes: true })
        .filter((e) => e.isFile())
        .map((e) => {
          const full = path.join(e.parentPath, e.name);
          const hash = crypto.createHash('sha256').update(fs.readFileSync(full)).digest('hex');
          return `${path.relative(dir, full)} ${hash}`;
        })
        .sort();
    const before = contents(folder);
    expect(before.length).toBeGreaterThan(1);

    // the user restores an older copy of the database: the recording's row is gone, its folder
    // (for a screen recording the only copy) is not
    for (const suffix of ['-wal', '-shm']) {
      fs.rmSync(path.join(libDir, `library.sqlite${suffix}`), { force: true });
    }
    fs.copyFileSync(olderDb, path.join(libDir, 'library.sqlite'));
    setTreeMtime(folder, new Date(Date.now() - 2 * 3600_000));

    const list = await runCli(['list', '--json', '--library', libDir]);
    expect(list.code, list.stderr).toBe(0);
    expect(JSON.parse(list.stdout)).toEqual([]);
    expect(list.stderr).toContain(
      'library: moved 1 recording folder(s) with no recording to recordings/.orphans (nothing deleted; see cua-annotator doctor)',
    );
    const kept = path.join(libDir, 'recordings', '.orphans', id);
    expect(fs.existsSync(folder)).toBe(false);
    expect(contents(kept)).toEqual(before);

    // doctor warns about the quarantine (with its size and what to do); --repair keeps it
    const doctor = await runCli(['doctor', '--repair', '--json', '--library', libDir]);
    const report = JSON.parse(doctor.stdout) as {
      checks: { id: string; ok: boolean; summary: string; fix?: string }[];
    };
    const check = report.checks.find((c) => c.id === 'orphans');
    expect(check).toMatchObject({ ok: false });
    expect(check?.summary).toContain('recordings/.orphans');
    expect(check?.summary).toMatch(/1 recording folder\(s\) .*\d+(\.\d)? (B|KiB|MiB)/);
    expect(check?.fix).toMatch(/inspect/i);
    expect(contents(kept)).toEqual(before);
  });

  it('item 12: a delete killed between moving the folder aside and committing puts the folder back', async () => {
    const lib = newLibrary('half-delete');
    const { id } = makeRecording(lib.db);
    lib.close();
    const home = path.join(root, 'half-delete', 'recordings', id);
    fs.mkdirSync(home, { recursive: true });
    fs.writeFileSync(path.join(home, 'video.mp4'), 'frames');
    // the state a delete killed at that moment leaves: folder in .trash, row still there
    const dead = spawnSync('true').pid;
    const trash = path.join(root, 'half-delete', '.trash', `${id}--${dead}-${Date.now()}`);
    fs.mkdirSync(path.dirname(trash), { recursive: true });
    fs.renameSync(home, trash);

    const show = await runCli(['show', id, '--json', '--library', path.join(root, 'half-delete')]);
    expect(show.code, show.stderr).toBe(0);
    expect(fs.readFileSync(path.join(home, 'video.mp4'), 'utf8')).toBe('frames');
    expect(fs.existsSync(trash)).toBe(false);
  });

  it('item 12: the clean-up judges by owner pid, then by age; a dry run changes nothing', () => {
    const lib = newLibrary('rules');
    try {
      const rec = path.join(lib.dir, 'recordings');
      const old = new Date(Date.now() - 2 * 3600_000);
      const ancient = new Date(Date.now() - 48 * 3600_000);
      const make = (rel: string, when?: Date) => {
        const dir = path.join(lib.dir, rel);
        fs.mkdirSync(dir, { recursive: true });
        fs.writeFileSync(path.join(dir, 'f'), 'x');
        if (when) {
          setTreeMtime(dir, when);
        }
        return rel;
      };
      const alive = process.ppid; // a live process that is not this one
      const uuid = () => crypto.randomUUID();
      const digitsFirst = (u: string) => `37589663${u.slice(8)}`;
      const kept = [
        make(`recordings/.staging-${uuid()}`), // no pid, young: may be a running import
        // a UUID whose first group is all digits (1 in 43) is not a dead pid's staging folder
        make(`recordings/.staging-${digitsFirst(uuid())}`),
        make(`recordings/.staging-${alive}-${uuid()}`, old), // live owner
        make(`recordings/${uuid()}`), // no row, young
        make('recordings/not-a-recording', old), // nothing of ours
      ];
      const removed = [
        make(`recordings/.staging-${uuid()}`, old),
        make(`recordings/.pull-${uuid()}-ab12`, old),
        make(`recordings/.staging-${alive}-${uuid()}`, ancient), // pid reused long since
        make(`.trash/${uuid()}--${alive + 1_000_000}-1`), // delete committed, files left
      ];
      // no row, old: moved aside, never deleted
      const quarantined = make(`recordings/${uuid()}`, old);
      // a delete on a full disk that freed the files but not the row: finished here
      const { id } = makeRecording(lib.db);
      fs.mkdirSync(path.join(lib.dir, '.trash', `${id}--${alive + 1_000_000}-2`), {
        recursive: true,
      });

      const before = fs.readdirSync(rec).length;
      const dry = cleanupLibrary(lib, { dryRun: true });
      expect(fs.readdirSync(rec)).toHaveLength(before);
      expect(listLibrary(lib)).toHaveLength(1);

      const done = cleanupLibrary(lib);
      expect(done.items.map(({ path: p, action }) => ({ p, action }))).toEqual(
        dry.items.map(({ path: p, action }) => ({ p, action })),
      );
      for (const rel of kept) {
        expect(fs.existsSync(path.join(lib.dir, rel)), rel).toBe(true);
      }
      for (const rel of removed) {
        expect(fs.existsSync(path.join(lib.dir, rel)), rel).toBe(false);
      }
      expect(fs.existsSync(path.join(lib.dir, quarantined))).toBe(false);
      const moved = path.join(rec, '.orphans', path.basename(quarantined));
      expect(fs.readFileSync(path.join(moved, 'f'), 'utf8')).toBe('x');
      expect(done.items).toContainEqual(
        expect.objectContaining({ path: quarantined, action: 'quarantined', bytes: 1 }),
      );
      expect(listLibrary(lib)).toEqual([]);
      expect(fs.readdirSync(path.join(lib.dir, '.trash'))).toEqual([]);
      expect(done.errors).toEqual([]);
    } finally {
      lib.close();
    }
  });

  it('item 13: step counts in list, list --json and the library page follow delete, merge and undo', async () => {
    const lib = newLibrary('counts');
    try {
      const { seq, id } = makeRecording(lib.db);
      insertEvents(lib.db, seq, syntheticEvents(400));
      const steps = reduceRecording(lib, id).steps;
      const n = steps.length;
      expect(n).toBeGreaterThan(4);
      const counts = () => ({
        list: listLibrary(lib)[0]!.stepCount,
        page: queryRecordingPage(lib.db, {}).items[0]!.stepCount,
      });
      expect(counts()).toEqual({ list: n, page: n });

      applyEdit(lib, id, { op: 'delete', stepId: steps[0]!.id });
      expect(counts()).toEqual({ list: n - 1, page: n - 1 });
      applyEdit(lib, id, { op: 'merge', stepIds: [steps[1]!.id, steps[2]!.id] });
      expect(counts()).toEqual({ list: n - 2, page: n - 2 });
      undoLastEdit(lib, id);
      expect(counts()).toEqual({ list: n - 1, page: n - 1 });
      // sorting by steps uses the same count
      expect(queryRecordingPage(lib.db, { sort: 'steps' }).items[0]!.stepCount).toBe(n - 1);
      // a library whose counts went stale before this fix: doctor finds it, --repair stores it
      lib.db.prepare('UPDATE recordings SET step_count = ?').run(n);
      expect(staleStepCounts(lib)).toEqual([{ id, stored: n, shown: n - 1 }]);
      staleStepCounts(lib, { fix: true });
      expect(counts()).toEqual({ list: n - 1, page: n - 1 });
      expect(staleStepCounts(lib)).toEqual([]);
    } finally {
      lib.close();
    }
    const cli = await runCli(['list', '--json', '--library', path.join(root, 'counts')]);
    const shown = await runCli([
      'show',
      (JSON.parse(cli.stdout) as { id: string }[])[0]!.id,
      '--json',
      '--library',
      path.join(root, 'counts'),
    ]);
    expect(JSON.parse(cli.stdout)[0].stepCount).toBe(JSON.parse(shown.stdout).steps.length);
  });
});

const isRoot = process.getuid?.() === 0;

describe.skipIf(!isRoot)(
  'issue 10 item 19: delete on a 100 % full disk',
  { timeout: 90_000 },
  () => {
    const mounts: string[] = [];
    afterAll(() => {
      for (const m of mounts) {
        spawnSync('umount', ['-l', m]);
      }
    });

    /** A small tmpfs holding a library with the example recording imported. */
    async function fullDiskLibrary(
      name: string,
    ): Promise<{ dir: string; id: string; lib: Library }> {
      const mount = path.join(root, name);
      fs.mkdirSync(mount);
      const r = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=24m', 'tmpfs', mount]);
      expect(r.status, r.stderr.toString()).toBe(0);
      mounts.push(mount);
      const dir = path.join(mount, 'lib');
      const lib = newLibrary(path.join(name, 'lib'));
      const { id } = await importAgentNetFolder(lib, FIXTURE_DIR, { appVersion: '0.0.0-test' });
      return { dir, id, lib };
    }

    function fillDisk(dir: string): void {
      const fd = fs.openSync(path.join(dir, '..', 'filler'), 'w');
      const chunk = Buffer.alloc(64 * 1024, 1);
      try {
        for (;;) {
          fs.writeSync(fd, chunk);
        }
      } catch (e) {
        expect((e as NodeJS.ErrnoException).code).toBe('ENOSPC');
      } finally {
        fs.closeSync(fd);
      }
      // the last partial page too
      try {
        fs.appendFileSync(path.join(dir, '..', 'filler'), Buffer.alloc(1));
      } catch {
        // already full
      }
      expect(fs.statfsSync(dir).bavail).toBe(0);
    }

    it('item 19: `delete` frees space on a full disk through the CLI (the space reserve lets it open)', async () => {
      const { dir, id, lib } = await fullDiskLibrary('full-cli');
      lib.close();
      // what every command does on open: keep the reserve (here made by a first `list`)
      expect((await runCli(['list', '--library', dir])).code).toBe(0);
      fillDisk(dir);
      const del = await runCli(['delete', id, '--library', dir]);
      expect(del.stderr).not.toContain('INTERNAL');
      expect(del.code, del.stderr).toBe(0);
      expect(del.stdout).toContain(`deleted ${id}`);
      expect(fs.statfsSync(dir).bavail).toBeGreaterThan(0);
      const list = await runCli(['list', '--json', '--library', dir]);
      expect(JSON.parse(list.stdout)).toEqual([]);
    });

    it('item 19: a delete that cannot write the database first frees the files, then records the delete', async () => {
      const { dir, id, lib } = await fullDiskLibrary('full-service');
      try {
        fs.rmSync(path.join(dir, '.space-reserve'), { force: true });
        lib.db.pragma('wal_checkpoint(TRUNCATE)'); // the delete needs new WAL pages
        fillDisk(dir);
        await expect(deleteRecording(lib, id)).resolves.toEqual({ id });
        expect(listLibrary(lib)).toEqual([]);
        expect(fs.existsSync(path.join(dir, 'recordings', id))).toBe(false);
        expect(fs.readdirSync(path.join(dir, '.trash'))).toEqual([]);
      } finally {
        lib.close();
      }
    });
  },
);
