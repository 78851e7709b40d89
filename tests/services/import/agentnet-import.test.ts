import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importAgentNetFolder } from '../../../src/services/import/agentnet-import';
import { showRecording } from '../../../src/services/recordings';
import { isAppError } from '../../../src/shared/errors';
import { copyFixture, type FixtureCopy } from '../../helpers/fixture';
import { librarySnapshot, tempLibrary } from '../../helpers/library';
import { FIXTURE_DIR, FIXTURE_REL } from '../../helpers/paths';

const OPTS = { appVersion: '0.0.0-test' };

describe('AgentNet import of the fixture', () => {
  const t = tempLibrary();
  let id = '';
  beforeAll(async () => {
    id = (await importAgentNetFolder(t.lib, FIXTURE_DIR, OPTS)).id;
  });
  afterAll(() => t.cleanup());

  it('reports the counts, screen, video and exact video offset', () => {
    const v = showRecording(t.lib, id);
    expect(v.eventCounts).toMatchObject({
      total: 4099,
      move: 4034,
      button: 42,
      scroll: 19,
      key: 4,
    });
    expect(v.screen).toMatchObject({ width: 1366, height: 768, scale: 1 });
    expect(v.video).toMatchObject({ width: 1276, height: 718, fps: 30, frameCount: 3678 });
    expect(v.video!.durationMs).toBeCloseTo(122600, 0);
    const meta = JSON.parse(fs.readFileSync(path.join(FIXTURE_DIR, 'metadata.json'), 'utf8'));
    expect(v.video!.startS).toBe(meta.video_start_timestamp);
    expect(v.task).toBe(
      JSON.parse(fs.readFileSync(path.join(FIXTURE_DIR, 'task_name.json'), 'utf8')).task_name,
    );
    expect(v.platform).toMatchObject({ os: 'win32', system: 'Windows', release: '10' });
  });

  it('keeps the 14 surviving steps with their annotator labels and golden codes', () => {
    const v = showRecording(t.lib, id);
    expect(v.steps.map((s) => s.id)).toEqual(
      [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 20, 21, 22].map((n) => `agentnet:${n}`),
    );
    expect(v.steps.map((s) => s.label)).toEqual([
      'Click on Action Centre',
      'click',
      'click',
      'drag',
      'click',
      'scroll',
      'click',
      'click',
      'click on 1366x768',
      'Click on 1680x1050',
      'Click on Keep changes',
      'Click on Power & sleep',
      'click on drop-down list',
      'Click on 5 hours',
    ]);
    expect(v.steps[0]).toMatchObject({
      type: 'click',
      code: 'pyautogui.click(x=0.9722, y=0.9701)',
      startMs: 30680627.0419,
      endMs: 30681046.3558,
    });
    expect(v.steps[1]!.code).toBe('pyautogui.rightClick(x=0.9553, y=0.5117)');
    expect(v.steps[3]).toMatchObject({
      type: 'dragTo',
      description: 'Drag from (621, 206) to (561, 213)',
      code: "pyautogui.moveTo(x=0.4546, y=0.2682)\npyautogui.dragTo(x=0.4107, y=0.2773, button='left')",
    });
    expect(v.steps[5]).toMatchObject({
      type: 'scroll',
      code: 'pyautogui.moveTo(x=0.396, y=0.7839)\npyautogui.scroll(-3)',
    });
    expect(v.steps[13]!.code).toBe('pyautogui.click(x=0.5102, y=0.8854)');
  });

  it('keeps the raw files byte for byte beside the database', () => {
    const v = showRecording(t.lib, id);
    for (const name of fs.readdirSync(FIXTURE_DIR)) {
      const copy = t.lib.resolve(`${v.dir}/raw/${name}`);
      expect(
        fs.readFileSync(copy).equals(fs.readFileSync(path.join(FIXTURE_DIR, name))),
        name,
      ).toBe(true);
    }
    expect(v.videos[0]!.sha256).toBe(
      '97e440bd4550d63dcef1bfe4d9aaeb466693cd9b9295d21ddfe7fc441c289e88',
    );
  });
});

type Defect = {
  name: string;
  mutate: (dir: string) => void;
  code: string;
  message: string | RegExp;
};

function editLines(file: string, fn: (lines: string[]) => string[]): void {
  const text = fs.readFileSync(file, 'utf8');
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  fs.writeFileSync(file, fn(text.split(eol)).join(eol));
}

