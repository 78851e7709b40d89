// `cua-annotator cot` end to end: the real CLI against the OpenAI-compatible stub server
// (tests/helpers/openai-stub.ts) on a copy of the example library. The key travels in the
// Authorization header only (never printed, never in the library); a 429 is retried; a second run
// asks nothing; a refused key exits with MODEL_AUTH and its fix; the export carries the fields.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as prompts from '../../src/pipeline/cot/prompts';
import { runCli } from '../helpers/cli';
import { upstreamFlow } from '../helpers/cot-upstream';
import { REPO_ROOT } from '../helpers/paths';
import { copyExampleLibrary } from '../helpers/example-library';
import { fence, startOpenAiStub, type OpenAiStub, type StubRequest } from '../helpers/openai-stub';

const KEY = 'sk-cot-test-0123456789abcdef';
let stub: OpenAiStub;
let dir: string;
let id: string;
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'cot-cli-'));

function answer(req: StubRequest) {
  const t = req.promptText;
  if (t.startsWith('Your task is to generate three components')) {
    return {
      text: `## Observation:\nA window.\n\n## Thought:\nI go on (request ${req.index}).\n\n## Action:\nClick it.`,
    };
  }
  if (t.startsWith('You are an judge')) {
    return {
      text: fence({
        last_step_correct: true,
        last_step_redundant: false,
        reflection: 'It worked.',
      }),
    };
  }
  return {
    text: JSON.stringify({
      task_completed: true,
      alignment_score: 9,
      efficiency_score: 8,
      reason: 'ok',
      actual_task: 'Change the display settings',
      natural_language_task: 'Change my display settings',
      task_difficulty: 4,
    }),
  };
}

beforeAll(async () => {
  stub = await startOpenAiStub({ apiKey: KEY, models: ['stub-model'] });
  stub.fallback(answer);
  dir = path.join(root, 'lib');
  id = await copyExampleLibrary(dir);
}, 240_000);
afterAll(async () => {
  await stub?.close();
  fs.rmSync(root, { recursive: true, force: true });
});

const cot = (args: string[], env: Record<string, string> = { OPENAI_API_KEY: KEY }) =>
  runCli(
    ['cot', id, '--model', 'stub-model', '--base-url', stub.baseUrl, '--library', dir, ...args],
    {
      OPENAI_API_KEY: '',
      CUA_COT_API_KEY: '',
      ...env,
    },
  );

