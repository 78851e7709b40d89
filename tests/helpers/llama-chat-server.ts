// A small OpenAI-compatible chat-completions endpoint over node-llama-cpp (its prebuilt CPU
// binary), for the CoT smoke test: a real local model runtime behind the same HTTP API the
// client speaks to paid providers. Text parts become the prompt (the tiny model sees no images;
// their data URLs are decoded and counted so the test can check they arrived); `response_format`
// json_schema becomes a llama.cpp grammar so the random-weight model's output parses.
// One request at a time (one context sequence); the chat history is reset for each.

import http from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  GeneralChatWrapper,
  getLlama,
  LlamaChatSession,
  type ChatHistoryItem,
  type Llama,
  type LlamaContext,
  type LlamaGrammar,
  type LlamaModel,
} from 'node-llama-cpp';

export interface LlamaChatServer {
  readonly baseUrl: string;
  /** What each request carried: its prompt text and the sizes of the images it sent. */
  readonly seen: { promptText: string; imageBytes: number[]; model: string }[];
  close(): Promise<void>;
}

interface Part {
  type?: string;
  text?: string;
  image_url?: { url?: string };
}

interface Body {
  model?: string;
  messages?: { role: string; content: string | Part[] }[];
  temperature?: number;
  max_tokens?: number;
  response_format?: { type?: string; json_schema?: { schema?: unknown } };
}

/** A grammar for a request without `response_format`: GBNF text or a JSON schema. */
export type GrammarChoice = { gbnf: string } | { schema: Record<string, unknown> };

export interface LlamaChatServerOptions {
  /** Picks a grammar from the prompt text when the request names no `response_format` (the CoT
   * runner sends none: upstream's prompts ask for sections or JSON in words). */
  grammarFor?: (promptText: string) => GrammarChoice | undefined;
  /** Tokens of context (default 16,384: upstream's prompts are ~8k characters, one token each
   * in the tiny vocabulary). */
  contextSize?: number;
}

export async function startLlamaChatServer(
  modelPath: string,
  options: LlamaChatServerOptions = {},
): Promise<LlamaChatServer> {
  const llama: Llama = await getLlama({ gpu: false, build: 'never' });
  const model: LlamaModel = await llama.loadModel({ modelPath });
  // one thread: on a loaded 2-core machine, more threads spin against each other (a 30-token
  // answer took 98 s with the default, 0.3 s with one)
  const context: LlamaContext = await model.createContext({
    contextSize: options.contextSize ?? 16_384,
    threads: 1,
    batchSize: 2048,
  });
  const session = new LlamaChatSession({
    contextSequence: context.getSequence(),
    chatWrapper: new GeneralChatWrapper(),
  });
  const seen: LlamaChatServer['seen'] = [];
  type Schema = Parameters<Llama['createGrammarForJsonSchema']>[0];
  const grammarOf = async (
    format: Body['response_format'],
    prompt: string,
  ): Promise<LlamaGrammar | undefined> => {
    // the schema comes from the request or the test; the grammar builder checks it
    if (format?.type === 'json_schema' && format.json_schema?.schema) {
      return llama.createGrammarForJsonSchema(format.json_schema.schema as Schema);
    }
    if (format?.type === 'json_object') {
      return llama.getGrammarFor('json');
    }
    const chosen = options.grammarFor?.(prompt);
    if (!chosen) {
      return undefined;
    }
    return 'gbnf' in chosen
      ? llama.createGrammar({ grammar: chosen.gbnf })
      : llama.createGrammarForJsonSchema(chosen.schema as Schema);
  };
  let queue: Promise<unknown> = Promise.resolve();

  const complete = async (body: Body): Promise<unknown> => {
    const history: ChatHistoryItem[] = [];
    let prompt = '';
    const imageBytes: number[] = [];
    const messages = body.messages ?? [];
    messages.forEach((m, i) => {
      const parts = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content;
      const text = parts
        .filter((p) => p.type === 'text')
        .map((p) => p.text ?? '')
        .join('\n');
      for (const p of parts) {
        const url = p.type === 'image_url' ? p.image_url?.url : undefined;
        const m64 = url ? /^data:[^;,]*;base64,(.*)$/s.exec(url) : null;
        if (m64) {
          imageBytes.push(Buffer.from(m64[1]!, 'base64').length);
        }
      }
      if (i === messages.length - 1 && m.role === 'user') {
        prompt = text;
      } else if (m.role === 'system') {
        history.push({ type: 'system', text });
      } else if (m.role === 'user') {
        history.push({ type: 'user', text });
      } else {
        history.push({ type: 'model', response: [text] });
      }
    });
    seen.push({ promptText: prompt, imageBytes, model: body.model ?? '' });
    const grammar = await grammarOf(body.response_format, prompt);
    session.setChatHistory(history);
    const text = await session.prompt(prompt, {
      grammar,
      maxTokens: body.max_tokens ?? 1024,
      temperature: body.temperature ?? 0,
    });
    const promptTokens = model.tokenize(
      messages.map((m) => (typeof m.content === 'string' ? m.content : '')).join('\n') + prompt,
    ).length;
    return {
      id: `chatcmpl-llama-${seen.length}`,
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model: body.model,
      choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
      usage: {
        prompt_tokens: promptTokens,
        completion_tokens: model.tokenize(text).length,
        total_tokens: promptTokens + model.tokenize(text).length,
      },
    };
  };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const reply = (status: number, value: unknown): void => {
        const text = JSON.stringify(value);
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(text);
      };
      if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
        reply(404, { error: { message: `no route ${req.method} ${req.url}` } });
        return;
      }
      let body: Body;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Body;
      } catch {
        reply(400, { error: { message: 'the body is not JSON' } });
        return;
      }
      const run = (async () => {
        await queue;
        return complete(body);
      })();
      queue = (async () => {
        try {
          await run;
        } catch {
          // answered with 500 below; the next request still runs
        }
      })();
      void (async () => {
        try {
          reply(200, await run);
        } catch (e) {
          reply(500, { error: { message: (e as Error).message } });
        }
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    seen,
    close: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      session.dispose();
      await context.dispose();
      await model.dispose();
      await llama.dispose();
    },
  };
}