const DEFECTS: Defect[] = [
  {
    name: 'truncated line',
    mutate: (d) =>
      editLines(path.join(d, 'events.jsonl'), (l) =>
        l.map((x, i) => (i === 9 ? x.slice(0, 30) : x)),
      ),
    code: 'IMPORT_INVALID',
    message: 'events.jsonl:10: truncated JSON (ends before the object is closed)',
  },
  {
    name: 'non-JSON line',
    mutate: (d) =>
      editLines(path.join(d, 'events.jsonl'), (l) =>
        l.map((x, i) => (i === 4 ? 'hello world' : x)),
      ),
    code: 'IMPORT_INVALID',
    message: 'events.jsonl:5: not valid JSON: "hello world"',
  },
  {
    name: 'missing field',
    mutate: (d) =>
      editLines(path.join(d, 'events.jsonl'), (l) =>
        l.map((x, i) => (i === 2 ? x.replace(/"time_stamp": [0-9.]+, /, '') : x)),
      ),
    code: 'IMPORT_INVALID',
    message: 'events.jsonl:3: missing field "time_stamp"',
  },
  {
    name: 'NaN coordinate',
    mutate: (d) =>
      editLines(path.join(d, 'events.jsonl'), (l) =>
        l.map((x, i) => (i === 6 ? x.replace(/"x": -?\d+/, '"x": NaN') : x)),
      ),
    code: 'IMPORT_INVALID',
    message: 'events.jsonl:7: field "x" is NaN (not valid JSON)',
  },
  {
    name: 'out-of-screen coordinate',
    mutate: (d) =>
      editLines(path.join(d, 'events.jsonl'), (l) =>
        l.map((x, i) => (i === 6 ? x.replace(/"x": -?\d+/, '"x": 99999') : x)),
      ),
    code: 'IMPORT_INVALID',
    message: 'events.jsonl:7: field "x" is 99999, outside the virtual screen range -32768..32767',
  },
  {
    name: 'missing video',
    mutate: (d) => fs.rmSync(path.join(d, '2024-11-05 18-56-31.mp4')),
    code: 'IMPORT_INVALID',
    message: '*.mp4: no video: expected exactly one top-level .mp4 file',
  },
  {
    name: 'unreadable video (garbage after a valid header)',
    mutate: (d) => {
      const f = path.join(d, '2024-11-05 18-56-31.mp4');
      const head = fs.readFileSync(f).subarray(0, 64);
      fs.writeFileSync(f, Buffer.concat([head, Buffer.alloc(4096, 7)]));
    },
    code: 'IMPORT_INVALID',
    message: /^2024-11-05 18-56-31\.mp4: unreadable video/,
  },
  {
    name: 'two videos',
    mutate: (d) =>
      fs.copyFileSync(path.join(d, '2024-11-05 18-56-31.mp4'), path.join(d, 'video.mp4')),
    code: 'IMPORT_INVALID',
    message:
      '*.mp4: 2 top-level .mp4 files (2024-11-05 18-56-31.mp4, video.mp4); expected exactly one',
  },
  {
    name: 'vis/complete line counts differ',
    mutate: (d) =>
      editLines(path.join(d, 'reduced_events_vis.jsonl'), (l) => [
        ...l.slice(0, 12),
        ...l.slice(13),
      ]),
    code: 'IMPORT_INVALID',
    message: 'reduced_events_vis.jsonl: 14 lines in complete vs 13 in vis',
  },
];

describe('AgentNet import of corrupted copies', () => {
  const t = tempLibrary();
  let baseline: ReturnType<typeof librarySnapshot>;
  beforeAll(async () => {
    // a library that already holds one recording: a failed import must not touch it either
    await importAgentNetFolder(t.lib, FIXTURE_DIR, OPTS);
    baseline = librarySnapshot(t.lib);
  });
  afterAll(() => t.cleanup());

  it.each(DEFECTS)('$name → exact error, library unchanged', async ({ mutate, code, message }) => {
    const copy: FixtureCopy = await copyFixture(FIXTURE_REL);
    try {
      mutate(copy.dir);
      let caught: unknown;
      try {
        await importAgentNetFolder(t.lib, copy.dir, OPTS);
      } catch (e) {
        caught = e;
      }
      expect(isAppError(caught), String(caught)).toBe(true);
      expect((caught as { code: string }).code).toBe(code);
      if (typeof message === 'string') {
        expect((caught as Error).message).toBe(message);
      } else {
        expect((caught as Error).message).toMatch(message);
      }
      expect(librarySnapshot(t.lib)).toEqual(baseline);
    } finally {
      await copy.cleanup();
    }
  });

  it('a failure inside the transaction removes the copied files and every row', async () => {
    await expect(
      importAgentNetFolder(t.lib, FIXTURE_DIR, {
        ...OPTS,
        // the fixture is already in this library
        allowDuplicate: true,
        beforeCommit: () => {
          throw new Error('disk full (simulated)');
        },
      }),
    ).rejects.toThrow('disk full (simulated)');
    expect(librarySnapshot(t.lib)).toEqual(baseline);
  });
});
