// The `cot` job (issue 30 item 5, docs/cot.md "In team mode"): OpenCUA's reflective CoT of an
// accepted version, run by a worker when an admin turned it on (`cot:settings`). The version's
// bundle is restored into a scratch library, the accepting reviewer's edit log applied (their step
// marks are the CoT's prior judges), and the app's own CoT service run against the configured
// OpenAI-compatible endpoint — the API key read from the worker's environment, never from or into
// the hub. The per-step CoT and the summary are stored as one derived object beside the version
// (`<prefix>/derived/cot.json`); a dataset build restores it into its scratch library, so the
// agentnet-jsonl export fills observation/thought/action/reflection from it. Idempotent (key
// `cot:<id>@<version>`): with the object there, the job returns it without a request. An attempt
// that fails keeps its finished steps in `derived/cot.partial.json`, so a retry does not pay for
// them again.
import { createHash } from 'node:crypto';
import { AppError, type ErrorCode } from '../../../shared/errors';
import { cotRecordings } from '../../../services/cot/cot-batch';
import type { Library } from '../../../services/library/library';
import {
  readCotRows,
  writeCotRows,
  type StoredCotStep,
  type StoredCotSummary,
} from '../../../services/cot/cot-rows';
import { findJobVersion, readSettings, writeSetting, type HubDb } from '../../db';
import type { HubObjectStore } from '../../storage';
import { JobHandedBack, type JobHandler } from '../types';
import { readObject, withBundleLibrary } from './bundle-library';
import type { HandlerDeps } from './index';
import { applyReviewerEdits } from './reviewer-edits';
import { parsePayload, SubmissionVersionPayloadSchema, type IntakePayload } from './payloads';

/** Where a version's CoT lives, below its object prefix. */
export const DERIVED_COT = 'derived/cot.json';
/** The finished steps of an attempt that failed, for the next attempt. */
export const DERIVED_COT_PARTIAL = 'derived/cot.partial.json';

/** The hub's CoT settings (hub_settings key `cot`); the API key is not one of them. */
export type CotJobSettings = {
  enabled: boolean;
  baseUrl: string;
  model: string;
  /** Stop a trajectory's run once its estimated cost reaches this (needs prices). */
  maxCostPerTrajectory: number | null;
  pricePerMillion: { input: number; output: number } | null;
};

const SETTINGS_KEY = 'cot';

/** A new hub's: off. */
export const DEFAULT_COT_SETTINGS: CotJobSettings = {
  enabled: false,
  baseUrl: 'https://api.openai.com/v1',
  model: 'gpt-4o',
  maxCostPerTrajectory: null,
  pricePerMillion: null,
};

/** The hub's CoT settings. */
export async function readCotSettings(db: HubDb): Promise<CotJobSettings> {
  const stored = (await readSettings(db, SETTINGS_KEY)).get(SETTINGS_KEY);
  return { ...DEFAULT_COT_SETTINGS, ...(stored as Partial<CotJobSettings> | undefined) };
}

/** Changes some of the hub's CoT settings; answers all of them. */
export async function writeCotSettings(
  db: HubDb,
  change: Partial<CotJobSettings>,
): Promise<CotJobSettings> {
  const next = { ...(await readCotSettings(db)), ...change };
  await writeSetting(db, SETTINGS_KEY, next);
  return next;
}

/** The stored CoT of one version (`derived/cot.json`). */
export type DerivedCot = {
  schema: 'cua-annotator/hub-cot';
  schemaVersion: 1;
  submissionId: number;
  version: number;
  recordingId: string;
  model: string;
  steps: StoredCotStep[];
  summary: StoredCotSummary | null;
};

/** What the cot job did. */
export type CotJobResult = {
  submissionId: number;
  version: number;
  outcome: 'stored' | 'reused' | 'off';
  steps: number;
  /** Requests sent by this run (0 when reused). */
  calls: number;
  path?: string;
  sizeBytes?: number;
  sha256?: string;
};

async function readJson<T>(store: HubObjectStore, key: string): Promise<T | null> {
  if (!(await store.stat(key))) {
    return null;
  }
  return JSON.parse((await readObject(store, key)).toString('utf8')) as T;
}

/** Puts a stored CoT's rows into a (scratch) library's recording; false when there is none.
 * The export keeps only the rows whose input fingerprint matches the recording. */
