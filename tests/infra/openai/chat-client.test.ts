// The OpenAI-compatible client against a real HTTP stub (tests/helpers/openai-stub.ts): request
// shape, retries and their waits, Retry-After, timeouts, malformed answers, the shared
// concurrency and per-minute limits, token accounting and the cost stop, coded errors and the key
// never shown.

import jpeg from 'jpeg-js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createOpenAiChatClient,
  type OpenAiChatClientOptions,
  type RetryInfo,
} from '../../../src/infra/openai/chat-client';
import { createRequestGate } from '../../../src/infra/openai/gate';
import type { ChatRequest } from '../../../src/shared/chat';
import type { ChatClient } from '../../../src/pipeline/cot/types';
import { AppError } from '../../../src/shared/errors';
import {
  fence,
  imageTokens,
  jpegSize,
  startOpenAiStub,
  type OpenAiStub,
} from '../../helpers/openai-stub';

const KEY = 'sk-test-0123456789abcdefghijklmnopqrstuv';
const JPEG = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0xff, 0xd9]);

let stub: OpenAiStub;
beforeEach(async () => {
  stub = await startOpenAiStub({ apiKey: KEY, models: ['vision-1'] });
});
afterEach(async () => {
  await stub.close();
});

/** A client with fast retries and its own gate (the shared one is tested on its own). */
function client(over: Partial<OpenAiChatClientOptions> = {}) {
  return createOpenAiChatClient({
    baseUrl: stub.baseUrl,
    model: 'vision-1',
    env: { OPENAI_API_KEY: KEY },
    retry: { maxAttempts: 4, baseDelayMs: 20, maxDelayMs: 200 },
    gate: createRequestGate({ concurrency: 4, requestsPerMinute: 0 }),
    ...over,
  });
}

const request = (text = 'Describe the screen.'): ChatRequest => ({
  messages: [
    {
      role: 'user',
      content: [
        { type: 'text', text },
        {
          type: 'image_url',
          image_url: { url: `data:image/jpeg;base64,${JPEG.toString('base64')}`, detail: 'high' },
        },
      ],
    },
  ],
  temperature: 0,
});

async function failure(p: Promise<unknown>): Promise<AppError> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(AppError);
    return e as AppError;
  }
  throw new Error('expected the call to fail');
}

/** Everything a user could see of an error. */
const shown = (e: AppError): string =>
  [e.message, e.fix ?? '', JSON.stringify(e.details ?? {})].join('\n');

