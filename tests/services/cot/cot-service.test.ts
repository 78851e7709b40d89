// The CoT synthesis on the example recording (issue 30 "What must show"), with a scripted model:
// every request's text equals what upstream's gen_cot.py sends for the same answers (Python, via
// tests/helpers/cot-upstream.py), the cue images equal Pillow's, a reviewer's "incorrect" on step 3
// makes the prior judge, an interrupted run resumes without asking twice, and the agentnet-jsonl
// export carries every step's observation/thought/action/reflection and the summary.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { drawCue } from '../../../src/pipeline/cot/cue';
import * as prompts from '../../../src/pipeline/cot/prompts';
import type { ChatRequest } from '../../../src/shared/chat';
import type { ChatClient } from '../../../src/pipeline/cot/types';
import { encodePngRgb, decodePng } from '../../../src/pipeline/media/png';
import { buildTrajectory } from '../../../src/pipeline/export/trajectory';
import { readCotInputs } from '../../../src/services/cot/cot-inputs';
import { runCotOnRecording } from '../../../src/services/cot/cot-service';
import { applyEdit } from '../../../src/services/edits/edit-service';
import { exportRecordings } from '../../../src/services/export/export-service';
import { effectiveSteps } from '../../../src/services/steps';
import { getRecording, listCotSteps, getCotSummary } from '../../../src/store';
import { exampleLibrary } from '../../helpers/example-library';
import { upstreamCue, upstreamFlow } from '../../helpers/cot-upstream';

type Kind = 'generator' | 'reflector' | 'prior-judge' | 'summarizer';

const textOf = (req: ChatRequest): string => {
  const c = req.messages[0]!.content;
  return typeof c === 'string' ? c : c.map((p) => ('text' in p ? p.text : '')).join('');
};
const kindOf = (req: ChatRequest): Kind => {
  const t = textOf(req);
  return t.startsWith('Your task is to generate three components')
    ? 'generator'
    : t.startsWith('You will be given a task, agent last action')
      ? 'prior-judge'
      : t.startsWith('You are an judge')
        ? 'reflector'
        : 'summarizer';
};

/** A scripted model with answers that exercise the parsing (fences, braces, unicode). */
function scripted(onRequest?: (n: number, req: ChatRequest) => void) {
  const requests: ChatRequest[] = [];
  const answers: string[] = [];
  let k = 0;
  const client: ChatClient = {
    complete: (req, signal) => {
      requests.push(req);
      onRequest?.(requests.length, req);
      if (signal?.aborted) {
        return Promise.reject(new Error('aborted'));
      }
      const kind = kindOf(req);
      k += 1;
      const text =
        kind === 'generator'
          ? `## Observation:\nThe screen {${k}} shows “settings” — 設定.\n\n## Thought:\nI think }} step ${k}.\n\n## Action:\nClick the thing #${k}.`
          : kind === 'reflector'
            ? '```json\n' +
              JSON.stringify({
                last_step_correct: k % 5 !== 0,
                last_step_redundant: k % 7 === 0,
                reflection: `Reflection {r${k}}`,
              }) +
              '\n```'
            : kind === 'prior-judge'
              ? JSON.stringify({ reflection: `Judged reflection ${k}` })
              : JSON.stringify({
                  task_completed: true,
                  alignment_score: 8,
                  efficiency_score: 6,
                  reason: 'fine',
                  actual_task: 'Change the display settings',
                  natural_language_task: 'Could you change my display settings?',
                  task_difficulty: 5,
                  // a key the prompt does not ask for: upstream's merge keeps it too
                  evidence_steps: [1, 3],
                });
      answers.push(text);
      return Promise.resolve({ text, usage: { promptTokens: 1000, completionTokens: 100 } });
    },
  };
  return { client, requests, answers };
}

