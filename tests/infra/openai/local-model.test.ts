// The CoT plumbing end to end with a real local model runtime, no download: the test writes a
// tiny random-weight llama GGUF (tests/helpers/tiny-gguf.ts), node-llama-cpp's prebuilt CPU
// binary loads it behind a small OpenAI-compatible endpoint (tests/helpers/llama-chat-server.ts),
// and the model client (src/infra/openai) calls it with an upstream-shaped request (text + JPEG
// data URL, temperature 0) and a JSON schema, so the noise the model writes still parses.
// The second case runs the pipeline's own runner (src/pipeline/cot/run.ts) on a two-step
// trajectory against it: upstream's prompts, cue images and parsing, with grammars standing in for
// the instructions a real model would follow. It proves the wiring, not the quality.

import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import jpeg from 'jpeg-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOpenAiChatClient } from '../../../src/infra/openai/chat-client';
import { createRequestGate } from '../../../src/infra/openai/gate';
import type { ChatRequest } from '../../../src/shared/chat';
import type { RgbImage } from '../../../src/pipeline/cot/cue';
import { runCot, type CotStepResult, type CotSummaryResult } from '../../../src/pipeline/cot/run';
import {
  startLlamaChatServer,
  type GrammarChoice,
  type LlamaChatServer,
} from '../../helpers/llama-chat-server';
import { writeTinyGguf } from '../../helpers/tiny-gguf';

// upstream's reflector answer (module/reflector.py reads these three fields)
const REFLECTION_SCHEMA = {
  type: 'object',
  properties: {
    last_step_correct: { type: 'boolean' },
    last_step_redundant: { type: 'boolean' },
    reflection: { enum: ['The click opened the menu.', 'Nothing changed.'] },
  },
  required: ['last_step_correct', 'last_step_redundant', 'reflection'],
} as const;

// what upstream's prompts ask for in words, as grammars: the generator's three sections, the
// reflector's JSON, the summarizer's JSON (short closed vocabularies keep answers finite)
const WORDS = '[a-z] [a-z ]{2,24} [a-z]';
const SECTIONS_GBNF =
  `root ::= "## Observation:\\n" ${WORDS} "\\n\\n## Thought:\\n" ${WORDS} ` +
  `"\\n\\n## Action:\\n" ${WORDS}`;
const SUMMARY_SCHEMA = {
  type: 'object',
  properties: {
    task_completed: { type: 'boolean' },
    alignment_score: { enum: [7, 8, 9] },
    efficiency_score: { enum: [7, 8, 9] },
    reason: { enum: ['Every step served the goal.'] },
    actual_task: { enum: ['Open the menu.'] },
    natural_language_task: { enum: ['Could you open the menu?'] },
    task_difficulty: { enum: [1, 2, 3] },
  },
  required: [
    'task_completed',
    'alignment_score',
    'efficiency_score',
    'reason',
    'actual_task',
    'natural_language_task',
    'task_difficulty',
  ],
};

function cotGrammar(prompt: string): GrammarChoice | undefined {
  if (prompt.includes('## Observation')) {
    return { gbnf: SECTIONS_GBNF };
  }
  if (prompt.includes('"last_step_correct": bool')) {
    return { schema: REFLECTION_SCHEMA };
  }
  if (prompt.includes('"task_completed": bool')) {
    return { schema: SUMMARY_SCHEMA };
  }
  return undefined;
}

let dir: string;
let server: LlamaChatServer;
let modelBytes: number;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cot-llama-'));
  const path = join(dir, 'tiny-random-llama.gguf');
  modelBytes = writeTinyGguf(path);
  expect(statSync(path).size).toBe(modelBytes);
  server = await startLlamaChatServer(path, { grammarFor: cotGrammar });
}, 120_000);

afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

function frame(): string {
  const width = 32;
  const height = 24;
  const data = Buffer.alloc(width * height * 4);
  for (let i = 0; i < width * height; i += 1) {
    data.set([200, 30, 30, 255], i * 4);
  }
  return `data:image/jpeg;base64,${jpeg.encode({ data, width, height }, 75).data.toString('base64')}`;
}

