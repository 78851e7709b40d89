import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { readAgentNetFolder, type AgentNetBundle } from '../../../src/pipeline/io/agentnet-read';
import { stepsFromAgentNetRows } from '../../../src/pipeline/agentnet/import-steps';
import { buildAgentNetRawFolder } from '../../../src/pipeline/export/agentnet-raw';
import { pyJsonDumps } from '../../../src/pipeline/export/python-json';
import { buildTrajectory } from '../../../src/pipeline/export/trajectory';
import { buildStandardizedJson } from '../../../src/pipeline/export/standardized';
import { buildAgentNetRecordLine, buildCotInputLine } from '../../../src/pipeline/export/datasets';
import { FIXTURE_DIR } from '../../helpers/paths';
import type { Step } from '../../../src/shared/domain';

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');
const read = (name: string) => fs.readFileSync(path.join(FIXTURE_DIR, name), 'utf8');
const lines = (name: string) => read(name).split(/\r?\n/).filter(Boolean);

let bundle: AgentNetBundle;
beforeAll(async () => {
  bundle = await readAgentNetFolder(FIXTURE_DIR);
});

describe('Python json.dumps compatibility on the fixture files', () => {
  it('reproduces every events.jsonl line (ensure_ascii)', () => {
    for (const line of lines('events.jsonl')) {
      expect(pyJsonDumps(JSON.parse(line))).toBe(line);
    }
  });

  it.each(['reduced_events_complete.jsonl', 'a11y.jsonl', 'element.jsonl', 'top_window.jsonl'])(
    'reproduces every line of %s (raw UTF-8)',
    (name) => {
      for (const line of lines(name)) {
        expect(pyJsonDumps(JSON.parse(line), { ensureAscii: false })).toBe(line);
      }
    },
  );

  it('reproduces the vis file (sorted keys) and the pretty metadata/task files', () => {
    for (const line of lines('reduced_events_vis.jsonl')) {
      expect(pyJsonDumps(JSON.parse(line), { ensureAscii: false, sortKeys: true })).toBe(line);
    }
    expect(pyJsonDumps(JSON.parse(read('metadata.json')), { indent: 4 })).toBe(
      read('metadata.json').replace(/\r\n/g, '\n'),
    );
    expect(pyJsonDumps(JSON.parse(read('task_name.json')), { indent: 4 })).toBe(
      read('task_name.json'),
    );
  });

  it('escapes like Python', () => {
    expect(pyJsonDumps({ a: 'é😀\u2028"\\\n\u0007' })).toBe(
      '{"a": "\\u00e9\\ud83d\\ude00\\u2028\\"\\\\\\n\\u0007"}',
    );
    expect(pyJsonDumps({ a: 'é' }, { ensureAscii: false })).toBe('{"a": "é"}');
    expect(pyJsonDumps([1, 1.5, 1e-5, 1e16, -0, null, true])).toBe(
      '[1, 1.5, 1e-05, 1e+16, -0.0, null, true]',
    );
  });
});

/** The fixture's raw folder built from `steps`, without a11y, element and window rows. */
function withoutContext(steps: Step[]) {
  return buildAgentNetRawFolder({
    task: bundle.task,
    metadata: bundle.metadata.raw,
    provenance: {},
    videoStartS: bundle.metadata.videoStartS,
    events: bundle.events,
    steps,
    a11y: [],
    elements: [],
    topWindows: [],
  });
}

describe('AgentNet raw export of the imported fixture', () => {
  it('writes the reduced, context and event files the fixture has (LF endings)', () => {
    const steps = stepsFromAgentNetRows(bundle.reduced, { width: 1366, height: 768 });
    const { files, warnings } = buildAgentNetRawFolder({
      task: bundle.task,
      metadata: bundle.metadata.raw,
      provenance: { app: 'test' },
      videoStartS: bundle.metadata.videoStartS,
      events: bundle.events,
      steps,
      a11y: bundle.a11y,
      elements: bundle.elements,
      topWindows: bundle.topWindows,
    });
    expect(warnings).toEqual([]);
    for (const name of [
      'reduced_events_complete.jsonl',
      'reduced_events_vis.jsonl',
      'a11y.jsonl',
      'element.jsonl',
      'top_window.jsonl',
      'task_name.json',
    ]) {
      expect(files.get(name), name).toBe(read(name));
    }
    expect(files.get('events.jsonl')).toBe(read('events.jsonl').replace(/\r\n/g, '\n'));
    const meta = JSON.parse(files.get('metadata.json')!);
    expect(meta.video_start_timestamp).toBe(30673.6036902);
    expect(meta.x_recorder).toEqual({ app: 'test' });
  });

  it('re-labels vis rows with the current label and keeps the complete description', () => {
    const steps = stepsFromAgentNetRows(bundle.reduced, { width: 1366, height: 768 });
    steps[1] = { ...steps[1]!, label: 'Turn on night light' };
    const { files } = withoutContext(steps);
    const vis = files
      .get('reduced_events_vis.jsonl')!
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(vis[1].action).toBe('Turn on night light');
    expect(vis).toHaveLength(14);
  });

  it("fills a missing end_time from the step without changing the caller's imported rows", () => {
    const steps = stepsFromAgentNetRows(bundle.reduced, { width: 1366, height: 768 });
    const row = (steps[3]!.extra.agentnet as { complete: Record<string, unknown> }).complete;
    row.end_time = null;
    const build = () => withoutContext(steps).files.get('reduced_events_complete.jsonl')!;
    const first = build();
    const exported = JSON.parse(first.trim().split('\n')[3]!);
    expect(exported.end_time).toBe(steps[3]!.endMs / 1000);
    expect(row.end_time).toBeNull();
    expect(build()).toBe(first);
  });
});

