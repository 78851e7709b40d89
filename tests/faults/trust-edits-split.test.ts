// Issue 26 item 15 (README fault row 43): a reviewer's split of a typing step must survive the
// dataset exports. A recording types "Alice Example" into a Name field (real library, real
// video from ffmpeg whose every frame differs); the step is split after "Alice" through the edit
// service, then exported as agentnet-jsonl and standardized: each format must hold two steps,
// `write('Alice')` and `write(' Example')`, each with its own instruction naming its own text
// (not the whole text, not doubled) and its own image; agentnet-raw keeps two rows.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StoredEdit } from '../../src/shared/contract';
import type { ActionCall, Step } from '../../src/shared/domain';
import { splitStepLabels } from '../../src/shared/domain';
import { buildTrajectory, startsAtSplit } from '../../src/pipeline/export/trajectory';
import { applyEdits } from '../../src/services/edits/apply-edits';
import { previewSteps } from '../../src/renderer/lib/edit-preview';
import { makeStep } from '../renderer/helpers/dto';
import { resolveFfmpeg } from '../../src/infra/ffmpeg/binary';
import { applyEdit } from '../../src/services/edits/edit-service';
import { exportRecordings } from '../../src/services/export/export-service';
import { reduceRecording } from '../../src/services/reduce-service';
import { effectiveStepState } from '../../src/services/steps';
import { insertAxRecords, insertEvents, insertVideo, listSteps } from '../../src/store';
import { readJsonl } from '../helpers/jsonl';
import { tempLibrary } from '../helpers/library';
import { makeRecording } from '../helpers/store';
import { EventScript } from '../pipeline/reduce/event-script';

const OPTS = { appVersion: '0.0.0-test' };
const t = tempLibrary();
const outRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'cua-split-'));
let id = '';
let seq = 0;
let typing: Step;

/** The element record of the click into a text field named "Name" (AT-SPI, element first). */
function nameField(tMs: number) {
  const node = (role: string, name: string) => ({
    role,
    name,
    states: ['enabled', 'showing', 'focused', 'editable'],
    bounds: { x: 0, y: 0, width: 400, height: 40 },
    children: [],
  });
  return {
    tMs,
    kind: 'element' as const,
    source: 'atspi',
    x: 100,
    y: 20,
    nodeCount: 2,
    rootName: 'Name',
    treeJson: JSON.stringify({
      app: 'form',
      isSecure: false,
      path: [node('text', 'Name'), node('frame', 'Form')],
    }),
    note: null,
  };
}

beforeAll(async () => {
  const rec = makeRecording(t.lib.db, { task: 'Enter the name' });
  id = rec.id;
  seq = rec.seq;
  const s = new EventScript(1_000);
  s.moveTo(100, 20).click().wait(500);
  s.type('Alice Example', 150);
  s.wait(800).moveTo(500, 300).click();
  insertEvents(t.lib.db, seq, s.events);
  insertAxRecords(t.lib.db, seq, [nameField(1_300)]);
  // a 10 s video at 10 fps whose frames all differ (a test pattern with a running counter)
  const videoPath = `recordings/${id}/screen.mp4`;
  fs.mkdirSync(path.dirname(t.lib.resolve(videoPath)), { recursive: true });
  execFileSync((await resolveFfmpeg()).path, [
    ...['-loglevel', 'error', '-f', 'lavfi', '-i', 'testsrc=s=320x200:r=10:d=10'],
    ...['-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p'],
    t.lib.resolve(videoPath),
  ]);
  insertVideo(t.lib.db, seq, 0, {
    path: videoPath,
    width: 320,
    height: 200,
    fps: 10,
    frameCount: 100,
    durationMs: 10_000,
    startMs: 0,
    startMethod: 'test',
    codec: 'h264',
    sizeBytes: fs.statSync(t.lib.resolve(videoPath)).size,
    sha256: null,
  });
  reduceRecording(t.lib, id);
  typing = listSteps(t.lib.db, seq).find((st) => st.kind === 'write')!;
}, 60_000);
afterAll(() => {
  t.cleanup();
  fs.rmSync(outRoot, { recursive: true, force: true });
});

