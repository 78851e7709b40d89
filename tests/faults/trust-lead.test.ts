// Fault suite of issue 26 (trust, round 2), the lead's items: 18 (disk full while computing
// keyframes: README row 46), 23 (small but seen: README row 51), 24 (the README's main command
// run twice: README row 52).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createServices } from '../../src/services/create-services';
import { dispatch } from '../../src/services/dispatch';
import { openLibrary } from '../../src/services/library/library';
import { statusForResult } from '../../src/server/status';
import { applyEdit } from '../../src/services/edits/edit-service';
import { refreshStaleKeyframes } from '../../src/services/keyframes/keyframes';
import { getRecording, listKeyframes } from '../../src/store';
import { exampleLibrary } from '../helpers/example-library';
import { runCli } from '../helpers/cli';
import { FIXTURE_DIR } from '../helpers/paths';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'cua-faults-trust-lead-'));
const mounts: string[] = [];
afterAll(() => {
  for (const m of mounts) {
    spawnSync('umount', ['-l', m]);
  }
  fs.rmSync(root, { recursive: true, force: true });
});

// A tmpfs of `size` (the tests run as root); throws when mounting is refused, so the test fails
// loudly instead of passing on a disk that is not full.
function tmpfs(name: string, size: string): string {
  const dir = path.join(root, name);
  fs.mkdirSync(dir, { recursive: true });
  const r = spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir]);
  if (r.status !== 0) {
    throw new Error(`mount tmpfs failed: ${r.stderr.toString()}`);
  }
  mounts.push(dir);
  return dir;
}

describe('issue 26, item 18: a full disk while computing keyframes', () => {
  // The example's import needs ~12 MB (video, raw files, database, the 4 MiB space reserve); its
  // keyframes another ~6 MB: on a 14 MiB disk the import lands and the keyframes cannot.
  it('item 46: import prints DISK_FULL with a fix (not INTERNAL), keeps the import and exits 2; the API answers 507 and the page data carries the failure', async () => {
    const disk = tmpfs('full', '14m');
    const lib = path.join(disk, 'lib');
    const r = await runCli(['import', FIXTURE_DIR, '--library', lib]);
    expect(r.stdout).toMatch(/^imported [0-9a-f-]{36}: /m);
    expect(r.stderr).not.toContain('INTERNAL');
    expect(r.stderr).toMatch(/keyframes failed: \[DISK_FULL\] .*is full/);
    expect(r.stderr).toMatch(/fix: Free disk space/);
    expect(r.code).toBe(2);
    const id = /^imported ([0-9a-f-]{36}):/m.exec(r.stdout)![1]!;

    // the review page's "Compute keyframes" and its page data, through the services
    const library = openLibrary(lib, { create: false });
    const services = createServices(library, {
      appVersion: '0.0.0-test',
      mediaUrl: () => '',
      log: () => undefined,
    });
    try {
      const computed = await dispatch(services.context, 'keyframes:compute', { id });
      expect(computed.ok).toBe(false);
      const error = (computed as { error: { code: string; message: string; fix?: string } }).error;
      expect(error.code).toBe('DISK_FULL');
      expect(error.message).toContain(lib);
      expect(error.fix).toMatch(/Free disk space/);
      expect(statusForResult(computed)).toBe(507);
      const page = await dispatch(services.context, 'recordings:get', { id });
      expect(page.ok).toBe(true);
      const dto = (page as { value: { keyframesError?: { code: string; fix: string | null } } })
        .value;
      expect(dto.keyframesError?.code).toBe('DISK_FULL');
      expect(dto.keyframesError?.fix).toMatch(/Free disk space/);
    } finally {
      await services.close();
      library.close();
    }
  }, 120_000);
});

describe('issue 26, item 23: small but seen', () => {
  it('item 51: list shows when the recording itself was made (RECORDED) beside when it was added', async () => {
    const ex = await exampleLibrary();
    ex.lib.close();
    try {
      const human = await runCli(['list', '--library', ex.dir]);
      expect(human.code, human.stderr).toBe(0);
      const [head, row] = human.stdout.split('\n');
      expect(head).toMatch(/ RECORDED +ADDED +LENGTH/);
      // the example's metadata.json start_time, then the import's own time (today, UTC)
      const today = new Date().toISOString().slice(0, 10);
      expect(row).toMatch(new RegExp(` 2024-11-05 18:56 +${today} \\d\\d:\\d\\d `));
      const json = await runCli(['list', '--json', '--library', ex.dir]);
      const [item] = JSON.parse(json.stdout) as {
        recordedAt: string | null;
        createdAtMs: number;
      }[];
      expect(item!.recordedAt).toBe('2024-11-05 18:56:31');
      expect(item!.createdAtMs).toBeGreaterThan(Date.parse('2026-01-01'));
    } finally {
      ex.cleanup();
    }
  }, 60_000);

  it('item 51: redacting again and again leaves one keyframe PNG per stored row, not a pile', async () => {
    // the example's 10-second clip: each redaction makes every keyframe stale, and the refresh
    // decodes them all again
    const ex = await exampleLibrary({ clip: true });
    try {
      const rec = getRecording(ex.lib.db, ex.id);
      const folder = path.join(ex.lib.resolve(rec.dir), 'keyframes');
      const pngs = () =>
        fs
          .readdirSync(folder)
          .filter((n) => n.endsWith('.png'))
          .sort();
      const named = () =>
        [...new Set([...listKeyframes(ex.lib.db, rec.seq).values()].map((r) => r.path))]
          .filter((p): p is string => p !== null)
          .map((p) => path.posix.basename(p))
          .sort();
      const before = pngs();
      expect(before).toHaveLength(3); // 2 steps and terminate
      for (const [i, x] of [10, 20, 30].entries()) {
        applyEdit(ex.lib, ex.id, {
          op: 'redact-box',
          stepId: null,
          startMs: 0,
          endMs: 1000 * (i + 1),
          box: { x, y: 10, width: 40, height: 40 },
        });
        await refreshStaleKeyframes(ex.lib, ex.id);
      }
      // every file on disk is one a row names, and there are no more of them than at the start
      expect(pngs()).toEqual(named());
      expect(pngs().length).toBeLessThanOrEqual(before.length);
    } finally {
      ex.cleanup();
    }
  }, 180_000);
});

describe('issue 26, item 24: the README main command, run again', () => {
  it('item 52: import --skip-existing of a folder already in the library succeeds and names the recording', async () => {
    const lib = path.join(root, 'again');
    const args = ['import', FIXTURE_DIR, '--skip-existing', '--no-keyframes', '--library', lib];
    const first = await runCli(args);
    expect(first.code, first.stderr).toBe(0);
    const id = /^imported ([0-9a-f-]{36}):/m.exec(first.stdout)![1]!;
    const second = await runCli(args);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toContain(`skipped ${FIXTURE_DIR}: already in the library as ${id}`);
    const list = await runCli(['list', '--json', '--library', lib]);
    expect((JSON.parse(list.stdout) as unknown[]).length).toBe(1);
    // without the flag it stays an error, and the two flags together are a usage error
    const plain = await runCli(['import', FIXTURE_DIR, '--no-keyframes', '--library', lib]);
    expect(plain.code).toBe(2);
    expect(plain.stderr).toContain('IMPORT_DUPLICATE');
    const both = await runCli([...args, '--allow-duplicate']);
    expect(both.code).toBe(1);
  }, 120_000);
});
