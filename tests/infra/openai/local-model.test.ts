// The CoT plumbing end to end with a real local model runtime, no download: the test writes a
// tiny random-weight llama GGUF (tests/helpers/tiny-gguf.ts), node-llama-cpp's prebuilt CPU
// binary loads it behind a small OpenAI-compatible endpoint (tests/helpers/llama-chat-server.ts),
// and the model client (src/infra/openai) calls it with an upstream-shaped request (text + JPEG
// data URL, temperature 0) and a JSON schema, so the noise the model writes still parses.
// It proves the wiring, not the quality.

import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import jpeg from 'jpeg-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOpenAiChatClient } from '../../../src/infra/openai/chat-client';
import { createRequestGate } from '../../../src/infra/openai/gate';
import type { ChatRequest } from '../../../src/infra/openai/types';
import { startLlamaChatServer, type LlamaChatServer } from '../../helpers/llama-chat-server';
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

let dir: string;
let server: LlamaChatServer;
let modelBytes: number;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cot-llama-'));
  const path = join(dir, 'tiny-random-llama.gguf');
  modelBytes = writeTinyGguf(path);
  expect(statSync(path).size).toBe(modelBytes);
  server = await startLlamaChatServer(path);
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
});