describe('OpenAI-compatible client against the stub', () => {
  it('fits the CoT pipeline’s ChatClient port (src/pipeline/cot/types.ts)', () => {
    const port: ChatClient = client();
    expect(typeof port.complete).toBe('function');
  });

  it('sends upstream’s request shape and returns the text and usage', async () => {
    stub.script({
      text: fence({ last_step_correct: true }),
      usage: { prompt_tokens: 812, completion_tokens: 31 },
    });
    const c = client();
    const result = await c.complete({ ...request(), maxTokens: 500 });
    expect(result).toEqual({
      text: '```json\n{\n  "last_step_correct": true\n}\n```',
      usage: { promptTokens: 812, completionTokens: 31 },
    });
    const [sent] = stub.requests;
    expect(sent!.path).toBe('/v1/chat/completions');
    expect(sent!.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(sent!.body).toEqual({
      model: 'vision-1',
      messages: request().messages,
      temperature: 0,
      max_tokens: 500,
    });
    expect(sent!.promptText).toBe('Describe the screen.');
    expect(sent!.images).toEqual([JPEG]);
    expect(c.stats()).toMatchObject({
      calls: 1,
      attempts: 1,
      retries: 0,
      promptTokens: 812,
      completionTokens: 31,
    });
  });

  it('accepts a base URL with a trailing slash or the full path, and sends no key when none is set', async () => {
    await client({ baseUrl: `${stub.baseUrl}/`, env: { OPENAI_API_KEY: KEY } }).complete(request());
    await client({ baseUrl: `${stub.baseUrl}/chat/completions` }).complete(request());
    expect(stub.requests.map((r) => r.path)).toEqual([
      '/v1/chat/completions',
      '/v1/chat/completions',
    ]);
    const e = await failure(client({ env: {} }).complete(request()));
    expect(stub.requests[2]!.headers.authorization).toBeUndefined();
    expect(e.code).toBe('MODEL_AUTH');
    expect(e.fix).toMatch(/Set the API key in the environment variable OPENAI_API_KEY/);
  });

  it('refuses a base URL that is not http(s) or carries user:password, without showing it', () => {
    expect(() => client({ baseUrl: 'ftp://example.com/v1' })).toThrow(/must be http or https/);
    const e = (() => {
      try {
        client({ baseUrl: 'https://me:hunter2secret@example.com/v1' });
      } catch (err) {
        return err as AppError;
      }
      throw new Error('expected a refusal');
    })();
    expect(e.code).toBe('USAGE');
    expect(shown(e)).not.toContain('hunter2secret');
  });

  it('401: MODEL_AUTH at once, with a fix, and the key (which the server echoes) never shown', async () => {
    const wrong = 'sk-wrong-9876543210zyxwvutsrqponmlkjihg';
    const e = await failure(
      client({ env: { MY_KEY: wrong }, apiKeyEnv: 'MY_KEY' }).complete(request()),
    );
    expect(e.code).toBe('MODEL_AUTH');
    expect(e.fix).toMatch(/Check the key in MY_KEY/);
    expect(stub.requests).toHaveLength(1);
    // the server said it back in full and masked; the error keeps its words, not the key
    expect(shown(e)).toMatch(/Incorrect API key provided/);
    expect(shown(e)).not.toContain(wrong);
    expect(shown(e)).not.toContain(wrong.slice(0, 8));
    expect(shown(e)).not.toContain(wrong.slice(-8));
  });

  it('404: MODEL_NOT_FOUND at once for an unknown model or a wrong base URL', async () => {
    const model = await failure(client({ model: 'no-such-model' }).complete(request()));
    expect(model.code).toBe('MODEL_NOT_FOUND');
    expect(model.message).toMatch(/no-such-model/);
    expect(model.fix).toMatch(/--model .* --base-url/);
    const base = await failure(
      client({ baseUrl: stub.baseUrl.replace('/v1', '/v2/engines') }).complete(request()),
    );
    expect(base.code).toBe('MODEL_NOT_FOUND');
    expect(stub.requests).toHaveLength(2);
  });

  it('400 and other refusals: MODEL_REQUEST_REJECTED with the server’s words, not retried', async () => {
    stub.script({ status: 400, body: { error: { message: 'image_url is not supported' } } });
    const e = await failure(client().complete(request()));
    expect(e.code).toBe('MODEL_REQUEST_REJECTED');
    expect(e.message).toMatch(/image_url is not supported/);
    expect(stub.requests).toHaveLength(1);
  });

  it('5xx: retried with full-jitter waits inside their bounds, then answered', async () => {
    stub.script(
      { status: 500 },
      { status: 502, body: '<html>Bad gateway</html>' },
      { status: 503 },
    );
    const retries: RetryInfo[] = [];
    const c = client({
      retry: { maxAttempts: 5, baseDelayMs: 100, maxDelayMs: 300 },
      onRetry: (r) => retries.push(r),
    });
    const result = await c.complete(request());
    expect(result.text).toBe('ok');
    expect(stub.requests).toHaveLength(4);
    expect(retries.map((r) => [r.attempt, r.status, r.code])).toEqual([
      [1, 500, 'MODEL_SERVER_ERROR'],
      [2, 502, 'MODEL_SERVER_ERROR'],
      [3, 503, 'MODEL_SERVER_ERROR'],
    ]);
    // waits: [0,100), [0,200), [0,300) (cap); the gaps the server saw are at least those waits
    retries.forEach((r, i) => {
      expect(r.delayMs).toBeGreaterThanOrEqual(0);
      expect(r.delayMs).toBeLessThan(Math.min(300, 100 * 2 ** i));
      const gap = stub.requests[i + 1]!.startMs - stub.requests[i]!.endMs!;
      expect(gap).toBeGreaterThanOrEqual(r.delayMs - 5);
    });
    expect(c.stats()).toMatchObject({ calls: 1, attempts: 4, retries: 3 });
  });

  it('5xx on every attempt: MODEL_SERVER_ERROR after exactly maxAttempts requests', async () => {
    stub.fallback({ status: 500, body: { error: { message: 'overloaded' } } });
    const e = await failure(
      client({ retry: { maxAttempts: 3, baseDelayMs: 5 } }).complete(request()),
    );
    expect(e.code).toBe('MODEL_SERVER_ERROR');
    expect(e.message).toMatch(/500 on all 3 attempts: overloaded/);
    expect(stub.requests).toHaveLength(3);
  });

  it('429 with Retry-After: waits what the server asked (not the jitter), then answered', async () => {
    stub.script({ status: 429, retryAfter: '0.6' }, { status: 429, retryAfter: '0.3' });
    const retries: RetryInfo[] = [];
    const result = await client({ onRetry: (r) => retries.push(r) }).complete(request());
    expect(result.text).toBe('ok');
    expect(retries.map((r) => r.delayMs)).toEqual([600, 300]);
    const gaps = [1, 2].map((i) => stub.requests[i]!.startMs - stub.requests[i - 1]!.endMs!);
    expect(gaps[0]).toBeGreaterThanOrEqual(595);
    expect(gaps[1]).toBeGreaterThanOrEqual(295);
  });

  it('429 on every attempt: MODEL_RATE_LIMITED after the retries; a used-up quota is not retried', async () => {
    stub.fallback({ status: 429, retryAfter: '0' });
    const e = await failure(client().complete(request()));
    expect(e.code).toBe('MODEL_RATE_LIMITED');
    expect(e.fix).toMatch(/--concurrency|--rpm/);
    expect(stub.requests).toHaveLength(4);
    stub.fallback({
      status: 429,
      body: { error: { message: 'You exceeded your current quota', code: 'insufficient_quota' } },
    });
    const quota = await failure(client().complete(request()));
    expect(quota.code).toBe('MODEL_RATE_LIMITED');
    expect(quota.fix).toMatch(/Add credit/);
    expect(stub.requests).toHaveLength(5);
  });

  it('a hang: MODEL_TIMEOUT after each attempt’s time limit; a late answer after one hang is used', async () => {
    stub.script({ hang: true });
    const t0 = performance.now();
    const ok = await client({ timeoutMs: 300 }).complete(request());
    expect(ok.text).toBe('ok');
    expect(performance.now() - t0).toBeGreaterThanOrEqual(290);
    stub.fallback({ hang: true });
    const e = await failure(
      client({ timeoutMs: 200, retry: { maxAttempts: 2, baseDelayMs: 5 } }).complete(request()),
    );
    expect(e.code).toBe('MODEL_TIMEOUT');
    expect(e.message).toMatch(/did not answer within 0.2 s/);
    expect(stub.requests).toHaveLength(4);
  });

  it('a slow body counts against the time limit too', async () => {
    stub.script({ text: 'late', latencyMs: 600 });
    const e = await failure(
      client({ timeoutMs: 200, retry: { maxAttempts: 1 } }).complete(request()),
    );
    expect(e.code).toBe('MODEL_TIMEOUT');
  });

  it('malformed answers (HTML, truncated JSON, no choices, no content) are retried, then MODEL_BAD_RESPONSE', async () => {
    stub.script(
      { raw: '<html><body>Sign in to the proxy</body></html>' },
      { raw: '{"choices":[{"message":{"content":"cut', contentType: 'application/json' },
      { raw: '{"object":"chat.completion","choices":[]}', contentType: 'application/json' },
      { text: 'finally' },
    );
    expect((await client().complete(request())).text).toBe('finally');
    expect(stub.requests).toHaveLength(4);
    stub.fallback({
      raw: JSON.stringify({ choices: [{ message: { content: null, refusal: 'I cannot help' } }] }),
    });
    const e = await failure(
      client({ retry: { maxAttempts: 2, baseDelayMs: 1 } }).complete(request()),
    );
    expect(e.code).toBe('MODEL_BAD_RESPONSE');
    expect(e.message).toMatch(/refused: I cannot help/);
    expect(e.fix).toMatch(/OpenAI-compatible API root/);
  });

  it('a dropped connection and a closed port: retried, then MODEL_UNREACHABLE', async () => {
    stub.script({ reset: true });
    expect((await client().complete(request())).text).toBe('ok');
    const url = stub.baseUrl;
    await stub.close();
    const e = await failure(
      createOpenAiChatClient({
        baseUrl: url,
        model: 'vision-1',
        env: {},
        retry: { maxAttempts: 2, baseDelayMs: 1 },
        gate: createRequestGate({ concurrency: 1, requestsPerMinute: 0 }),
      }).complete(request()),
    );
    expect(e.code).toBe('MODEL_UNREACHABLE');
    expect(e.message).toMatch(/ECONNREFUSED/);
    stub = await startOpenAiStub(); // for afterEach
  });

  it('a cancelled call stops at once with ABORTED, waiting or in flight', async () => {
    stub.fallback({ hang: true });
    const ac = new AbortController();
    const c = client({ timeoutMs: 10_000 });
    const p = c.complete(request(), ac.signal);
    setTimeout(() => ac.abort(), 100);
    const t0 = performance.now();
    const e = await failure(p);
    expect(e.code).toBe('ABORTED');
    expect(performance.now() - t0).toBeLessThan(2000);
  });

  it('passes response_format through and returns fenced JSON as the model wrote it', async () => {
    stub.when(/reflect/, { text: fence({ reflection: 'fine' }) });
    const result = await client().complete({
      ...request('Please reflect on the step.'),
      responseFormat: { type: 'json_object' },
    });
    expect(stub.requests[0]!.body?.response_format).toEqual({ type: 'json_object' });
    expect(JSON.parse(result.text.replace(/^```json\n|\n```$/g, ''))).toEqual({
      reflection: 'fine',
    });
  });
});

describe('limits shared by every caller of an endpoint', () => {
  it('never has more than `concurrency` requests in flight, across two clients on one gate', async () => {
    stub.setLatency(80);
    const gate = createRequestGate({ concurrency: 3, requestsPerMinute: 0 });
    const a = client({ gate });
    const b = client({ gate });
    await Promise.all(
      Array.from({ length: 12 }, (_, i) => (i % 2 ? a : b).complete(request(`call ${i}`))),
    );
    expect(stub.requests).toHaveLength(12);
    expect(stub.maxInFlight).toBe(3);
  });

  it('a call cancelled while it waits for a slot leaves the queue without being sent', async () => {
    stub.setLatency(300);
    const gate = createRequestGate({ concurrency: 1, requestsPerMinute: 0 });
    const c = client({ gate });
    const first = c.complete(request('first'));
    const ac = new AbortController();
    const second = c.complete(request('second'), ac.signal);
    await new Promise((r) => setTimeout(r, 50));
    expect(gate.waiting).toBe(1);
    ac.abort();
    expect((await failure(second)).code).toBe('ABORTED');
    expect(gate.waiting).toBe(0);
    await first;
    expect(stub.requests.map((r) => r.promptText)).toEqual(['first']);
  });

  it('a retry’s wait frees the slot: another call is served while a 429 waits out Retry-After', async () => {
    const gate = createRequestGate({ concurrency: 1, requestsPerMinute: 0 });
    const c = client({ gate });
    stub.when(/first/, { status: 429, retryAfter: '0.5' }, 1);
    const first = c.complete(request('first'));
    await new Promise((r) => setTimeout(r, 100));
    const second = c.complete(request('second'));
    await Promise.all([first, second]);
    expect(stub.requests.map((r) => r.promptText)).toEqual(['first', 'second', 'first']);
    expect(stub.requests[1]!.endMs!).toBeLessThan(stub.requests[2]!.startMs);
  });

  it('the process-wide gate is the same for every client of one base URL', async () => {
    stub.setLatency(80);
    const shared = (): ReturnType<typeof client> =>
      createOpenAiChatClient({
        baseUrl: stub.baseUrl,
        model: 'vision-1',
        env: { OPENAI_API_KEY: KEY },
        concurrency: 2,
      });
    const clients = [shared(), shared(), shared()];
    await Promise.all(clients.flatMap((c) => [c.complete(request()), c.complete(request())]));
    expect(stub.requests).toHaveLength(6);
    expect(stub.maxInFlight).toBe(2);
  });

  it('starts no more than requestsPerMinute requests in any window (a 500 ms window here)', async () => {
    const windowMs = 500;
    const gate = createRequestGate({ concurrency: 16, requestsPerMinute: 4 }, { windowMs });
    const c = client({ gate });
    const t0 = performance.now();
    await Promise.all(Array.from({ length: 10 }, () => c.complete(request())));
    const starts = stub.requests.map((r) => r.startMs).sort((x, y) => x - y);
    for (let i = 4; i < starts.length; i += 1) {
      // the 5th start after any start is a window later (less the connection set-up's spread
      // between the gate's start and the server's arrival; unlimited, all 10 arrive within it)
      expect(starts[i]! - starts[i - 4]!).toBeGreaterThanOrEqual(windowMs - 100);
    }
    // 10 requests at 4 per window: the last starts in the third window
    expect(performance.now() - t0).toBeGreaterThanOrEqual(2 * windowMs - 15);
  });
});

describe('token accounting and the cost stop', () => {
  it('sums the usage fields, estimates the cost from the prices and stops before going over', async () => {
    stub.fallback({ text: 'ok', usage: { prompt_tokens: 100_000, completion_tokens: 10_000 } });
    // $2.50 in, $10 out per million: 0.25 + 0.10 = $0.35 a call; the limit is $1
    const c = client({ prices: { inputPerMillion: 2.5, outputPerMillion: 10 }, maxCost: 1 });
    for (let i = 0; i < 3; i += 1) {
      await c.complete(request());
    }
    expect(c.stats().cost).toBeCloseTo(1.05, 10);
    const e = await failure(c.complete(request()));
    expect(e.code).toBe('MODEL_COST_LIMIT');
    expect(e.fix).toMatch(/Raise --max-cost/);
    expect(e.details).toMatchObject({ calls: 3, promptTokens: 300_000, maxCost: 1 });
    expect(stub.requests).toHaveLength(3); // the fourth was never sent
  });

  it('counts calls without usage apart, and refuses a cost limit without prices', async () => {
    stub.script({ text: 'a', usage: null });
    const c = client();
    await c.complete(request());
    expect(c.stats()).toMatchObject({ calls: 1, callsWithoutUsage: 1, promptTokens: 0, cost: 0 });
    expect(() => client({ maxCost: 5 })).toThrow(/needs the model’s prices/);
  });
});

describe('the stub’s token estimate (the benchmark’s tokens per step)', () => {
  it.each([
    [1920, 1080, 1105], // 1365×768 → 3×2 tiles
    [300, 300, 255], // upstream's patch: one tile
    [4000, 1000, 765], // 2048×512 → 4×1 tiles
  ])('a %i×%i JPEG counts %i tokens', (width, height, tokens) => {
    const data = Buffer.alloc(width * height * 4, 128);
    const bytes = jpeg.encode({ data, width, height }, 50).data;
    expect(jpegSize(bytes)).toEqual({ width, height });
    expect(imageTokens(jpegSize(bytes))).toBe(tokens);
  });
});