async function exportAs(
  format: 'agentnet-jsonl' | 'standardized' | 'agentnet-raw',
  name: string,
): Promise<string> {
  const out = path.join(outRoot, name, format);
  await exportRecordings(t.lib, [id], { ...OPTS, format, outDir: out });
  return out;
}

type ExportedStep = { code: string; instruction: string; image: Buffer; imageName: string };

function jsonlSteps(out: string): ExportedStep[] {
  const [line] = readJsonl(path.join(out, 'agentnet.jsonl')) as {
    traj: { image: string; value: { code: string; action: string } }[];
  }[];
  return line!.traj.map((s) => ({
    code: s.value.code,
    instruction: s.value.action,
    imageName: s.image,
    image: fs.readFileSync(path.join(out, 'images', s.image)),
  }));
}

function standardizedSteps(out: string): ExportedStep[] {
  const file = fs.readdirSync(out).find((f) => f.endsWith('.json'))!;
  const traj = JSON.parse(fs.readFileSync(path.join(out, file), 'utf8')) as {
    content: Record<string, unknown>[];
  };
  const steps: ExportedStep[] = [];
  let image = '';
  for (const item of traj.content) {
    if (item.class_ === 'image_observation') {
      image = item.content as string;
    } else if ('guiactions' in item) {
      const actions = item.guiactions as { action_type: string; args: { message?: string } }[];
      steps.push({
        code: actions
          .map((a) => `${a.action_type}(${a.args.message === undefined ? '' : a.args.message})`)
          .join('; '),
        instruction: item.instruction as string,
        imageName: image,
        image: fs.readFileSync(path.join(out, image)),
      });
    }
  }
  return steps;
}

describe('issue 26 item 15: a split survives the exports', () => {
  it('item 43: the recording has one typing step labelled with the whole text', () => {
    expect(typing.calls).toEqual([{ name: 'write', args: { message: 'Alice Example' } }]);
    expect(typing.label).toContain('Alice Example');
  });

  it('item 43: split "Alice Example" after "Alice": agentnet-jsonl and standardized keep two steps, each its own text, label and image', async () => {
    const before = effectiveStepState(t.lib, seq).steps.length;
    applyEdit(t.lib, id, { op: 'split', stepId: typing.id, at: 5 });
    const steps = effectiveStepState(t.lib, seq).steps;
    expect(steps).toHaveLength(before + 1);
    const i = steps.findIndex((st) => st.id === typing.id);
    const [first, second] = [steps[i]!, steps[i + 1]!];
    // the labels name each half's own text, not the whole text
    expect(first.label).toContain('"Alice"');
    expect(second.label).toContain('"Example"');
    expect(first.label).not.toContain('Alice Example');
    expect(second.label).not.toContain('Alice');

    const jsonl = jsonlSteps(await exportAs('agentnet-jsonl', 'split'));
    const std = standardizedSteps(await exportAs('standardized', 'split'));
    for (const [format, exported] of [
      ['agentnet-jsonl', jsonl.map((s) => ({ ...s, code: s.code }))],
      ['standardized', std],
    ] as const) {
      const k = exported.findIndex((s) => s.code.includes('Alice'));
      const [a, b] = [exported[k]!, exported[k + 1]!];
      expect(
        { format, codes: [a.code, b.code], instructions: [a.instruction, b.instruction] },
        format,
      ).toEqual({
        format,
        codes:
          format === 'agentnet-jsonl'
            ? ["pyautogui.write(message='Alice')", "pyautogui.write(message=' Example')"]
            : ['write(Alice)', 'write( Example)'],
        instructions: [first.label, second.label],
      });
      // two images, two different frames
      expect(a.imageName).not.toBe(b.imageName);
      expect(a.image.equals(b.image), `${format}: the halves show the same image`).toBe(false);
      // nothing else is merged into the halves
      expect(exported.filter((s) => s.code.includes('Example'))).toHaveLength(1);
    }

    // the raw folder keeps two rows, one per half
    const raw = await exportAs('agentnet-raw', 'split');
    const folder = path.join(
      raw,
      fs.readdirSync(raw).find((f) => !f.startsWith('cua-'))!,
    );
    const vis = readJsonl(path.join(folder, 'reduced_events_vis.jsonl')) as { action: string }[];
    expect(vis.map((r) => r.action)).toEqual(expect.arrayContaining([first.label, second.label]));
  }, 120_000);
});

