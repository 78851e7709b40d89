// readAgentNetFolder: the shared fixture's facts (spec docs/agentnet-raw-format.md §15), every
// rejection with its exact message, and the tolerated variations of §14.
import { readFile, rm, truncate, writeFile, copyFile, unlink } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { readAgentNetFolder } from '../../../src/pipeline/io/agentnet-read';
import type { AgentNetBundle } from '../../../src/pipeline/io/agentnet-read';
import { AppError } from '../../../src/shared/errors';
import type { ErrorCode } from '../../../src/shared/errors';
import { copyFixture, fixturePath } from '../../helpers/fixture';
import type { FixtureCopy } from '../../helpers/fixture';

const FIXTURE = 'agentnet-raw/win10-display-settings';
const VIDEO = '2024-11-05 18-56-31.mp4';
const JSON_FILES = [
  'events.jsonl',
  'reduced_events_complete.jsonl',
  'reduced_events_vis.jsonl',
  'a11y.jsonl',
  'element.jsonl',
  'top_window.jsonl',
  'metadata.json',
  'task_name.json',
];

let original: AgentNetBundle;
let copy: FixtureCopy | null = null;

beforeAll(async () => {
  original = await readAgentNetFolder(fixturePath(FIXTURE));
});

afterEach(async () => {
  await copy?.cleanup();
  copy = null;
});

async function freshCopy(): Promise<string> {
  copy = await copyFixture(FIXTURE);
  return copy.dir;
}

// Rewrites a file line by line, keeping its line-ending style (index 0 = line 1).
async function editLines(
  dir: string,
  file: string,
  edit: (lines: string[]) => string[],
): Promise<void> {
  const full = path.join(dir, file);
  const text = await readFile(full, 'utf8');
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  await writeFile(full, edit(text.split(eol)).join(eol));
}

async function editJson(
  dir: string,
  file: string,
  edit: (value: Record<string, unknown>) => void,
): Promise<void> {
  const full = path.join(dir, file);
  const value = JSON.parse(await readFile(full, 'utf8'));
  edit(value);
  await writeFile(full, JSON.stringify(value, null, 4));
}

function replaceLine(index: number, from: string | RegExp, to: string) {
  return (lines: string[]): string[] =>
    lines.map((l, i) => {
      if (i !== index) {
        return l;
      }
      const next = l.replace(from, to);
      expect(next).not.toBe(l);
      return next;
    });
}

async function expectRejection(
  dir: string,
  code: ErrorCode,
  message: string,
  details: { file: string; line?: number; problem: string },
): Promise<void> {
  let error: unknown = null;
  try {
    await readAgentNetFolder(dir);
  } catch (e) {
    error = e;
  }
  expect(error).toBeInstanceOf(AppError);
  const appError = error as AppError;
  expect({ code: appError.code, message: appError.message, details: appError.details }).toEqual({
    code,
    message,
    details,
  });
}

async function expectInvalid(dir: string, file: string, line: number | undefined, problem: string) {
  const message = line === undefined ? `${file}: ${problem}` : `${file}:${line}: ${problem}`;
  await expectRejection(
    dir,
    'IMPORT_INVALID',
    message,
    line === undefined ? { file, problem } : { file, line, problem },
  );
}

// The bundle minus what legitimately differs between two copies of the same folder.
function comparable(bundle: AgentNetBundle) {
  const { dir: _dir, files: _files, reduced, ...rest } = bundle;
  return {
    ...rest,
    videoPath: path.basename(bundle.videoPath),
    complete: reduced.complete,
    vis: reduced.vis,
  };
}

