// A real HTTP server speaking OpenAI's chat-completions API with scripted answers, for the model
// client's and the CoT pipeline's tests and the CoT benchmark (no paid model anywhere).
//
//   const stub = await startOpenAiStub({ latencyMs: 300 });
//   stub.script({ text: 'Observation: …' }, { status: 429, retryAfter: '1' }, { hang: true });
//   stub.when(/reflection/, { text: fence({ last_step_correct: true }) });
//   … client with baseUrl stub.baseUrl …
//   stub.requests[0].promptText, stub.requests[0].images[0] (the JPEG bytes sent)
//   await stub.close();
//
// Which answer a request gets: the first matching rule (`when`) that has uses left, else the
// next scripted answer (`script`, by call order), else the fallback (`fallback`, default
// `{ text: 'ok' }`). Every request is recorded whole (body, headers, decoded images, start and
// end times, concurrency seen).

import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** An answer the stub gives. */
export type StubReply =
  /** 200 with a chat completion whose first choice's content is `text`. */
  | {
      text: string;
      usage?: { prompt_tokens: number; completion_tokens: number } | null;
      finishReason?: string;
      latencyMs?: number;
    }
  /** Any status with a JSON or text body (an error: 401, 404, 429, 500, …). */
  | {
      status: number;
      body?: unknown;
      retryAfter?: string;
      headers?: Record<string, string>;
      latencyMs?: number;
    }
  /** 200 with this body as is: a malformed answer (HTML, truncated JSON, no choices). */
  | { raw: string; contentType?: string; latencyMs?: number }
  /** Never answers (the client's timeout or abort ends it; close() drops it). */
  | { hang: true }
  /** Drops the connection without an answer. */
  | { reset: true };

/** One request as the stub received it. */
export interface StubRequest {
  index: number;
  path: string;
  headers: http.IncomingHttpHeaders;
  /** The exact bytes of the body. */
  rawBody: string;
  /** The body parsed (undefined when it was not JSON). */
  body: ChatBody | undefined;
  /** Every text part of every message, in order, joined with "\n" (string contents included). */
  promptText: string;
  /** The decoded bytes of every data-URL image, in order. */
  images: Buffer[];
  /** Their data URLs as sent. */
  imageUrls: string[];
  startMs: number;
  endMs?: number;
  /** Requests in flight when this one arrived, itself included. */
  inFlightAtStart: number;
}

interface ChatBody {
  model?: string;
  messages?: { role: string; content: unknown }[];
  temperature?: number;
  max_tokens?: number;
  response_format?: unknown;
}

export interface StubRule {
  match: RegExp | ((req: StubRequest) => boolean);
  reply: StubReply | ((req: StubRequest) => StubReply);
  /** How many requests it answers (default unlimited). */
  times?: number;
}

export interface OpenAiStubOptions {
  /** Added before every answer (default 0). */
  latencyMs?: number;
  /** When set, requests without `Authorization: Bearer <key>` get 401 (the key echoed back,
   * masked as OpenAI does, so tests can check the client never shows it). */
  apiKey?: string;
  /** When set, other model names get 404 model_not_found. */
  models?: string[];
}

export interface OpenAiStub {
  /** The API root to give the client (http://127.0.0.1:<port>/v1). */
  readonly baseUrl: string;
  readonly requests: StubRequest[];
  /** The most requests in flight at once so far. */
  readonly maxInFlight: number;
  script(...replies: StubReply[]): void;
  when(match: StubRule['match'], reply: StubRule['reply'], times?: number): void;
  fallback(reply: StubReply | ((req: StubRequest) => StubReply)): void;
  setLatency(ms: number): void;
  close(): Promise<void>;
}

/** A model answer wrapped in a ```json fence, as chat models often write it. */
export function fence(value: unknown): string {
  return '```json\n' + JSON.stringify(value, null, 2) + '\n```';
}

/** Token counts the stub reports when a reply gives none: about 4 characters a token for text,
 * and OpenAI's published count for a high-detail image (fit in 2048×2048, shortest side down to
 * 768, then 170 per 512-px tile plus 85); 765 for an image whose size cannot be read. */