describe("issue 26 item 15: the split boundary and the halves' labels", () => {
  const write = (message: string): ActionCall => ({ name: 'write', args: { message } });
  const step = (id: string, label: string, calls: ActionCall[], startMs: number): Step => ({
    id,
    index: 0,
    kind: 'write',
    description: '',
    label,
    calls,
    startMs,
    endMs: startMs + 500,
    eventStartIdx: null,
    coordinate: null,
    preMove: null,
    target: null,
    extra: {},
    diagnostics: [],
  });
  const log = (...edits: StoredEdit['edit'][]): StoredEdit[] =>
    edits.map((edit, i) => ({ id: i + 1, atMs: 0, author: null, state: 'active', edit }));
  const apply = (steps: Step[], ...edits: StoredEdit['edit'][]) => {
    const r = applyEdits(steps, log(...edits), { screen: { width: 1000, height: 500 } });
    expect(r.skipped).toEqual([]);
    return r.steps;
  };

  it('item 43: unedited typing steps in a row still join as in OpenCUA; a split half does not', () => {
    const steps = [step('a', 'one', [write('foo')], 0), step('b', 'two', [write('bar')], 1000)];
    const joined = buildTrajectory(steps);
    expect(joined.map((s) => [s.code, s.instruction])).toEqual([
      ["pyautogui.write(message='foobar')", 'one two'],
      ["computer.terminate(status='success')", 'terminate'],
    ]);
    const split = apply([step('s', 'Type "foobar"', [write('foobar')], 0)], {
      op: 'split',
      stepId: 's',
      at: 3,
    });
    expect(split.map(startsAtSplit)).toEqual([false, true]);
    expect(buildTrajectory(split).map((s) => [s.code, s.instruction, s.imageIndex])).toEqual([
      ["pyautogui.write(message='foo')", 'Type "foo"', 0],
      ["pyautogui.write(message='bar')", 'Type "bar"', 1],
      ["computer.terminate(status='success')", 'terminate', 2],
    ]);
  });

  it('item 43: a typing step before the split still joins the first half; merging the halves back removes the boundary', () => {
    const base = [
      step('x', 'Type "Dr. "', [write('Dr. ')], 0),
      step('s', 'Type "Alice Example"', [write('Alice Example')], 1000),
    ];
    const split = apply(base, { op: 'split', stepId: 's', at: 5 });
    expect(buildTrajectory(split).map((s) => s.code)).toEqual([
      "pyautogui.write(message='Dr. Alice')",
      "pyautogui.write(message=' Example')",
      "computer.terminate(status='success')",
    ]);
    const merged = apply(
      base,
      { op: 'split', stepId: 's', at: 5 },
      { op: 'merge', stepIds: ['s', 'edit:1'] },
    );
    expect(merged.map(startsAtSplit)).toEqual([false, false]);
    // a later action edit of a half keeps its boundary
    const edited = apply(
      base,
      { op: 'split', stepId: 's', at: 5 },
      { op: 'set-action', stepId: 'edit:1', calls: [write(' Examples')] },
    );
    expect(edited.map(startsAtSplit)).toEqual([false, false, true]);
  });

  it("item 43: each half's label names its own text; a reviewer's label stays on both", () => {
    expect(
      splitStepLabels('Type "Alice Example" in Name text field', 'Alice Example', [
        'Alice',
        ' Example',
      ]),
    ).toEqual(['Type "Alice" in Name text field', 'Type "Example" in Name text field']);
    // a long text is quoted clipped
    const long = 'abcdefghij'.repeat(6);
    expect(
      splitStepLabels(`Type "${long.slice(0, 39)}…"`, long, [long.slice(0, 10), long.slice(10)]),
    ).toEqual(['Type "abcdefghij"', `Type "${long.slice(10, 49)}…"`]);
    // an imported annotator's label naming the text unquoted
    expect(splitStepLabels('enter Alice Example', 'Alice Example', ['Alice', ' Example'])).toEqual([
      'enter Alice',
      'enter  Example',
    ]);
    // labels that do not name the text stay on both halves
    expect(splitStepLabels('type', 'Alice Example', ['Alice', ' Example'])).toEqual([
      'type',
      'type',
    ]);
    expect(splitStepLabels('Type in Password text', 'hunter2', ['hun', 'ter2'])).toEqual([
      'Type in Password text',
      'Type in Password text',
    ]);
    // through the service: a relabel before the split is the reviewer's, kept as written
    const base = [step('s', 'Type "Alice Example"', [write('Alice Example')], 0)];
    expect(apply(base, { op: 'split', stepId: 's', at: 5 }).map((s) => s.label)).toEqual([
      'Type "Alice"',
      'Type "Example"',
    ]);
    expect(
      apply(
        base,
        { op: 'relabel', stepId: 's', label: 'Enter the full name "Alice Example"' },
        { op: 'split', stepId: 's', at: 5 },
      ).map((s) => s.label),
    ).toEqual(['Enter the full name "Alice Example"', 'Enter the full name "Alice Example"']);
  });
});