describe('readAgentNetFolder on the shared fixture', () => {
  it('reads the events with the fixture counts and exact times', () => {
    const counts: Record<string, number> = {};
    for (const e of original.events) {
      counts[e.kind] = (counts[e.kind] ?? 0) + 1;
    }
    expect(original.events).toHaveLength(4099);
    expect(counts).toEqual({ move: 4034, down: 21, up: 21, wheel: 19, keydown: 3, keyup: 1 });
    expect(original.events.map((e) => e.idx)).toEqual([...Array(4099).keys()]);
    expect(original.events[0]).toEqual({
      idx: 0,
      tMs: 30679828.0302,
      kind: 'move',
      x: 961,
      y: 606,
      button: null,
      keycode: null,
      key: null,
      char: null,
      keyRaw: null,
      modifiers: 0,
      dx: null,
      dy: null,
      flags: 0,
    });
    expect(original.events.at(-1)?.tMs).toBe(30795993.9583);
  });

  it('maps keys, scrolls and multi-monitor coordinates as given', () => {
    const keys = original.events
      .filter((e) => e.kind === 'keydown' || e.kind === 'keyup')
      .map((e) => [e.idx, e.kind, e.key, e.keyRaw, e.char]);
    expect(keys).toEqual([
      [4095, 'keydown', 'ctrl_l', 'Key.ctrl_l', null],
      [4096, 'keydown', 'alt_l', 'Key.alt_l', null],
      [4097, 'keydown', 'T', '<84>', 'T'],
      [4098, 'keyup', 'T', '<84>', 'T'],
    ]);
    const wheel = original.events.filter((e) => e.kind === 'wheel');
    expect(wheel.map((e) => e.idx)).toEqual([
      682, 685, 688, 3160, 3161, 3169, 3170, 3173, 3174, 4082, 4084, 4085, 4086, 4087, 4088, 4089,
      4090, 4093, 4094,
    ]);
    expect(wheel.map((e) => e.dy)).toEqual([...Array(15).fill(-1), 1, 1, 1, 1]);
    expect(wheel.every((e) => e.dx === 0)).toBe(true);
    const xs = original.events.map((e) => e.x ?? 0);
    const ys = original.events.map((e) => e.y ?? 0);
    expect([Math.min(...xs), Math.max(...xs), Math.max(...ys)]).toEqual([-64, 1368, 1592]);
    const first = original.events.find((e) => e.kind === 'down');
    expect(first).toMatchObject({ idx: 70, button: 'left', x: 1328, y: 745 });
  });

  it('reads metadata, task, video and folder identity', () => {
    expect(original.folderName).toBe('win10-display-settings');
    expect(original.dir).toBe(fixturePath(FIXTURE));
    expect(original.metadata.screenWidth).toBe(1366);
    expect(original.metadata.screenHeight).toBe(768);
    expect(original.metadata.videoStartS).toBe(30673.6036902);
    expect(original.metadata.raw.obs_record_state_timings).toEqual({
      OBS_WEBSOCKET_OUTPUT_STARTING: [30673.6621896],
      OBS_WEBSOCKET_OUTPUT_STARTED: [30674.1078885],
      OBS_WEBSOCKET_OUTPUT_STOPPING: [30796.5284451],
    });
    expect(original.task.taskName).toMatch(
      /^Open the system display settings, .*battery power\.'$/,
    );
    expect(original.task.description).toBe('');
    expect(original.hubTaskId).toBeNull();
    expect(original.videoFileName).toBe(VIDEO);
    expect(original.videoPath).toBe(path.join(fixturePath(FIXTURE), VIDEO));
    expect(original.warnings).toEqual([]);
    expect(original.files).toEqual([
      { name: VIDEO, bytes: 3513312 },
      { name: 'a11y.jsonl', bytes: 564229 },
      { name: 'element.jsonl', bytes: 818106 },
      { name: 'event_buffer.jsonl', bytes: 126537 },
      { name: 'events.jsonl', bytes: 361802 },
      { name: 'html.jsonl', bytes: 0 },
      { name: 'metadata.json', bytes: 710 },
      { name: 'reduced_events_complete.jsonl', bytes: 355042 },
      { name: 'reduced_events_vis.jsonl', bytes: 294559 },
      { name: 'task_name.json', bytes: 273 },
      { name: 'top_window.jsonl', bytes: 275 },
    ]);
  });

  it('reads the 14 aligned reduced rows with the annotator labels', () => {
    const ids = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 20, 21, 22];
    expect(original.reduced.complete.map((r) => r.id)).toEqual(ids);
    expect(original.reduced.vis.map((r) => r.id)).toEqual(ids);
    expect(original.reduced.lines).toEqual({
      complete: ids.map((_, i) => i + 1),
      vis: ids.map((_, i) => i + 1),
    });
    expect(original.reduced.vis.map((r) => r.action)).toEqual([
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
    expect(original.reduced.complete[3]?.description).toBe('Drag from (621, 206) to (561, 213)');
    expect(original.reduced.complete[5]?.description).toBe('Scroll ⬇️×3  ');
    expect(original.reduced.complete[0]?.start_time).toBe(30680.6270419);
  });

  it('reads the context streams', () => {
    expect(original.a11y).toHaveLength(32);
    expect(original.a11y[0]?.tS).toBe(30676.1297424);
    expect(original.a11y[0]?.tree).toMatchObject({ Name: 'Taskbar', ControlType: 'PaneControl' });
    expect(original.elements).toHaveLength(21);
    expect(original.elements[0]).toEqual({
      tS: 30680.622325,
      tree: {
        Name: 'Action Centre, No new notifications (Off)',
        ControlType: 'ButtonControl',
        BoundingRectangle: { left: 1313, top: 728, right: 1361, bottom: 768 },
        Depth: 0,
        Children: [],
      },
    });
    expect(original.topWindows.map((w) => w.name)).toEqual([
      'agentnet-annotator',
      'explorer',
      'ShellExperienceHost',
      'ApplicationFrameHost',
    ]);
    expect(original.topWindows[0]?.tS).toBe(30673.67046);
  });

  it('parses the fixture well under 300 ms', async () => {
    let bestMs = Infinity;
    for (let i = 0; i < 3; i++) {
      const t0 = performance.now();
      await readAgentNetFolder(fixturePath(FIXTURE));
      bestMs = Math.min(bestMs, performance.now() - t0);
    }
    expect(bestMs).toBeLessThan(300);
  });
});

describe('readAgentNetFolder rejects defects with file, line and problem', () => {
  it('a truncated last line', async () => {
    const dir = await freshCopy();
    await editLines(dir, 'events.jsonl', (lines) => {
      const kept = lines.slice(0, 4099);
      kept[4098] = kept[4098]!.slice(0, 40);
      return kept;
    });
    await expectInvalid(
      dir,
      'events.jsonl',
      4099,
      'truncated JSON (ends before the object is closed)',
    );
  });

  it('a non-JSON line', async () => {
    const dir = await freshCopy();
    await editLines(dir, 'events.jsonl', (lines) =>
      lines.map((l, i) => (i === 9 ? 'hello world' : l)),
    );
    await expectInvalid(dir, 'events.jsonl', 10, 'not valid JSON: "hello world"');
  });

  it('a JSON value that is not an object', async () => {
    const dir = await freshCopy();
    await editLines(dir, 'top_window.jsonl', (lines) =>
      lines.map((l, i) => (i === 1 ? '[1, 2]' : l)),
    );
    await expectInvalid(dir, 'top_window.jsonl', 2, 'expected a JSON object, got array');
  });

  it('a missing field', async () => {
    const dir = await freshCopy();
    await editLines(dir, 'events.jsonl', replaceLine(2, /"time_stamp": [0-9.]+, /, ''));
    await expectInvalid(dir, 'events.jsonl', 3, 'missing field "time_stamp"');
  });

  it('a wrong type', async () => {
    const dir = await freshCopy();
    await editLines(dir, 'events.jsonl', replaceLine(70, '"pressed": true', '"pressed": "yes"'));
    await expectInvalid(
      dir,
      'events.jsonl',
      71,
      'field "pressed" must be a boolean, got string "yes"',
    );
  });

  it('a NaN coordinate (Python writes NaN)', async () => {
    const dir = await freshCopy();
    await editLines(dir, 'events.jsonl', replaceLine(6, /"x": \d+/, '"x": NaN'));
    await expectInvalid(dir, 'events.jsonl', 7, 'field "x" is NaN (not valid JSON)');
  });

  it('a time_stamp that overflows to Infinity', async () => {
    const dir = await freshCopy();
    await editLines(
      dir,
      'events.jsonl',
      replaceLine(6, /"time_stamp": [0-9.]+/, '"time_stamp": 1e999'),
    );
    await expectInvalid(
      dir,
      'events.jsonl',
      7,
      'field "time_stamp" is not a finite number (Infinity)',
    );
  });

  it('an Infinity time_stamp literal', async () => {
    const dir = await freshCopy();
    await editLines(
      dir,
      'events.jsonl',
      replaceLine(6, /"time_stamp": [0-9.]+/, '"time_stamp": -Infinity'),
    );
    await expectInvalid(dir, 'events.jsonl', 7, 'field "time_stamp" is -Infinity (not valid JSON)');
  });

  it('a coordinate outside the virtual screen', async () => {
    const dir = await freshCopy();
    await editLines(dir, 'events.jsonl', replaceLine(6, /"x": \d+/, '"x": 99999'));
    await expectInvalid(
      dir,
      'events.jsonl',
      7,
      'field "x" is 99999, outside the virtual screen range -32768..32767',
    );
  });

  it('an event_idx that is not the running counter', async () => {
    const dir = await freshCopy();
    await editLines(dir, 'events.jsonl', (lines) => lines.filter((_, i) => i !== 4));
    await expectInvalid(
      dir,
      'events.jsonl',
      5,
      'field "event_idx" is 5, expected 4 (0-based running counter)',
    );
  });

  it('a missing events.jsonl', async () => {
    const dir = await freshCopy();
    await unlink(path.join(dir, 'events.jsonl'));
    await expectInvalid(dir, 'events.jsonl', undefined, 'required file is missing');
  });

  it('a missing video', async () => {
    const dir = await freshCopy();
    await unlink(path.join(dir, VIDEO));
    await expectInvalid(
      dir,
      '*.mp4',
      undefined,
      'no video: expected exactly one top-level .mp4 file',
    );
  });

  it('an empty (zero-byte) video', async () => {
    const dir = await freshCopy();
    await truncate(path.join(dir, VIDEO), 0);
    await expectInvalid(dir, VIDEO, undefined, 'video file is empty (0 bytes)');
  });

  it('a video that is not an MP4', async () => {
    const dir = await freshCopy();
    await writeFile(path.join(dir, VIDEO), 'this is not a video at all');
    await expectInvalid(dir, VIDEO, undefined, 'not an MP4 file (no "ftyp" box at the start)');
  });

  it('two videos', async () => {
    const dir = await freshCopy();
    await copyFile(path.join(dir, VIDEO), path.join(dir, 'video.mp4'));
    await expectInvalid(
      dir,
      '*.mp4',
      undefined,
      `2 top-level .mp4 files (${VIDEO}, video.mp4); expected exactly one`,
    );
  });

  it('vis and complete with different line counts', async () => {
    const dir = await freshCopy();
    await editLines(dir, 'reduced_events_vis.jsonl', (lines) => lines.filter((_, i) => i !== 13));
    await expectInvalid(
      dir,
      'reduced_events_vis.jsonl',
      undefined,
      '14 lines in complete vs 13 in vis',
    );
  });

  it('misaligned reduced rows', async () => {
    const dir = await freshCopy();
    await editLines(dir, 'reduced_events_vis.jsonl', (lines) => {
      const next = [...lines];
      [next[2], next[3]] = [lines[3]!, lines[2]!];
      return next;
    });
    await expectInvalid(
      dir,
      'reduced_events_vis.jsonl',
      3,
      'id 3 does not match id 2 on line 3 of reduced_events_complete.jsonl',
    );
  });

  it('a missing metadata field', async () => {
    const dir = await freshCopy();
    await editJson(dir, 'metadata.json', (m) => {
      delete m.screen_width;
    });
    await expectInvalid(dir, 'metadata.json', undefined, 'missing field "screen_width"');
  });

  it('an invalid metadata field', async () => {
    const dir = await freshCopy();
    await editJson(dir, 'metadata.json', (m) => {
      m.screen_height = 768.5;
    });
    await expectInvalid(
      dir,
      'metadata.json',
      undefined,
      'field "screen_height" must be a positive integer, got number 768.5',
    );
  });

  it('a NaN video_start_timestamp, with its line', async () => {
    const dir = await freshCopy();
    await editLines(dir, 'metadata.json', replaceLine(11, /[0-9.]+,$/, 'NaN,'));
    await expectInvalid(
      dir,
      'metadata.json',
      12,
      'field "video_start_timestamp" is NaN (not valid JSON)',
    );
  });

  it('a missing metadata.json', async () => {
    const dir = await freshCopy();
    await unlink(path.join(dir, 'metadata.json'));
    await expectInvalid(dir, 'metadata.json', undefined, 'required file is missing');
  });

  it('an empty task_name', async () => {
    const dir = await freshCopy();
    await editJson(dir, 'task_name.json', (t) => {
      t.task_name = '  ';
    });
    await expectInvalid(dir, 'task_name.json', undefined, 'field "task_name" is empty');
  });

  it('an empty task_name.json file', async () => {
    const dir = await freshCopy();
    await writeFile(path.join(dir, 'task_name.json'), '');
    await expectInvalid(dir, 'task_name.json', undefined, 'file is empty');
  });

  it('a legacy encrypted task_name.json', async () => {
    const dir = await freshCopy();
    await writeFile(path.join(dir, 'task_name.json'), 'encrypted\ngAAAAABnKx-fake-token==');
    const problem =
      'legacy encrypted file (first line "encrypted") is not supported; ' +
      'decrypt the folder with the AgentNet Tool first';
    await expectRejection(dir, 'LEGACY_ENCRYPTED_UNSUPPORTED', `task_name.json: ${problem}`, {
      file: 'task_name.json',
      problem,
    });
  });

  it('a folder that does not exist', async () => {
    const dir = path.join(await freshCopy(), 'nope');
    await expectInvalid(dir, dir, undefined, 'folder does not exist');
  });
});

describe('readAgentNetFolder accepts the variations of spec §14', () => {
  it('CRLF and LF give the same bundle', async () => {
    const dir = await freshCopy();
    for (const file of JSON_FILES) {
      const full = path.join(dir, file);
      const text = await readFile(full, 'utf8');
      const swapped = text.includes('\r\n')
        ? text.replaceAll('\r\n', '\n')
        : text.replaceAll('\n', '\r\n');
      await writeFile(full, swapped);
    }
    expect(comparable(await readAgentNetFolder(dir))).toEqual(comparable(original));
  });

  it('a UTF-8 BOM on every file', async () => {
    const dir = await freshCopy();
    for (const file of JSON_FILES) {
      const full = path.join(dir, file);
      await writeFile(full, Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), await readFile(full)]));
    }
    expect(comparable(await readAgentNetFolder(dir))).toEqual(comparable(original));
  });

  it('blank lines', async () => {
    const dir = await freshCopy();
    for (const file of JSON_FILES.filter((f) => f.endsWith('.jsonl'))) {
      await editLines(dir, file, (lines) => ['', ...lines.flatMap((l) => [l, ' \t']), '', '']);
    }
    const bundle = await readAgentNetFolder(dir);
    expect(comparable(bundle)).toEqual(comparable(original));
    expect(bundle.reduced.lines.complete.slice(0, 3)).toEqual([2, 4, 6]);
  });

  it('missing optional files', async () => {
    const dir = await freshCopy();
    for (const file of [
      'a11y.jsonl',
      'element.jsonl',
      'top_window.jsonl',
      'html.jsonl',
      'event_buffer.jsonl',
    ]) {
      await unlink(path.join(dir, file));
    }
    const bundle = await readAgentNetFolder(dir);
    expect([bundle.a11y, bundle.elements, bundle.topWindows]).toEqual([[], [], []]);
    expect(bundle.events).toHaveLength(4099);
    expect(bundle.files.map((f) => f.name)).toEqual([
      VIDEO,
      'events.jsonl',
      'metadata.json',
      'reduced_events_complete.jsonl',
      'reduced_events_vis.jsonl',
      'task_name.json',
    ]);
  });

  it('pause/resume and unknown actions are kept as other', async () => {
    const dir = await freshCopy();
    await editLines(dir, 'events.jsonl', (lines) => [
      ...lines.slice(0, 4099),
      '{"time_stamp": 30796.1, "action": "pause", "event_idx": 4099}',
      '{"time_stamp": 30796.2, "action": "resume", "event_idx": 4100}',
      '{"time_stamp": 30796.3, "action": "teleport", "event_idx": 4101}',
      '',
    ]);
    const bundle = await readAgentNetFolder(dir);
    expect(bundle.events.slice(4099).map((e) => [e.idx, e.kind, e.keyRaw, e.tMs])).toEqual([
      [4099, 'other', 'pause', 30796100],
      [4100, 'other', 'resume', 30796200],
      [4101, 'other', 'teleport', 30796300],
    ]);
    expect(bundle.warnings).toEqual([
      "UNKNOWN_EVENT: events.jsonl:4102: unknown action teleport (1 row(s) kept as 'other')",
    ]);
  });

  it('float coordinates, $Unknown names, escaped non-ASCII keys and zero events', async () => {
    const dir = await freshCopy();
    await writeFile(
      path.join(dir, 'events.jsonl'),
      [
        '{"time_stamp": 1.5, "action": "move", "x": -1440.5, "y": 12.25, "event_idx": 0}',
        '{"time_stamp": 1.6, "action": "press", "name": "$Unknown (255)$", ' +
          '"pynput_key": "<255>", "event_idx": 1}',
        '{"time_stamp": 1.7, "action": "release", "name": "\\u00e9", ' +
          '"pynput_key": "\'\\u00e9\'", "event_idx": 2}',
        '',
      ].join('\n'),
    );
    const bundle = await readAgentNetFolder(dir);
    expect(bundle.events.map((e) => [e.kind, e.x, e.y, e.key, e.char, e.keyRaw])).toEqual([
      ['move', -1440.5, 12.25, null, null, null],
      ['keydown', null, null, '$Unknown (255)$', null, '<255>'],
      ['keyup', null, null, 'é', 'é', "'é'"],
    ]);
    await writeFile(path.join(dir, 'events.jsonl'), '');
    expect((await readAgentNetFolder(dir)).events).toEqual([]);
  });

  it('element rows with an empty a11y_tree list', async () => {
    const dir = await freshCopy();
    await editLines(dir, 'element.jsonl', (lines) =>
      lines.map((l, i) => (i === 0 ? '{"time_stamp": 30680.622325, "a11y_tree": []}' : l)),
    );
    const bundle = await readAgentNetFolder(dir);
    expect(bundle.elements[0]).toEqual({ tS: 30680.622325, tree: [] });
  });

  it('a cut recording named video.mp4 is flagged ALIGNMENT_SUSPECT', async () => {
    const dir = await freshCopy();
    await copyFile(path.join(dir, VIDEO), path.join(dir, 'video.mp4'));
    await rm(path.join(dir, VIDEO));
    await editJson(dir, 'metadata.json', (m) => {
      m.video_start_timestamp = 30680.6270419;
    });
    const bundle = await readAgentNetFolder(dir);
    expect(bundle.videoFileName).toBe('video.mp4');
    expect(bundle.warnings).toEqual([
      "ALIGNMENT_SUSPECT: video_start_timestamp equals the first step's start_time " +
        '(30680.6270419); a cut recording whose video may be misaligned',
    ]);
  });
});
