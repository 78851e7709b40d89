// An OpenAI-compatible chat-completions client over Node's fetch: POST <baseUrl>/chat/completions
// with the API key from the environment, retries with full-jitter backoff (Retry-After honoured),
// a timeout per request, the process-wide concurrency and requests-per-minute gate, token
// accounting with a cost stop, and coded errors with a fix (docs/cot.md "The model client").

import { AppError } from '../../shared/errors';
import {
  DEFAULT_RETRY_POLICY,
  fullJitterDelayMs,
  parseRetryAfterMs,
  type RetryPolicy,
} from './backoff';
import { createCostMeter, type CostMeter, type TokenPrices, type UsageTotals } from './cost';
import { abortedError, sharedRequestGate, type RequestGate } from './gate';
import type { ChatRequest, ChatResult, ChatUsage } from '../../shared/chat';

export const DEFAULT_API_KEY_ENV = 'OPENAI_API_KEY';
export const DEFAULT_TIMEOUT_MS = 120_000;
export const DEFAULT_CONCURRENCY = 4;

export interface OpenAiChatClientOptions {
  /** The API root, e.g. https://api.openai.com/v1 (…/chat/completions is appended). */
  baseUrl: string;
  model: string;
  /** The environment variable holding the key (default OPENAI_API_KEY); none set = no
   * Authorization header (local servers). The key is never stored, logged or put in errors. */
  apiKeyEnv?: string;
  env?: Record<string, string | undefined>;
  /** One request's time limit, the answer's body included (default 120 s). */
  timeoutMs?: number;
  retry?: Partial<RetryPolicy>;
  /** Requests in flight at once for this endpoint in the whole process (default 4). */
  concurrency?: number;
  /** Requests started per minute for this endpoint in the whole process (default 0: no limit). */
  requestsPerMinute?: number;
  /** A gate of one's own instead of the process's shared one (tests, benchmarks). */
  gate?: RequestGate;
  prices?: TokenPrices;
  /** Stop (MODEL_COST_LIMIT) before a request once the estimated cost has reached this. */
  maxCost?: number;
  /** A meter shared with other clients (several runs under one budget). */
  meter?: CostMeter;
  /** Called before each retry's wait (progress lines, tests). */
  onRetry?: (info: RetryInfo) => void;
  random?: () => number;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

export interface RetryInfo {
  attempt: number;
  delayMs: number;
  code: string;
  status?: number;
  retryAfterMs?: number;
}

/** Counts across the client's life: usage from the meter plus attempts and retries. */
export interface ClientStats extends UsageTotals {
  attempts: number;
  retries: number;
}

/** The client: the CoT pipeline's `ChatClient` port (src/pipeline/cot/types.ts), met
 * structurally, with its counts. */
export interface OpenAiChatClient {
  complete(req: ChatRequest, signal?: AbortSignal): Promise<ChatResult>;
  stats(): ClientStats;
  readonly endpoint: string;
  readonly model: string;
}

const EXCERPT_CHARS = 300;

export function createOpenAiChatClient(options: OpenAiChatClientOptions): OpenAiChatClient {
  const endpoint = chatCompletionsUrl(options.baseUrl);
  const shownUrl = redactUrl(endpoint);
  const keyEnv = options.apiKeyEnv ?? DEFAULT_API_KEY_ENV;
  const apiKey = (options.env ?? process.env)[keyEnv] || undefined;
  const policy: RetryPolicy = { ...DEFAULT_RETRY_POLICY, ...options.retry };
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const gate =
    options.gate ??
    sharedRequestGate(endpoint, {
      concurrency: options.concurrency ?? DEFAULT_CONCURRENCY,
      requestsPerMinute: options.requestsPerMinute ?? 0,
    });
  const meter =
    options.meter ?? createCostMeter({ prices: options.prices, maxCost: options.maxCost });
  const random = options.random ?? Math.random;
  const sleep = options.sleep ?? abortableSleep;
  const scrub = (text: string): string => redact(text, apiKey);
  let attempts = 0;
  let retries = 0;

  const attempt = async (body: string, signal: AbortSignal | undefined): Promise<Answered> => {
    attempts += 1;
    const timeout = AbortSignal.timeout(timeoutMs);
    const both = signal ? AbortSignal.any([signal, timeout]) : timeout;
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      accept: 'application/json',
    };
    if (apiKey) {
      headers.authorization = `Bearer ${apiKey}`;
    }
    let status = 0;
    try {
      const res = await fetch(endpoint, {
        method: 'POST',
        headers,
        body,
        signal: both,
        redirect: 'error',
      });
      status = res.status;
      const text = await res.text();
      if (!res.ok) {
        throw httpFailure(res.status, res.headers, text);
      }
      return parseCompletion(text);
    } catch (e) {
      if (signal?.aborted) {
        throw abortedError();
      }
      if (isFailure(e)) {
        throw e;
      }
      if (timeout.aborted) {
        throw failure(
          'MODEL_TIMEOUT',
          `${options.model} at ${shownUrl} did not answer within ${timeoutMs / 1000} s` +
            (status ? ` (status ${status} arrived, the body did not)` : ''),
          { timeoutMs },
          'Try again later: the server is slow or overloaded (a large model may need minutes per ' +
            'image-heavy request; the caller sets the limit, 120 s by default).',
          true,
        );
      }
      const cause = (e as Error & { cause?: Error & { code?: string } }).cause;
      const reason = scrub(cause?.code ?? cause?.message ?? (e as Error).message);
      throw failure(
        'MODEL_UNREACHABLE',
        `cannot reach ${shownUrl}: ${reason}`,
        { reason },
        'Check --base-url and that the server runs and is reachable from here.',
        true,
      );
    }
  };