export async function restoreDerivedCot(
  store: HubObjectStore,
  prefix: string,
  lib: Library,
  recordingId: string,
  name: string = DERIVED_COT,
): Promise<boolean> {
  const cot = await readJson<DerivedCot>(store, `${prefix}/${name}`);
  if (!cot) {
    return false;
  }
  writeCotRows(lib, recordingId, cot);
  return true;
}

async function putCot(
  store: HubObjectStore,
  key: string,
  cot: DerivedCot,
): Promise<{ sizeBytes: number; sha256: string }> {
  const body = Buffer.from(`${JSON.stringify(cot, null, 2)}\n`);
  await store.put(key, body, { sizeBytes: body.length });
  return { sizeBytes: body.length, sha256: createHash('sha256').update(body).digest('hex') };
}

/** Builds the `cot` handler; the API key is read from `env` (default the process's). */
export function createCotHandler(
  deps: HandlerDeps & { env?: Record<string, string | undefined> },
): JobHandler<IntakePayload, CotJobResult> {
  return async (payload, ctx) => {
    const p = parsePayload('cot', SubmissionVersionPayloadSchema, payload);
    const version = await findJobVersion(deps.db, p.submissionId, p.version);
    if (!version) {
      throw new AppError(
        'NOT_FOUND',
        `no version ${p.version} of submission ${p.submissionId}`,
        { ...p },
        'Nothing to reason about: the submission may be from another hub.',
      );
    }
    const key = `${version.objectPrefix}/${DERIVED_COT}`;
    const done = await readJson<DerivedCot>(deps.store, key);
    if (done) {
      const info = await deps.store.stat(key);
      return {
        ...p,
        outcome: 'reused',
        steps: done.steps.length,
        calls: 0,
        path: DERIVED_COT,
        sizeBytes: info?.sizeBytes ?? 0,
        sha256: createHash('sha256')
          .update(await readObject(deps.store, key))
          .digest('hex'),
      };
    }
    const settings = await readCotSettings(deps.db);
    if (!settings.enabled) {
      return { ...p, outcome: 'off', steps: 0, calls: 0 };
    }
    return await withBundleLibrary(
      deps.store,
      version.objectPrefix,
      async (b) => {
        // the reviewers' edits (marks included) on top of the annotator's
        await applyReviewerEdits(deps.db, b.lib, b.recordingId, p);
        await restoreDerivedCot(
          deps.store,
          version.objectPrefix,
          b.lib,
          b.recordingId,
          DERIVED_COT_PARTIAL,
        );
        const collect = (): DerivedCot => ({
          schema: 'cua-annotator/hub-cot',
          schemaVersion: 1,
          ...p,
          recordingId: b.recordingId,
          model: settings.model,
          ...readCotRows(b.lib, b.recordingId),
        });
        const run = await cotRecordings(b.lib, [b.recordingId], {
          baseUrl: settings.baseUrl,
          model: settings.model,
          ...(settings.maxCostPerTrajectory !== null && settings.pricePerMillion
            ? {
                maxCost: settings.maxCostPerTrajectory,
                prices: {
                  inputPerMillion: settings.pricePerMillion.input,
                  outputPerMillion: settings.pricePerMillion.output,
                },
              }
            : {}),
          ...(deps.env ? { env: deps.env } : {}),
          signal: ctx.signal,
          onProgress: (x) => {
            void ctx.progress(x.done, x.total + 1, x.phase);
          },
        });
        const item = run.recordings[0]!;
        if (!item.ok) {
          // keep what was paid for; the retry goes on from there
          await putCot(deps.store, `${version.objectPrefix}/${DERIVED_COT_PARTIAL}`, collect());
          if (ctx.signal.aborted) {
            throw new JobHandedBack(ctx.key);
          }
          throw new AppError(item.code as ErrorCode, item.message, { ...p }, item.fix);
        }
        const cot = collect();
        const stored = await putCot(deps.store, key, cot);
        await deps.store.delete(`${version.objectPrefix}/${DERIVED_COT_PARTIAL}`);
        ctx.log(`cot ${b.recordingId}: ${cot.steps.length} steps, ${run.calls} requests`);
        return {
          ...p,
          outcome: 'stored' as const,
          steps: cot.steps.length,
          calls: run.calls,
          path: DERIVED_COT,
          ...stored,
        };
      },
      { signal: ctx.signal },
    );
  };
}