export function stubUsage(
  req: StubRequest,
  text: string,
): { prompt_tokens: number; completion_tokens: number } {
  const images = req.images.reduce((sum, bytes) => sum + imageTokens(jpegSize(bytes)), 0);
  return {
    prompt_tokens: Math.ceil(req.promptText.length / 4) + images,
    completion_tokens: Math.ceil(text.length / 4),
  };
}

/** OpenAI's high-detail image token count for a width × height image. */
export function imageTokens(size: { width: number; height: number } | undefined): number {
  if (!size) {
    return 765;
  }
  let { width, height } = size;
  const fit = Math.min(1, 2048 / Math.max(width, height));
  width *= fit;
  height *= fit;
  const shrink = Math.min(1, 768 / Math.min(width, height));
  width *= shrink;
  height *= shrink;
  return 85 + 170 * Math.ceil(width / 512) * Math.ceil(height / 512);
}

/** A JPEG's size from its first start-of-frame marker (undefined when not a JPEG). */
export function jpegSize(bytes: Buffer): { width: number; height: number } | undefined {
  if (bytes.length < 4 || bytes[0] !== 0xff || bytes[1] !== 0xd8) {
    return undefined;
  }
  let i = 2;
  while (i + 9 < bytes.length) {
    if (bytes[i] !== 0xff) {
      return undefined;
    }
    const marker = bytes[i + 1]!;
    const length = bytes.readUInt16BE(i + 2);
    // SOF0–SOF15 except DHT (C4), JPG (C8) and DAC (CC)
    if (marker >= 0xc0 && marker <= 0xcf && ![0xc4, 0xc8, 0xcc].includes(marker)) {
      return { height: bytes.readUInt16BE(i + 5), width: bytes.readUInt16BE(i + 7) };
    }
    i += 2 + length;
  }
  return undefined;
}

