import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importAgentNetFolder } from '../../../src/services/import/agentnet-import';
import { applyEdit } from '../../../src/services/edits/edit-service';
import { exportRecordings } from '../../../src/services/export/export-service';
import { reduceRecording } from '../../../src/services/reduce-service';
import { decodePng } from '../../../src/pipeline/media/png';
import type { AgentNetRowFields } from '../../../src/pipeline/reduce';
import type { RawEvent, Step } from '../../../src/shared/domain';
import { isAppError } from '../../../src/shared/errors';
import { insertEvents, insertVideo, listSteps } from '../../../src/store';
import { exampleLibrary } from '../../helpers/example-library';
import { tempLibrary } from '../../helpers/library';
import { FIXTURE_DIR } from '../../helpers/paths';
import { makeRecording } from '../../helpers/store';
import { readJsonl } from '../../helpers/jsonl';
import { EventScript } from '../../pipeline/reduce/event-script';

const OPTS = { appVersion: '0.0.0-test' };
const t = await exampleLibrary();
const outRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'cua-export-'));
let id = '';
beforeAll(() => {
  id = t.id;
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
    // into another library: the same video in this one is a duplicate
    const t2 = tempLibrary();
    const id2 = (await importAgentNetFolder(t2.lib, folderA, OPTS)).id;
    await exportRecordings(t2.lib, [id2], { ...OPTS, format: 'agentnet-raw', outDir: b });
    t2.cleanup();
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
      // damage is found before the output folder is created
      expect(fs.existsSync(out) ? fs.readdirSync(out) : []).toEqual([]);
    } finally {
      lib2.cleanup();
    }
  });
});

// Our own recording on Linux: key events carry our normalised names and no pynput text.
function recordedEvents(): RawEvent[] {
  const s = new EventScript(2_000);
  // the recorder's own hotkey is left out of events.jsonl: later rows are numbered idx − 2
  s.keyDown('f9', { isControl: true }).keyUp('f9', { isControl: true });
  // a pre-move around a lone shift tap (owned by no step), then a drag
  s.moveTo(100, 100, 4).tap('shift').moveTo(120, 110, 3).down().moveTo(300, 200, 6).up();
  // "Hi": shift held for the H only
  s.wait(500).keyDown('shift').tap('h', 50, { char: 'H' }).keyUp('shift').wait(100).tap('i');
  // a chord pressed shift first
  s.wait(500).keyDown('shift').keyDown('ctrl').tap('t', 50, { char: null });
  s.keyUp('ctrl').keyUp('shift');
  // a double click
  s.wait(500).moveTo(400, 300, 3).click().wait(100).click();
  return s.events.map((e) => ({ ...e, keyRaw: null }));
}

// The complete-row fields the reducer computed for a step, its pre-move in row form.
function reducerRowFields(step: Step): Record<string, unknown> {
  const { pre_move: preMove, ...fields } = step.extra.agentnet as AgentNetRowFields;
  if (!preMove) {
    return fields;
  }
  return {
    ...fields,
    pre_move: {
      action: 'move',
      ...preMove,
      event_start_idx: preMove.event_start_idx - 2,
      complete: true,
      vis: false,
      exception: false,
      depth: 0,
    },
  };
}

function pick(row: Record<string, unknown>, keys: string[]): Record<string, unknown> {
  return Object.fromEntries(keys.map((k) => [k, row[k]]));
}

describe('agentnet-raw export of a recorded recording', () => {
  const r = tempLibrary();
  let recId = '';
  let steps: Step[] = [];
  beforeAll(() => {
    const rec = makeRecording(r.lib.db);
    recId = rec.id;
    insertEvents(r.lib.db, rec.seq, recordedEvents());
    const videoPath = `recordings/${rec.id}/screen.mp4`;
    fs.mkdirSync(path.dirname(r.lib.resolve(videoPath)), { recursive: true });
    fs.writeFileSync(r.lib.resolve(videoPath), '');
    insertVideo(r.lib.db, rec.seq, 0, {
      path: videoPath,
      width: 1280,
      height: 800,
      fps: 30,
      frameCount: 300,
      durationMs: 10_000,
      startMs: 0,
      startMethod: 'test',
      codec: null,
      sizeBytes: 0,
      sha256: null,
    });
    reduceRecording(r.lib, rec.id);
    steps = listSteps(r.lib.db, rec.seq);
  });
  afterAll(() => r.cleanup());

  async function exportRows(name: string): Promise<Record<string, unknown>[][]> {
    const out = path.join(outRoot, name);
    const [done] = await exportRecordings(r.lib, [recId], {
      ...OPTS,
      format: 'agentnet-raw',
      outDir: out,
    });
    const folder = path.join(out, done!.episodeId);
    return ['reduced_events_complete.jsonl', 'reduced_events_vis.jsonl'].map((f) =>
      readJsonl(path.join(folder, f)),
    );
  }

  it("writes the reducer's row fields of unedited steps", async () => {
    expect(steps.map((s) => s.kind)).toEqual(['dragTo', 'write', 'hotkey', 'doubleClick']);
    const [complete] = await exportRows('recorded');
    const expected = steps.map(reducerRowFields);
    expect(complete!.map((row, i) => pick(row, Object.keys(expected[i]!)))).toEqual(expected);
  });

  it('rebuilds edited actions; relabelled steps keep the reducer fields', async () => {
    applyEdit(r.lib, recId, { op: 'relabel', stepId: steps[1]!.id, label: 'Greet' });
    applyEdit(r.lib, recId, {
      op: 'set-action',
      stepId: steps[0]!.id,
      calls: [{ name: 'click', args: { x: { float: 0.09375 }, y: { float: 0.1375 } } }],
    });
    const [complete, vis] = await exportRows('recorded-edited');
    expect(pick(complete![0]!, ['action', 'description', 'coordinate'])).toEqual({
      action: 'click',
      description: 'Single left Click',
      coordinate: { x: 120, y: 110 },
    });
    expect(complete![0]).not.toHaveProperty('drag_trace');
    const expected = reducerRowFields(steps[1]!);
    expect(pick(complete![1]!, Object.keys(expected))).toEqual(expected);
    expect(vis![1]!.action).toBe('Greet');
  });
});
