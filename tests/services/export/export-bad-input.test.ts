// Bad input never yields a half-written export: zero events (no steps), a video shorter than the
// steps, a step outside the video.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { exportRecordings } from '../../../src/services/export/export-service';
import { importAgentNetFolder } from '../../../src/services/import/agentnet-import';
import { reduceRecording } from '../../../src/services/reduce-service';
import { isAppError } from '../../../src/shared/errors';
import { copyFixture } from '../../helpers/fixture';
import { tempLibrary } from '../../helpers/library';
import { FIXTURE_DIR, FIXTURE_REL } from '../../helpers/paths';

const OPTS = { appVersion: '0.0.0-test' };
const out = fs.mkdtempSync(path.join(os.tmpdir(), 'cua-export-bad-'));
afterAll(() => fs.rmSync(out, { recursive: true, force: true }));

async function rejection(p: Promise<unknown>): Promise<Error & { code?: string }> {
  try {
    await p;
  } catch (e) {
    return e as Error & { code?: string };
  }
  throw new Error('expected a rejection');
}

describe('export refuses bad input and writes nothing', () => {
  it('zero events → zero steps after reduction → EXPORT_INVALID saying to reduce', async () => {
    const t = tempLibrary();
    const copy = await copyFixture(FIXTURE_REL);
    try {
      fs.writeFileSync(path.join(copy.dir, 'events.jsonl'), '');
      const { id } = await importAgentNetFolder(t.lib, copy.dir, OPTS);
      expect(reduceRecording(t.lib, id, { replaceImported: true }).steps).toEqual([]);
      const dir = path.join(out, 'zero');
      const e = await rejection(
        exportRecordings(t.lib, [id], { ...OPTS, format: 'agentnet-raw', outDir: dir }),
      );
      expect(isAppError(e, 'EXPORT_INVALID')).toBe(true);
      expect(e.message).toMatch(/has no steps/);
      // damage is found before the output folder is created
      expect(fs.existsSync(dir) ? fs.readdirSync(dir) : []).toEqual([]);
    } finally {
      await copy.cleanup();
      t.cleanup();
    }
  });

  it('a video shorter than the steps → a warning and a clear error for the step outside it, nothing written', async () => {
    const t = tempLibrary();
    try {
      const { id } = await importAgentNetFolder(t.lib, FIXTURE_DIR, OPTS);
      // pretend the video ends after 50 s (frame 1500): steps 11–13 (t > 100 s) lie outside it
      t.lib.db.prepare('UPDATE videos SET frame_count = 1500').run();
      const dir = path.join(out, 'short');
      const e = await rejection(
        exportRecordings(t.lib, [id], { ...OPTS, format: 'standardized', outDir: dir }),
      );
      expect(isAppError(e, 'EXPORT_INVALID')).toBe(true);
      expect(e.message).toMatch(/no frame could be read for image \d+ \(outside the video\?\)/);
      // damage is found before the output folder is created
      expect(fs.existsSync(dir) ? fs.readdirSync(dir) : []).toEqual([]);
    } finally {
      t.cleanup();
    }
  }, 120_000);
});
