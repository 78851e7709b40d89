// The hub's job handlers (docs/jobs.md §H), by queue name: plain functions of (payload, context)
// that know nothing of the engine (src/hub/jobs/engine.ts runs them under these names).
import type { HubJobQueue } from '../queues';
import type { JobDeps, JobHandler } from '../types';
import { createBuildItemHandler, createBuildMergeHandler } from './build';
import { createCotHandler } from './cot';
import { createIntakeHandler } from './intake';
import { createKeyframesHandler } from './keyframes';

export {
  BUILDS_PREFIX,
  DATASET_MANIFEST,
  DATASHEET,
  buildOutPrefix,
  createBuildItemHandler,
  createBuildMergeHandler,
  type BuildItemResult,
  type BuildMergeResult,
  type DatasetManifest,
} from './build';
export {
  createCotHandler,
  readCotSettings,
  writeCotSettings,
  type CotJobResult,
  type CotJobSettings,
} from './cot';
export {
  createIntakeHandler,
  INTAKE_REFUSED,
  type IntakeReason,
  type IntakeResult,
} from './intake';
export { createKeyframesHandler, type KeyframesResult } from './keyframes';
export * from './payloads';

/** What the handler factories take: the engine's deps, and the version written into the
 * exports' provenance (default: the version that made each submission). */
export type HandlerDeps = JobDeps & { appVersion?: string };

/** Every handler by queue name: what the engine's `work` takes. */
export function createHandlers(
  deps: HandlerDeps,
): Readonly<Record<HubJobQueue, JobHandler<never, unknown>>> {
  return {
    intake: createIntakeHandler(deps),
    keyframes: createKeyframesHandler(deps),
    'build-item': createBuildItemHandler(deps),
    'build-merge': createBuildMergeHandler(deps),
    cot: createCotHandler(deps),
  };
}
