// The `cot` command's work (docs/cot.md §8): an OpenAI-compatible client for the endpoint (the key
// read from the environment, never stored or printed), then the synthesis of several recordings,
// `concurrency` of them at a time under one request gate and one cost budget. A recording that
// fails is reported and the others go on, unless the failure concerns the endpoint itself (key,
// model, budget), which stops the batch.
import { AppError, isAppError } from '../../shared/errors';
import { createOpenAiChatClient } from '../../infra/openai/chat-client';
import { deleteCot, resolveRecordingSeq } from '../../store';
import type { Library } from '../library/library';
import { runCotOnRecording, type CotProgress, type CotRecordingOutcome } from './cot-service';

/** Environment variables the API key is read from, the first one set wins. */
export const COT_API_KEY_ENVS = ['CUA_COT_API_KEY', 'OPENAI_API_KEY'] as const;
/** Where requests go when no --base-url is given. */
export const DEFAULT_COT_BASE_URL = 'https://api.openai.com/v1';

/** Options of {@link cotRecordings}. */
export type CotBatchOptions = {
  /** The API root (…/chat/completions is appended); default {@link DEFAULT_COT_BASE_URL}. */
  baseUrl?: string;
  model: string;
  /** Recordings run at once, and requests in flight at once (default 1, upstream's one thread). */
  concurrency?: number;
  /** Requests started per minute (default: no limit). */
  requestsPerMinute?: number;
  /** Stop before a request once the estimated cost reaches this (needs `prices`). */
  maxCost?: number;
  /** Prices per million tokens, for the cost estimate. */
  prices?: { inputPerMillion: number; outputPerMillion: number };
  isDoubleCheck?: boolean;
  isUpstreamQuirks?: boolean;
  /** Forget the stored CoT of these recordings first and ask for all of it again. */
  isRedo?: boolean;
  /** The environment the key is read from (default process.env). */
  env?: Record<string, string | undefined>;
  signal?: AbortSignal;
  onProgress?: (p: CotProgress) => void;
  /** A retry is about to wait (429, 5xx, timeouts). */
  onRetry?: (info: { attempt: number; delayMs: number; code: string }) => void;
};

/** One recording's result in a batch. */
export type CotBatchItem =
  | ({ ok: true } & CotRecordingOutcome)
  | { ok: false; recordingId: string; code: string; message: string; fix?: string };

/** What a batch did, with the endpoint's counts. */
export type CotBatchResult = {
  recordings: CotBatchItem[];
  calls: number;
  retries: number;
  promptTokens: number;
  completionTokens: number;
  /** Estimated from `prices` (0 without them). */
  cost: number;
};

// failures of the endpoint or the budget: every other recording would fail the same way
const BATCH_FATAL = new Set([
  'MODEL_AUTH',
  'MODEL_NOT_FOUND',
  'MODEL_COST_LIMIT',
  'COT_API_KEY_MISSING',
]);

const isLoopback = (url: string) => {
  try {
    return ['localhost', '127.0.0.1', '[::1]'].includes(new URL(url).hostname);
  } catch {
    return false;
  }
};

/** Runs (or resumes) the CoT of recordings `ids` against one OpenAI-compatible endpoint. */
export async function cotRecordings(
  lib: Library,
  ids: readonly string[],
  options: CotBatchOptions,
): Promise<CotBatchResult> {
  const env = options.env ?? process.env;
  const baseUrl = options.baseUrl ?? DEFAULT_COT_BASE_URL;
  const apiKeyEnv = COT_API_KEY_ENVS.find((name) => env[name]);
  if (!apiKeyEnv && !isLoopback(baseUrl)) {
    throw new AppError(
      'COT_API_KEY_MISSING',
      `No API key for ${new URL(baseUrl).host}: neither ${COT_API_KEY_ENVS.join(' nor ')} is set.`,
      { env: [...COT_API_KEY_ENVS] },
      `Set the key in the environment (export ${COT_API_KEY_ENVS[1]}=…); it is never stored or printed.`,
    );
  }
  const concurrency = Math.max(1, options.concurrency ?? 1);
  const client = createOpenAiChatClient({
    baseUrl,
    model: options.model,
    ...(apiKeyEnv ? { apiKeyEnv } : {}),
    env,
    concurrency,
    requestsPerMinute: options.requestsPerMinute ?? 0,
    ...(options.prices ? { prices: options.prices } : {}),
    ...(options.maxCost !== undefined ? { maxCost: options.maxCost } : {}),
    ...(options.onRetry ? { onRetry: options.onRetry } : {}),
  });
  const resolved = ids.map((id) => resolveRecordingSeq(lib.db, id));
  if (options.isRedo) {
    for (const r of resolved) {
      deleteCot(lib.db, r.seq);
    }
  }
  const stop = new AbortController();
  const signal = options.signal ? AbortSignal.any([options.signal, stop.signal]) : stop.signal;
  const results: CotBatchItem[] = new Array<CotBatchItem>(resolved.length);
  let next = 0;
  const worker = async () => {
    while (next < resolved.length && !signal.aborted) {
      const k = next++;
      const id = resolved[k]!.id;
      try {
        const outcome = await runCotOnRecording(lib, id, {
          client,
          model: options.model,
          isDoubleCheck: options.isDoubleCheck ?? false,
          isUpstreamQuirks: options.isUpstreamQuirks ?? false,
          signal,
          ...(options.onProgress ? { onProgress: options.onProgress } : {}),
        });
        results[k] = { ok: true, ...outcome };
      } catch (e) {
        const coded = isAppError(e)
          ? e
          : new AppError('INTERNAL', e instanceof Error ? e.message : String(e));
        results[k] = {
          ok: false,
          recordingId: id,
          code: coded.code,
          message: coded.message,
          ...(coded.fix ? { fix: coded.fix } : {}),
        };
        if (BATCH_FATAL.has(coded.code)) {
          stop.abort();
        }
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, resolved.length) }, worker));
  resolved.forEach((r, k) => {
    results[k] ??= {
      ok: false,
      recordingId: r.id,
      code: 'ABORTED',
      message: `Recording ${r.id} was not started: the batch stopped first.`,
    };
  });
  const stats = client.stats();
  return {
    recordings: results,
    calls: stats.calls,
    retries: stats.retries,
    promptTokens: stats.promptTokens,
    completionTokens: stats.completionTokens,
    cost: stats.cost,
  };
}