export async function startOpenAiStub(options: OpenAiStubOptions = {}): Promise<OpenAiStub> {
  let latencyMs = options.latencyMs ?? 0;
  const scripted: StubReply[] = [];
  const rules: StubRule[] = [];
  let fallbackReply: StubReply | ((req: StubRequest) => StubReply) = { text: 'ok' };
  const requests: StubRequest[] = [];
  const sockets = new Set<Socket>();
  let inFlight = 0;
  let maxInFlight = 0;
  let completions = 0;

  const choose = (req: StubRequest): StubReply => {
    const rule = rules.find(
      (r) =>
        (r.times === undefined || r.times > 0) &&
        (r.match instanceof RegExp ? r.match.test(req.promptText) : r.match(req)),
    );
    if (rule) {
      if (rule.times !== undefined) {
        rule.times -= 1;
      }
      return typeof rule.reply === 'function' ? rule.reply(req) : rule.reply;
    }
    const next = scripted.shift();
    if (next) {
      return next;
    }
    return typeof fallbackReply === 'function' ? fallbackReply(req) : fallbackReply;
  };

  const server = http.createServer((request, response) => {
    inFlight += 1;
    maxInFlight = Math.max(maxInFlight, inFlight);
    const inFlightAtStart = inFlight;
    const startMs = performance.now();
    let done = false;
    const finish = (): void => {
      if (done) {
        return;
      }
      done = true;
      inFlight -= 1;
    };
    response.on('close', finish);
    const chunks: Buffer[] = [];
    request.on('data', (c: Buffer) => chunks.push(c));
    request.on('end', () => {
      const rawBody = Buffer.concat(chunks).toString('utf8');
      let body: ChatBody | undefined;
      try {
        body = JSON.parse(rawBody) as ChatBody;
      } catch {
        body = undefined;
      }
      const { promptText, imageUrls } = readMessages(body);
      const req: StubRequest = {
        index: requests.length,
        path: request.url ?? '',
        headers: request.headers,
        rawBody,
        body,
        promptText,
        imageUrls,
        images: imageUrls.map(decodeDataUrl),
        startMs,
        inFlightAtStart,
      };
      requests.push(req);
      const reply = gatekeep(req) ?? choose(req);
      const send = (status: number, headers: Record<string, string>, text: string): void => {
        req.endMs = performance.now();
        response.writeHead(status, { 'content-length': Buffer.byteLength(text), ...headers });
        response.end(text);
      };
      const answer = (): void => {
        if ('hang' in reply) {
          return;
        }
        if ('reset' in reply) {
          request.socket.destroy();
          return;
        }
        if ('raw' in reply) {
          send(200, { 'content-type': reply.contentType ?? 'text/html' }, reply.raw);
          return;
        }
        if ('status' in reply) {
          const text =
            typeof reply.body === 'string'
              ? reply.body
              : JSON.stringify(reply.body ?? { error: { message: `stub status ${reply.status}` } });
          send(
            reply.status,
            {
              'content-type': 'application/json',
              ...(reply.retryAfter !== undefined ? { 'retry-after': reply.retryAfter } : {}),
              ...reply.headers,
            },
            text,
          );
          return;
        }
        completions += 1;
        const usage = reply.usage === undefined ? stubUsage(req, reply.text) : reply.usage;
        send(
          200,
          { 'content-type': 'application/json' },
          JSON.stringify({
            id: `chatcmpl-stub-${completions}`,
            object: 'chat.completion',
            created: Math.floor(Date.now() / 1000),
            model: body?.model ?? 'stub',
            choices: [
              {
                index: 0,
                message: { role: 'assistant', content: reply.text },
                finish_reason: reply.finishReason ?? 'stop',
              },
            ],
            ...(usage
              ? { usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens } }
              : {}),
          }),
        );
      };
      const wait =
        'latencyMs' in reply && reply.latencyMs !== undefined ? reply.latencyMs : latencyMs;
      if (wait > 0) {
        setTimeout(answer, wait);
      } else {
        answer();
      }
    });
  });

  /** The checks a real endpoint makes before the model runs: path, key, model. */
  const gatekeep = (req: StubRequest): StubReply | undefined => {
    if (req.path !== '/v1/chat/completions') {
      return { status: 404, body: { error: { message: `no route ${req.path}`, code: null } } };
    }
    if (options.apiKey !== undefined && req.headers.authorization !== `Bearer ${options.apiKey}`) {
      const sent = (req.headers.authorization ?? '').replace(/^Bearer /, '');
      const masked = sent ? `${sent.slice(0, 8)}****${sent.slice(-4)}` : '';
      return {
        status: 401,
        body: {
          error: {
            message: `Incorrect API key provided: ${masked || 'none'}. (full: ${sent})`,
            type: 'invalid_request_error',
            code: 'invalid_api_key',
          },
        },
      };
    }
    if (options.models && !options.models.includes(req.body?.model ?? '')) {
      return {
        status: 404,
        body: {
          error: {
            message: `The model \`${req.body?.model}\` does not exist`,
            code: 'model_not_found',
          },
        },
      };
    }
    return undefined;
  };

  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;

  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    get maxInFlight() {
      return maxInFlight;
    },
    script: (...replies) => scripted.push(...replies),
    when: (match, reply, times) => rules.push({ match, reply, times }),
    fallback: (reply) => {
      fallbackReply = reply;
    },
    setLatency: (ms) => {
      latencyMs = ms;
    },
    close: async () => {
      for (const s of sockets) {
        s.destroy();
      }
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function readMessages(body: ChatBody | undefined): { promptText: string; imageUrls: string[] } {
  const texts: string[] = [];
  const imageUrls: string[] = [];
  for (const message of body?.messages ?? []) {
    const parts = typeof message.content === 'string' ? [message.content] : message.content;
    for (const part of Array.isArray(parts) ? parts : [parts]) {
      if (typeof part === 'string') {
        texts.push(part);
      } else if (part && typeof part === 'object') {
        const p = part as { type?: string; text?: string; image_url?: { url?: string } };
        if (p.type === 'text' && typeof p.text === 'string') {
          texts.push(p.text);
        }
        if (p.type === 'image_url' && typeof p.image_url?.url === 'string') {
          imageUrls.push(p.image_url.url);
        }
      }
    }
  }
  return { promptText: texts.join('\n'), imageUrls };
}

function decodeDataUrl(url: string): Buffer {
  const m = /^data:[^;,]*;base64,(.*)$/s.exec(url);
  return m ? Buffer.from(m[1]!, 'base64') : Buffer.alloc(0);
}