describe('issue 26 item 15: the page previews the split the service makes', () => {
  const write = (message: string): ActionCall => ({ name: 'write', args: { message } });
  const press = (...keys: string[]): ActionCall => ({ name: 'press', args: { keys } });
  const CASES: { calls: ActionCall[]; label: string; at: number }[] = [
    { calls: [write('Alice Example')], label: 'Type "Alice Example" in Name text field', at: 5 },
    { calls: [write('abc'), press('enter'), write('def')], label: 'type', at: 3 },
    { calls: [write('abc'), press('tab'), write('def')], label: 'Type "abcdef"', at: 4 },
    { calls: [press('backspace'), write('héllo😀x')], label: 'Type "héllo😀x"', at: 6 },
  ];

  it.each(CASES.map((c) => [JSON.stringify(c.calls), c] as const))(
    'item 43: split of %s: the preview shows the halves and labels the service stores',
    (_name, { calls, label, at }) => {
      const dto = makeStep('s', 0, { kind: 'write', calls, label });
      const preview = previewSteps([dto], { op: 'split', stepId: 's', at });
      const base: Step = {
        id: 's',
        index: 0,
        kind: 'write',
        description: '',
        label,
        calls,
        startMs: dto.startMs,
        endMs: dto.endMs,
        eventStartIdx: null,
        coordinate: null,
        preMove: null,
        target: null,
        extra: {},
        diagnostics: [],
      };
      const edit: StoredEdit = {
        id: 1,
        atMs: 0,
        author: null,
        state: 'active',
        edit: { op: 'split', stepId: 's', at },
      };
      const service = applyEdits([base], [edit], { screen: { width: 1366, height: 768 } });
      expect(service.skipped).toEqual([]);
      const view = (steps: readonly { calls: ActionCall[]; label: string; kind: string }[]) =>
        steps.map((st) => ({ calls: st.calls, label: st.label, kind: st.kind }));
      expect(view(preview)).toEqual(view(service.steps));
    },
  );
});