describe('cot (CLI)', () => {
  it('--help', async () => {
    const r = await runCli(['cot', '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Usage: cua-annotator cot <id…> --model NAME');
  });

  it('a refused key: MODEL_AUTH with its fix, the key never shown', async () => {
    const r = await cot(['--json'], { OPENAI_API_KEY: 'sk-wrong-key-000000000000' });
    expect(r.code).not.toBe(0);
    const all = r.stdout + r.stderr;
    expect(all).toContain('MODEL_AUTH');
    expect(all).not.toContain('sk-wrong-key-000000000000');
  }, 120_000);

  it('runs every step through the stub, retries a 429, stores the results; a second run asks nothing', async () => {
    stub.script({ status: 429, body: { error: { message: 'slow down' } }, retryAfter: '0' });
    const before = stub.requests.length;
    const r = await cot(['--json']);
    expect(r.stderr).not.toContain(KEY);
    expect(r.stdout).not.toContain(KEY);
    expect(r.code, r.stderr).toBe(0);
    const result = JSON.parse(r.stdout) as {
      recordings: {
        ok: boolean;
        totalSteps: number;
        generatedSteps: number;
        isSummaryGenerated: boolean;
      }[];
      calls: number;
      retries: number;
    };
    const [rec] = result.recordings;
    expect(rec).toMatchObject({
      ok: true,
      generatedSteps: rec!.totalSteps,
      isSummaryGenerated: true,
    });
    expect(result.retries).toBe(1);
    expect(result.calls).toBe(2 * rec!.totalSteps);
    const sent = stub.requests.slice(before);
    expect(sent.every((q) => q.headers.authorization === `Bearer ${KEY}`)).toBe(true);
    expect(sent.every((q) => q.body?.temperature === 0 && q.body.model === 'stub-model')).toBe(
      true,
    );
    // the key is in no file of the library
    for (const f of fs.readdirSync(dir)) {
      const p = path.join(dir, f);
      if (fs.statSync(p).isFile()) {
        expect(fs.readFileSync(p).includes(KEY), f).toBe(false);
      }
    }

    const again = await cot(['--json']);
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({
      calls: 0,
      recordings: [{ ok: true, generatedSteps: 0, isSummaryGenerated: false }],
    });

    const out = path.join(root, 'export');
    const e = await runCli([
      'export',
      id,
      '--format',
      'agentnet-jsonl',
      '--out',
      out,
      '--library',
      dir,
    ]);
    expect(e.code, e.stderr).toBe(0);
    const record = JSON.parse(fs.readFileSync(path.join(out, 'agentnet.jsonl'), 'utf8')) as {
      alignment_score: number;
      traj: { value: { observation: string; thought: string; reflection: string } }[];
    };
    expect(record.alignment_score).toBe(9);

    // the texts that went over HTTP are upstream's, byte for byte: tests/helpers/cot-upstream.py
    // runs gen_cot.py's flow in Python on the export's cot-input line with the same answers
    const [inputFile] = fs.readdirSync(path.join(out, 'cot-input'));
    const input = JSON.parse(fs.readFileSync(path.join(out, 'cot-input', inputFile!), 'utf8')) as {
      instruction: string;
      traj: { value: { code: string } }[];
    };
    const answered = sent.slice(1); // the first was answered 429 and sent again
    const [expected] = upstreamFlow([
      {
        templates: { ...prompts },
        goal: input.instruction,
        steps: input.traj.map((t) => ({ code: t.value.code, judge: null })),
        answers: answered.map((q) => answer(q).text),
      },
    ]);
    expect(answered.map((q) => q.promptText)).toEqual(expected);
    expect(record.traj.every((s) => s.value.observation === 'A window.')).toBe(true);
    expect(record.traj.slice(0, -1).every((s) => s.value.reflection === 'It worked.')).toBe(true);
  }, 240_000);

  it('--max-cost: MODEL_COST_LIMIT before the call that would go over; finished steps kept, the next run pays only for the rest', async () => {
    const dir3 = path.join(root, 'lib3');
    const id3 = await copyExampleLibrary(dir3);
    const args = ['cot', id3, '--model', 'stub-model', '--base-url', stub.baseUrl];
    const env = { OPENAI_API_KEY: KEY, CUA_COT_API_KEY: '' };
    // every answer reports 1,000 prompt tokens: at 1 per million tokens, 0.001 a call
    stub.fallback((req) => ({
      ...answer(req),
      usage: { prompt_tokens: 1000, completion_tokens: 0 },
    }));
    try {
      const before = stub.requests.length;
      const capped = await runCli(
        [...args, '--library', dir3, '--json', '--max-cost', '0.0045'].concat([
          '--price-in',
          '1',
          '--price-out',
          '1',
        ]),
        env,
      );
      expect(capped.code).toBe(1);
      // 4 calls cost 0.004 (< 0.0045, so a 5th is sent); 5 cost 0.005, so the 6th is refused:
      // steps 0 and 1 whole, step 2's generator answered but not its reflector
      expect(stub.requests.length - before).toBe(5);
      const result = JSON.parse(capped.stdout) as { cost: number };
      expect(result).toMatchObject({
        calls: 5,
        promptTokens: 5000,
        completionTokens: 0,
        recordings: [{ ok: false, code: 'MODEL_COST_LIMIT' }],
      });
      expect(result.cost).toBeCloseTo(0.005, 9);

      const rest = await runCli([...args, '--library', dir3, '--json'], env);
      expect(rest.code, rest.stderr).toBe(0);
      const done = JSON.parse(rest.stdout) as {
        calls: number;
        recordings: { totalSteps: number }[];
      };
      const total = done.recordings[0]!.totalSteps;
      expect(done.recordings[0]).toMatchObject({
        ok: true,
        reusedSteps: 2,
        generatedSteps: total - 2,
        isSummaryGenerated: true,
      });
      // 2 calls per step, none to reflect on the last, 1 summary: 2·total in all, 4 paid before
      expect(done.calls).toBe(2 * total - 4);
    } finally {
      stub.fallback(answer);
    }
  }, 240_000);

  it('--rpm 2: the third request waits for the minute to pass (the limit reaches the gate)', async () => {
    const dir4 = path.join(root, 'lib4');
    const id4 = await copyExampleLibrary(dir4);
    const start = stub.requests.length;
    const child = spawn(
      process.execPath,
      [path.join(REPO_ROOT, 'bin', 'cua-annotator.mjs')].concat(
        ['cot', id4, '--model', 'stub-model', '--base-url', stub.baseUrl],
        ['--library', dir4, '--rpm', '2'],
      ),
      { env: { ...process.env, OPENAI_API_KEY: KEY, CUA_COT_API_KEY: '' }, stdio: 'ignore' },
    );
    try {
      await expect
        .poll(() => stub.requests.length - start, { timeout: 120_000, interval: 100 })
        .toBe(2);
      const second = stub.requests.at(-1)!;
      await expect.poll(() => second.endMs, { timeout: 30_000, interval: 50 }).toBeDefined();
      // without the limit step 1's generator follows within a second or two; with it, ~60 s
      await new Promise((r) => setTimeout(r, 5000));
      expect(stub.requests.length - start).toBe(2);
    } finally {
      child.kill('SIGKILL');
      await new Promise((r) => child.on('close', r));
    }
  }, 240_000);

  it('killed (SIGKILL) while step 7 is asked: the next run asks from step 7, none of 0–6 again', async () => {
    const dir2 = path.join(root, 'lib2');
    const id2 = await copyExampleLibrary(dir2);
    const args = [
      'cot',
      id2,
      '--model',
      'stub-model',
      '--base-url',
      stub.baseUrl,
      '--library',
      dir2,
    ];
    const env = { ...process.env, OPENAI_API_KEY: KEY, CUA_COT_API_KEY: '' };
    const start = stub.requests.length;
    // steps 0–6 are 14 requests; the 15th (step 7's generator) never answers before the kill
    stub.when((q) => q.index === start + 14, { hang: true }, 1);
    const child = spawn(
      process.execPath,
      [path.join(REPO_ROOT, 'bin', 'cua-annotator.mjs'), ...args],
      {
        env,
        stdio: 'ignore',
      },
    );
    await expect
      .poll(() => stub.requests.length - start, { timeout: 120_000, interval: 100 })
      .toBe(15);
    child.kill('SIGKILL');
    await new Promise((r) => child.on('close', r));
    const first = stub.requests.slice(start).map((q) => q.promptText);

    const before = stub.requests.length;
    const r = await runCli([...args, '--json'], { OPENAI_API_KEY: KEY, CUA_COT_API_KEY: '' });
    expect(r.code, r.stderr).toBe(0);
    const outcome = JSON.parse(r.stdout) as {
      recordings: { reusedSteps: number; generatedSteps: number; totalSteps: number }[];
    };
    expect(outcome.recordings[0]).toMatchObject({ reusedSteps: 7 });
    const again = stub.requests.slice(before).map((q) => q.promptText);
    // no request of the first run but the one cut off is sent again
    const repeated = again.filter((t) => first.slice(0, 14).includes(t));
    expect(repeated).toEqual([]);
    expect(again[0]).toBe(first[14]);
    expect(again.filter((t) => t.includes('"task_completed": bool'))).toHaveLength(1);
  }, 240_000);
});