describe('dataset goldens of the fixture', () => {
  it('standardized JSON equals the upstream stages byte for byte (frames as placeholders)', () => {
    const steps = stepsFromAgentNetRows(bundle.reduced, { width: 1366, height: 768 });
    const json = buildStandardizedJson({
      episodeId: 'win10-display-settings',
      taskName: bundle.task.taskName,
      steps: buildTrajectory(steps),
      imageContent: (i) => `<frame ${i}>`,
    });
    expect(Buffer.byteLength(json)).toBe(5229);
    expect(sha256(json)).toBe('a14208293955fae1367ed347f18a183cee663b8caea9165b2ac5fc67b2c8df33');
  });

  it('the CoT input line equals raw_example.jsonl byte for byte', () => {
    const steps = stepsFromAgentNetRows(bundle.reduced, { width: 1366, height: 768 });
    const line = buildCotInputLine('task_example_0', bundle.task.taskName, buildTrajectory(steps));
    expect(Buffer.byteLength(line)).toBe(1727);
    expect(sha256(line)).toBe('18f5277dcb63ce0711824d0eb5fd1d1d06e6ff7f6325f67e212ae340eca59c97');
  });

  it('the AgentNet record has 15 steps, the golden codes and nulls for unknown fields', () => {
    const steps = stepsFromAgentNetRows(bundle.reduced, { width: 1366, height: 768 });
    const rec = JSON.parse(
      buildAgentNetRecordLine({
        taskId: 'win10-display-settings',
        instruction: bundle.task.taskName,
        labels: {
          taskCompleted: null,
          alignmentScore: null,
          efficiencyScore: null,
          taskDifficulty: null,
          reason: null,
          naturalLanguageTask: null,
          actualTask: null,
        },
        steps: buildTrajectory(steps),
        imageName: (i) => `win10-display-settings_${i}.png`,
      }),
    );
    expect(rec.traj).toHaveLength(15);
    expect(rec.traj[0].value).toEqual({
      code: 'pyautogui.click(x=0.9722, y=0.9701)',
      observation: null,
      thought: null,
      action: 'Click on Action Centre',
      last_step_correct: null,
      last_step_redundant: null,
      reflection: null,
    });
    expect(rec.traj[14].value.code).toBe("computer.terminate(status='success')");
    expect(rec.task_completed).toBeNull();
    expect(rec.alignment_score).toBeNull();
  });
});

describe('AgentNet row ids after edits', () => {
  it('renumbers every row when rebuilt rows would repeat an imported id', async () => {
    const b = await readAgentNetFolder(FIXTURE_DIR);
    const steps = stepsFromAgentNetRows(b.reduced, { width: 1366, height: 768 });
    // an edited copy of step 5 inserted after it: rebuilt rows are numbered from the previous id
    const extra = {
      ...steps[5]!,
      id: 'edit:1',
      extra: {},
      description: 'Single left Click',
      kind: 'click' as const,
    };
    steps.splice(6, 0, extra);
    const { files } = buildAgentNetRawFolder({
      task: b.task,
      metadata: b.metadata.raw,
      provenance: {},
      videoStartS: b.metadata.videoStartS,
      events: b.events,
      steps,
      a11y: [],
      elements: [],
      topWindows: [],
    });
    const ids = (name: string) =>
      files
        .get(name)!
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).id as number);
    expect(ids('reduced_events_complete.jsonl')).toEqual([...Array(15).keys()]);
    expect(ids('reduced_events_vis.jsonl')).toEqual([...Array(15).keys()]);
    // the steps' own imported rows are not mutated
    expect((steps[6]!.extra as { agentnet?: unknown }).agentnet).toBeUndefined();
    expect((steps[7]!.extra.agentnet as { complete: { id: number } }).complete.id).toBe(6);
  });
});