  const httpFailure = (status: number, headers: Headers, text: string): Failure => {
    const detail = scrub(errorMessageOf(text));
    const said = detail ? `: ${detail}` : '';
    const details = { status, ...(detail ? { serverSaid: detail } : {}) };
    if (status === 401 || status === 403) {
      return failure(
        'MODEL_AUTH',
        `${shownUrl} refused the API key (${status})${said}`,
        details,
        apiKey
          ? `Check the key in ${keyEnv}: it may be wrong, revoked, or not allowed to use ${options.model}.`
          : `Set the API key in the environment variable ${keyEnv} (it is never stored).`,
        false,
      );
    }
    if (status === 404) {
      return failure(
        'MODEL_NOT_FOUND',
        `${shownUrl} answered 404 for model ${options.model}${said}`,
        details,
        'Check --model (the provider’s exact model name) and --base-url (the API root, e.g. ' +
          'https://api.openai.com/v1, without /chat/completions).',
        false,
      );
    }
    if (status === 429) {
      const quota = /insufficient_quota|quota|billing/i.test(text);
      return failure(
        'MODEL_RATE_LIMITED',
        quota
          ? `${shownUrl} refused: the account’s quota is used up${said}`
          : `${shownUrl} is still rate-limiting after ${policy.maxAttempts} attempts${said}`,
        details,
        quota
          ? 'Add credit or raise the quota with the provider, then run the command again.'
          : 'Lower --concurrency or set --rpm to the provider’s limit, then run the command ' +
              'again: finished steps are kept.',
        !quota,
        parseRetryAfterMs(headers.get('retry-after'), Date.now()),
      );
    }
    if (status >= 500 || status === 408) {
      return failure(
        'MODEL_SERVER_ERROR',
        `${shownUrl} failed with ${status} on all ${policy.maxAttempts} attempts${said}`,
        details,
        'The provider is failing: try again later, or use another --base-url.',
        true,
        parseRetryAfterMs(headers.get('retry-after'), Date.now()),
      );
    }
    return failure(
      'MODEL_REQUEST_REJECTED',
      `${shownUrl} refused the request (${status})${said}`,
      details,
      status === 413
        ? 'The request is too large for this server: use a model or server that takes images ' +
            'of this size.'
        : `Check that ${options.model} takes images and these options at this endpoint.`,
      false,
    );
  };

  const parseCompletion = (text: string): Answered => {
    const bad = (why: string): Failure =>
      failure(
        'MODEL_BAD_RESPONSE',
        `${shownUrl} answered with something other than a chat completion: ${why}`,
        { excerpt: scrub(text.slice(0, EXCERPT_CHARS)) },
        'Check that --base-url is an OpenAI-compatible API root (…/v1); a proxy or login page ' +
          'in between answers with HTML.',
        true,
      );
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw bad('not JSON');
    }
    const choice = (json as { choices?: unknown })?.choices;
    const first = Array.isArray(choice)
      ? (choice[0] as Record<string, unknown> | undefined)
      : undefined;
    const message = first?.message as { content?: unknown; refusal?: unknown } | undefined;
    if (!message) {
      throw bad('no choices[0].message');
    }
    if (typeof message.content !== 'string') {
      throw bad(
        typeof message.refusal === 'string'
          ? `the model refused: ${message.refusal.slice(0, EXCERPT_CHARS)}`
          : `no text in choices[0].message.content (finish_reason ${String(first?.finish_reason)})`,
      );
    }
    const usage = usageOf(json);
    return {
      result: { text: message.content, usage: usage ?? { promptTokens: 0, completionTokens: 0 } },
      usage,
    };
  };

  return {
    endpoint: shownUrl,
    model: options.model,
    stats: () => ({ ...meter.totals(), attempts, retries }),
    async complete(req: ChatRequest, signal?: AbortSignal): Promise<ChatResult> {
      const body = JSON.stringify({
        model: options.model,
        messages: req.messages,
        temperature: req.temperature,
        ...(req.maxTokens !== undefined ? { max_tokens: req.maxTokens } : {}),
        ...(req.responseFormat ? { response_format: req.responseFormat } : {}),
      });
      for (let n = 1; ; n += 1) {
        if (signal?.aborted) {
          throw abortedError();
        }
        meter.checkBudget();
        try {
          const answered = await gate.run(() => attempt(body, signal), signal);
          meter.add(answered.usage);
          return answered.result;
        } catch (e) {
          if (!isFailure(e)) {
            throw e;
          }
          if (!e.retryable || n >= policy.maxAttempts) {
            throw e.error;
          }
          const delayMs =
            e.retryAfterMs !== undefined
              ? Math.min(e.retryAfterMs, policy.maxRetryAfterMs)
              : fullJitterDelayMs(n - 1, policy, random);
          retries += 1;
          options.onRetry?.({
            attempt: n,
            delayMs,
            code: e.error.code,
            status: e.error.details?.status as number | undefined,
            retryAfterMs: e.retryAfterMs,
          });
          await sleep(delayMs, signal);
        }
      }
    },
  };
}