let t: Awaited<ReturnType<typeof exampleLibrary>>;
let seq: number;
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cot-svc-'));
beforeAll(async () => {
  t = await exampleLibrary();
  seq = getRecording(t.lib.db, t.id).seq;
}, 240_000);
afterAll(() => {
  t?.cleanup();
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe('CoT on the example recording', () => {
  it('cue images equal Pillow’s on every keyframe of the trajectory', async () => {
    const inputs = await readCotInputs(t.lib, t.id, { workDir: tmp });
    const items = await Promise.all(
      inputs.steps.map(async (s) => {
        const out = path.join(tmp, `cue-${s.index}`);
        fs.mkdirSync(out);
        const img = await inputs.image(s.index);
        fs.writeFileSync(
          path.join(out, 'in.png'),
          encodePngRgb(img.rgb, img.width, img.height, { compressionLevel: 1 }),
        );
        return { image: path.join(out, 'in.png'), code: s.code, out, img };
      }),
    );
    const patches = upstreamCue(items);
    const same = items.map((it, i) => {
      const ours = drawCue(it.img, it.code);
      const theirs = decodePng(fs.readFileSync(path.join(it.out, 'image.png')));
      const patch = patches[i]
        ? decodePng(fs.readFileSync(path.join(it.out, 'patch.png'))).rgb.equals(
            Buffer.from(ours.patch!.rgb),
          )
        : ours.patch === null;
      return { i, image: theirs.rgb.equals(Buffer.from(ours.image.rgb)), patch };
    });
    expect(same).toEqual(items.map((_, i) => ({ i, image: true, patch: true })));
    expect(patches.filter(Boolean).length).toBeGreaterThan(5);
  }, 120_000);

  it('requests equal upstream’s; reviewer’s "incorrect" on step 3 is the prior judge; export filled', async () => {
    // the reviewer marks trajectory step 3 wrong
    const traj = buildTrajectory(effectiveSteps(t.lib, seq));
    const stepId = effectiveSteps(t.lib, seq)[traj[3]!.imageIndex]!.id;
    applyEdit(t.lib, t.id, { op: 'mark', stepId, mark: 'incorrect' });

    const model = scripted();
    const outcome = await runCotOnRecording(t.lib, t.id, { client: model.client, model: 'stub' });
    const total = traj.length;
    expect(outcome).toMatchObject({
      generatedSteps: total,
      reusedSteps: 0,
      isSummaryGenerated: true,
    });
    // ≈ 2 calls per step, none to reflect on the last, 1 summary
    expect(outcome.usage.calls).toBe(2 * total - 1 + 1);

    const expected = upstreamFlow([
      {
        templates: { ...prompts },
        goal: getRecording(t.lib.db, t.id).task,
        steps: traj.map((s, i) => ({ code: s.code, judge: i === 3 ? false : null })),
        answers: model.answers,
      },
    ])[0]!;
    expect(model.requests.map(textOf)).toEqual(expected);
    expect(model.requests.map(kindOf)[7]).toBe('prior-judge');
    // images: JPEG data URLs, detail high
    const first = model.requests[0]!.messages[0]!.content as readonly {
      type: string;
      image_url?: { url: string; detail: string };
    }[];
    expect(first[1]!.image_url!.url).toMatch(/^data:image\/jpeg;base64,\/9j\//);
    expect(first[1]!.image_url!.detail).toBe('high');

    const rows = listCotSteps(t.lib.db, seq);
    expect(rows).toHaveLength(total);
    // the reviewer's verdict is stored, never the model's
    expect(rows[3]).toMatchObject({
      lastStepCorrect: false,
      lastStepRedundant: true,
      verdictSource: 'reviewer',
      reflection: expect.stringMatching(/^Judged reflection/) as unknown,
    });

    // agentnet-jsonl: the <stem>_with_cot.jsonl fields upstream's merge writes
    const out = path.join(tmp, 'export');
    await exportRecordings(t.lib, [t.id], {
      format: 'agentnet-jsonl',
      outDir: out,
      appVersion: 'test',
    });
    const record = JSON.parse(
      fs.readFileSync(path.join(out, 'agentnet.jsonl'), 'utf8').split('\n')[0]!,
    ) as {
      traj: { image: string; value: Record<string, unknown> }[];
      [k: string]: unknown;
    };
    expect(record).toMatchObject({
      task_completed: true,
      alignment_score: 8,
      efficiency_score: 6,
      task_difficulty: 5,
      reason: 'fine',
      actual_task: 'Change the display settings',
      natural_language_task: 'Could you change my display settings?',
    });
    expect(record.traj.map((s) => Object.keys(s.value))).toEqual(
      traj.map(() => [
        'code',
        'observation',
        'thought',
        'action',
        'last_step_correct',
        'last_step_redundant',
        'reflection',
      ]),
    );
    expect(record.traj.map((s) => s.value.thought)).toEqual(rows.map((r) => r.thought));
    expect(record.traj.map((s) => s.value.reflection)).toEqual(rows.map((r) => r.reflection));
    expect(record.traj[3]!.value.last_step_correct).toBe(false);
    expect(record.traj.every((s) => typeof s.value.observation === 'string')).toBe(true);
    // the whole record is what upstream's merge_json.py writes for this run: meta.json (the
    // cot-input line without its traj, updated with the summarizer's JSON) plus `traj`, the step
    // files in order, each {index, image, value: {code, observation, thought, action,
    // last_step_correct, last_step_redundant, reflection}} (image: the release's file name)
    const [inputFile] = fs.readdirSync(path.join(out, 'cot-input'));
    const { traj: inputTraj, ...meta } = JSON.parse(
      fs.readFileSync(path.join(out, 'cot-input', inputFile!), 'utf8'),
    ) as { traj: { index: number; value: { code: string } }[]; [k: string]: unknown };
    const upstreamMerged = {
      ...meta,
      ...(JSON.parse(model.answers.at(-1)!) as Record<string, unknown>),
      traj: inputTraj.map((step, i) => ({
        index: step.index,
        image: record.traj[i]!.image,
        value: {
          code: step.value.code,
          observation: rows[i]!.observation,
          thought: rows[i]!.thought,
          action: rows[i]!.action,
          last_step_correct: rows[i]!.lastStepCorrect,
          last_step_redundant: rows[i]!.lastStepRedundant,
          reflection: rows[i]!.reflection,
        },
      })),
    };
    expect(record).toStrictEqual(upstreamMerged);
    expect(Object.keys(record).sort()).toEqual(Object.keys(upstreamMerged).sort());

    // a new mark on step 5 makes steps 5… stale: the export leaves them out until a new run
    const id5 = effectiveSteps(t.lib, seq)[traj[5]!.imageIndex]!.id;
    applyEdit(t.lib, t.id, { op: 'mark', stepId: id5, mark: 'correct' });
    const out2 = path.join(tmp, 'export2');
    await exportRecordings(t.lib, [t.id], {
      format: 'agentnet-jsonl',
      outDir: out2,
      appVersion: 'test',
    });
    const record2 = JSON.parse(
      fs.readFileSync(path.join(out2, 'agentnet.jsonl'), 'utf8').split('\n')[0]!,
    ) as {
      traj: { value: Record<string, unknown> }[];
      reason: unknown;
    };
    expect(record2.traj.map((s) => s.value.observation !== null)).toEqual(
      traj.map((_, i) => i < 5),
    );
    expect(record2.reason).toBeNull();
    // and a run asks only for steps 5… and the summary
    const again = scripted();
    const o2 = await runCotOnRecording(t.lib, t.id, { client: again.client, model: 'stub' });
    expect(o2).toMatchObject({
      reusedSteps: 5,
      generatedSteps: total - 5,
      isSummaryGenerated: true,
    });
    expect(again.requests.map(kindOf)[1]).toBe('prior-judge');
    expect(getCotSummary(t.lib.db, seq)?.fields).toMatchObject({ alignment_score: 8 });
  }, 120_000);

  it(`killed after step 7 and run again: steps 0–6 are not asked again, one summary`, async () => {
    const t2 = await exampleLibrary();
    try {
      const controller = new AbortController();
      let generators = 0;
      const first = scripted((_n, req) => {
        if (kindOf(req) === 'generator' && (generators += 1) === 8) {
          controller.abort(); // the 8th step's first call: steps 0–6 are done
        }
      });
      await expect(
        runCotOnRecording(t2.lib, t2.id, {
          client: first.client,
          model: 'stub',
          signal: controller.signal,
        }),
      ).rejects.toThrow();
      const seq2 = getRecording(t2.lib.db, t2.id).seq;
      expect(listCotSteps(t2.lib.db, seq2).map((r) => r.index)).toEqual([0, 1, 2, 3, 4, 5, 6]);
      expect(getCotSummary(t2.lib.db, seq2)).toBeNull();

      const second = scripted();
      const outcome = await runCotOnRecording(t2.lib, t2.id, {
        client: second.client,
        model: 'stub',
      });
      const total = outcome.totalSteps;
      expect(outcome).toMatchObject({
        reusedSteps: 7,
        generatedSteps: total - 7,
        isSummaryGenerated: true,
      });
      const kinds = second.requests.map(kindOf);
      expect(kinds.filter((k) => k === 'generator')).toHaveLength(total - 7);
      expect(kinds.filter((k) => k === 'summarizer')).toHaveLength(1);
      // the first request is step 7's, with the history of steps 0–6
      expect(textOf(second.requests[0]!)).toContain('Step 7: Click the thing');
      expect(textOf(second.requests[0]!)).not.toContain('Step 8:');
    } finally {
      t2.cleanup();
    }
  }, 120_000);
});