describe('a real local model behind the OpenAI-compatible client', () => {
  it('the hand-written GGUF is a few hundred KB', () => {
    expect(modelBytes).toBeGreaterThan(100_000);
    expect(modelBytes).toBeLessThan(1_000_000);
  });

  it('answers an upstream-shaped request with JSON that parses to the schema, with usage', async () => {
    const client = createOpenAiChatClient({
      baseUrl: server.baseUrl,
      model: 'tiny-random-llama',
      env: {},
      timeoutMs: 60_000,
      retry: { maxAttempts: 1 },
      gate: createRequestGate({ concurrency: 1, requestsPerMinute: 0 }),
    });
    const image = frame();
    const req: ChatRequest = {
      messages: [
        {
          role: 'user',
          content: [
            {
              type: 'text',
              text: 'Did the last click do what the thought intended? Answer in JSON.',
            },
            { type: 'image_url', image_url: { url: image, detail: 'high' } },
          ],
        },
      ],
      temperature: 0,
      maxTokens: 120,
      responseFormat: {
        type: 'json_schema',
        json_schema: { name: 'reflection', schema: REFLECTION_SCHEMA, strict: true },
      },
    };
    const first = await client.complete(req);
    const parsed = JSON.parse(first.text) as Record<string, unknown>;
    expect(Object.keys(parsed).sort()).toEqual([
      'last_step_correct',
      'last_step_redundant',
      'reflection',
    ]);
    expect(typeof parsed.last_step_correct).toBe('boolean');
    expect(typeof parsed.last_step_redundant).toBe('boolean');
    expect(REFLECTION_SCHEMA.properties.reflection.enum).toContain(parsed.reflection);
    expect(first.usage.promptTokens).toBeGreaterThan(10);
    expect(first.usage.completionTokens).toBeGreaterThan(5);
    // the runtime got the prompt text and the JPEG bytes the client sent
    expect(server.seen[0]).toEqual({
      promptText: 'Did the last click do what the thought intended? Answer in JSON.',
      imageBytes: [Buffer.from(image.split(',')[1]!, 'base64').length],
      model: 'tiny-random-llama',
    });
    // temperature 0: the same request gives the same answer
    const second = await client.complete(req);
    expect(second.text).toBe(first.text);
    expect(client.stats()).toMatchObject({ calls: 2, attempts: 2, retries: 0 });
  }, 120_000);

  it('the CoT runner completes a two-step trajectory against it, answers parsed and stored', async () => {
    const client = createOpenAiChatClient({
      baseUrl: server.baseUrl,
      model: 'tiny-random-llama',
      env: {},
      timeoutMs: 120_000,
      retry: { maxAttempts: 1 },
      gate: createRequestGate({ concurrency: 1, requestsPerMinute: 0 }),
    });
    const before = server.seen.length;
    const screen: RgbImage = {
      width: 640,
      height: 400,
      rgb: new Uint8Array(640 * 400 * 3).fill(180),
    };
    const steps: CotStepResult[] = [];
    const summaries: CotSummaryResult[] = [];
    const outcome = await runCot(
      {
        goal: 'Open the menu',
        steps: [
          { index: 0, code: 'pyautogui.click(x=0.5, y=0.5)', mark: null, inputSha256: 'a' },
          { index: 1, code: "computer.terminate(status='success')", mark: null, inputSha256: 'b' },
        ],
        stored: new Map(),
        storedSummary: null,
        summaryInputSha256: 's',
      },
      {
        client,
        image: () => Promise.resolve(screen),
        saveStep: (step) => steps.push(step),
        saveSummary: (summary) => summaries.push(summary),
      },
    );
    // generator, reflector, generator (the last step has no reflector), summarizer
    expect(outcome).toMatchObject({ generatedSteps: 2, isSummaryGenerated: true });
    expect(outcome.usage.calls).toBe(4);
    expect(server.seen.length - before).toBe(4);
    // the cued screenshot and the 300-px patch went with the first generator call
    expect(server.seen[before]!.imageBytes).toHaveLength(2);
    expect(steps.map((s) => s.index)).toEqual([0, 1]);
    for (const step of steps) {
      for (const text of [step.observation, step.thought, step.action]) {
        expect(text).toMatch(/^[a-z][a-z ]{2,24}[a-z]$/);
      }
    }
    expect(typeof steps[0]!.lastStepCorrect).toBe('boolean');
    expect(REFLECTION_SCHEMA.properties.reflection.enum).toContain(steps[0]!.reflection);
    expect(steps[0]!.verdictSource).toBe('model');
    expect(summaries).toHaveLength(1);
    expect(Object.keys(summaries[0]!.fields).sort()).toEqual([...SUMMARY_SCHEMA.required].sort());
  }, 240_000);
});