/** An answered attempt; `usage` undefined when the server sent none. */
interface Answered {
  result: ChatResult;
  usage: ChatUsage | undefined;
}

/** A thrown attempt failure (not an AppError: the retry loop unwraps it). */
class Failure extends Error {
  constructor(
    readonly error: AppError,
    readonly retryable: boolean,
    readonly retryAfterMs?: number,
  ) {
    super(error.message);
  }
}

function failure(
  code:
    | 'MODEL_AUTH'
    | 'MODEL_NOT_FOUND'
    | 'MODEL_RATE_LIMITED'
    | 'MODEL_SERVER_ERROR'
    | 'MODEL_UNREACHABLE'
    | 'MODEL_TIMEOUT'
    | 'MODEL_BAD_RESPONSE'
    | 'MODEL_REQUEST_REJECTED',
  message: string,
  details: Record<string, unknown>,
  fix: string,
  retryable: boolean,
  retryAfterMs?: number,
): Failure {
  return new Failure(new AppError(code, message, details, fix), retryable, retryAfterMs);
}

function isFailure(e: unknown): e is Failure {
  return e instanceof Failure;
}

/** …/v1 → …/v1/chat/completions (a trailing slash or a full …/chat/completions accepted). */
export function chatCompletionsUrl(baseUrl: string): string {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new AppError(
      'USAGE',
      `--base-url is not a URL: ${redactUrl(baseUrl)}`,
      undefined,
      'Pass the API root, e.g. https://api.openai.com/v1 or http://127.0.0.1:8080/v1.',
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new AppError(
      'USAGE',
      `--base-url must be http or https (got ${url.protocol})`,
      undefined,
      'Pass the API root, e.g. https://api.openai.com/v1.',
    );
  }
  if (url.username || url.password) {
    // fetch refuses such URLs, and a password in an argument shows in process lists
    throw new AppError(
      'USAGE',
      `--base-url must not contain a user name or password: ${redactUrl(baseUrl)}`,
      undefined,
      'Put the key in the environment (OPENAI_API_KEY) and give the URL without user:password@.',
    );
  }
  const path = url.pathname.replace(/\/+$/, '');
  url.pathname = path.endsWith('/chat/completions') ? path : `${path}/chat/completions`;
  return url.toString();
}

/** The URL without user:password (they are credentials too). */
function redactUrl(text: string): string {
  try {
    const url = new URL(text);
    url.username = '';
    url.password = '';
    return url.toString();
  } catch {
    return text.replace(/\/\/[^/@]*@/, '//');
  }
}

/** `text` with every occurrence of the key (and of its first and last 8 characters, which some
 * providers echo masked) replaced. */
export function redact(text: string, key: string | undefined): string {
  if (!key) {
    return text;
  }
  let out = text.split(key).join('[key]');
  if (key.length >= 16) {
    out = out.split(key.slice(0, 8)).join('[key]').split(key.slice(-8)).join('[key]');
  }
  return out;
}

/** The server's own words from an error body: OpenAI's `{error:{message}}`, a bare `{message}`
 * or `{error:"…"}`, else the first characters of the text. */
function errorMessageOf(text: string): string {
  try {
    const json = JSON.parse(text) as { error?: unknown; message?: unknown };
    const e = json.error;
    if (typeof e === 'string') {
      return e.slice(0, EXCERPT_CHARS);
    }
    if (e && typeof (e as { message?: unknown }).message === 'string') {
      return (e as { message: string }).message.slice(0, EXCERPT_CHARS);
    }
    if (typeof json.message === 'string') {
      return json.message.slice(0, EXCERPT_CHARS);
    }
  } catch {
    // not JSON: an excerpt of the text
  }
  return text.replace(/\s+/g, ' ').trim().slice(0, EXCERPT_CHARS);
}

function usageOf(json: unknown): ChatUsage | undefined {
  const usage = (json as { usage?: { prompt_tokens?: unknown; completion_tokens?: unknown } })
    .usage;
  if (
    !usage ||
    typeof usage.prompt_tokens !== 'number' ||
    typeof usage.completion_tokens !== 'number'
  ) {
    return undefined;
  }
  return { promptTokens: usage.prompt_tokens, completionTokens: usage.completion_tokens };
}

function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(abortedError());
      return;
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(abortedError());
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
