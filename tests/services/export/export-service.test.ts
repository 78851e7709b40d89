import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importAgentNetFolder } from '../../../src/services/import/agentnet-import';
import { exportRecordings } from '../../../src/services/export/export-service';
import { decodePng } from '../../../src/pipeline/media/png';
import { isAppError } from '../../../src/shared/errors';
import { tempLibrary } from '../../helpers/library';
import { FIXTURE_DIR } from '../../helpers/paths';

const OPTS = { appVersion: '0.0.0-test' };
const t = tempLibrary();
const outRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'cua-export-'));
let id = '';
beforeAll(async () => {
  id = (await importAgentNetFolder(t.lib, FIXTURE_DIR, OPTS)).id;
});
afterAll(() => {
  t.cleanup();
  fs.rmSync(outRoot, { recursive: true, force: true });
});

function listTree(dir: string): string[] {
  return fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => path.relative(dir, path.join(e.parentPath, e.name)))
    .sort();
}

describe('export', () => {
  it('agentnet-raw round trip: import → export → import → export gives identical files', async () => {
    const a = path.join(outRoot, 'a');
    const b = path.join(outRoot, 'b');
    await exportRecordings(t.lib, [id], { ...OPTS, format: 'agentnet-raw', outDir: a });
    const folderA = path.join(a, 'win10-display-settings');
    const files = fs.readdirSync(folderA).sort();
    expect(files).toEqual([
      '2024-11-05 18-56-31.mp4',
      'a11y.jsonl',
      'element.jsonl',
      'events.jsonl',
      'metadata.json',
      'reduced_events_complete.jsonl',
      'reduced_events_vis.jsonl',
      'task_name.json',
      'top_window.jsonl',
    ]);
    const id2 = (await importAgentNetFolder(t.lib, folderA, OPTS)).id;
    await exportRecordings(t.lib, [id2], { ...OPTS, format: 'agentnet-raw', outDir: b });
    const folderB = path.join(b, 'win10-display-settings');
    for (const f of files) {
      const x = fs.readFileSync(path.join(folderA, f));
      const y = fs.readFileSync(path.join(folderB, f));
      if (f === 'metadata.json') {
        // documented differences: x_recorder.recordingId and x_recorder.exportedAt
        const mx = JSON.parse(x.toString());
        const my = JSON.parse(y.toString());
        expect(my.x_recorder.recordingId).toBe(id2);
        for (const m of [mx, my]) {
          delete m.x_recorder.recordingId;
          delete m.x_recorder.exportedAt;
        }
        expect(my).toEqual(mx);
      } else {
        expect(y.equals(x), f).toBe(true);
      }
    }
    // the raw layer also matches the original fixture's reduced files
    expect(fs.readFileSync(path.join(folderA, 'reduced_events_vis.jsonl'), 'utf8')).toBe(
      fs.readFileSync(path.join(FIXTURE_DIR, 'reduced_events_vis.jsonl'), 'utf8'),
    );
  });

  it('standardized: 15 images at video size, one JSON with the golden codes', async () => {
    const out = path.join(outRoot, 'std');
    const [r] = await exportRecordings(t.lib, [id], {
      ...OPTS,
      format: 'standardized',
      outDir: out,
    });
    expect(r!.warnings).toEqual([]);
    const tree = listTree(out);
    expect(tree.filter((f) => f.startsWith('images/'))).toHaveLength(15);
    const traj = JSON.parse(fs.readFileSync(path.join(out, 'win10-display-settings.json'), 'utf8'));
    expect(traj.content).toHaveLength(32);
    expect(traj.content[3].guiactions[0].args).toEqual({
      x: 0.972181551976574,
      y: 0.9700520833333334,
    });
    const png = decodePng(
      fs.readFileSync(path.join(out, 'images', 'win10-display-settings_14.png')),
    );
    expect([png.width, png.height]).toEqual([1276, 718]);
    // nothing staged is left behind
    expect(fs.readdirSync(out).filter((f) => f.startsWith('.'))).toEqual([]);
  });

  it('refuses to overwrite and leaves the existing output untouched', async () => {
    const out = path.join(outRoot, 'std');
    const before = listTree(out);
    let caught: unknown;
    try {
      await exportRecordings(t.lib, [id], { ...OPTS, format: 'standardized', outDir: out });
    } catch (e) {
      caught = e;
    }
    expect(isAppError(caught, 'EXPORT_TARGET_EXISTS')).toBe(true);
    expect(listTree(out)).toEqual(before);
  });

  it('a recording whose video is missing fails clearly and writes nothing', async () => {
    const lib2 = tempLibrary();
    try {
      const id3 = (await importAgentNetFolder(lib2.lib, FIXTURE_DIR, OPTS)).id;
      const rec = fs
        .readdirSync(path.join(lib2.dir, 'recordings', id3, 'raw'))
        .find((f) => f.endsWith('.mp4'))!;
      fs.rmSync(path.join(lib2.dir, 'recordings', id3, 'raw', rec));
      const out = path.join(outRoot, 'missing');
      await expect(
        exportRecordings(lib2.lib, [id3], { ...OPTS, format: 'agentnet-raw', outDir: out }),
      ).rejects.toThrow(/video .* is missing from the library/);
      expect(fs.readdirSync(out)).toEqual([]);
    } finally {
      lib2.cleanup();
    }
  });
});
