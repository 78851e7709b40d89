// Re-runs the reducer over a recording's raw events and stores the steps (raw events untouched).
import type { Step } from '../shared/domain';
import { AppError } from '../shared/errors';
import { reduce, type ReduceResult } from '../pipeline/reduce';
import type { ReducePlatform } from '../pipeline/reduce';
import { getRecording, listSteps, readEvents, replaceSteps } from '../store';
import type { Library } from './library/library';

/** Options of {@link reduceRecording}. */
export type ReduceRecordingOptions = {
  /** Compute and return the steps without storing them. Default false. */
  dryRun?: boolean;
  /** Allow replacing steps that came from an AgentNet import (annotator deletions are lost). */
  replaceImported?: boolean;
};

/** What a reduction produced. */
export type ReduceRecordingResult = {
  id: string;
  steps: Step[];
  unowned: number;
  diagnostics: ReduceResult['diagnostics'];
  reducerVersion: string;
  stored: boolean;
  /** Labels carried over from the previous steps (matched by step id or first event). */
  labelsKept: number;
};

const PLATFORMS: readonly ReducePlatform[] = ['win32', 'darwin', 'linux'];

/** Reduces a recording's raw events to steps; keeps labels of steps that still exist. */
export function reduceRecording(
  lib: Library,
  idOrPrefix: string,
  options: ReduceRecordingOptions = {},
): ReduceRecordingResult {
  const rec = getRecording(lib.db, idOrPrefix);
  const previous = listSteps(lib.db, rec.seq);
  const imported = previous.some((s) => s.id.startsWith('agentnet:'));
  if (imported && !options.dryRun && !options.replaceImported) {
    throw new AppError(
      'INVALID_STATE',
      `Recording ${rec.id} holds the steps of its AgentNet import (with the annotator's deletions). ` +
        'Re-run with --replace-imported to replace them with a fresh reduction, or --dry-run to compare.',
    );
  }
  const result = reduce(readEvents(lib.db, rec.seq), {
    screen: { width: rec.screen.width, height: rec.screen.height },
    scaleFactor: rec.screen.scale,
    platform: PLATFORMS.includes(rec.platform.os as ReducePlatform)
      ? (rec.platform.os as ReducePlatform)
      : 'linux',
    source: rec.source === 'agentnet-import' ? 'agentnet' : 'recorder',
  });
  const byId = new Map(previous.map((s) => [s.id, s]));
  const byStartIdx = new Map(
    previous.filter((s) => s.eventStartIdx !== null).map((s) => [s.eventStartIdx, s]),
  );
  let labelsKept = 0;
  const steps = result.steps.map((s) => {
    const old =
      byId.get(s.id) ?? (s.eventStartIdx === null ? undefined : byStartIdx.get(s.eventStartIdx));
    if (old && old.label !== s.label && old.kind === s.kind) {
      labelsKept += 1;
      return { ...s, label: old.label, target: s.target ?? old.target };
    }
    return s;
  });
  if (!options.dryRun) {
    lib.db.transaction(() => replaceSteps(lib.db, rec.seq, steps, 'reducer'))();
  }
  return {
    id: rec.id,
    steps,
    unowned: result.unowned.length,
    diagnostics: result.diagnostics,
    reducerVersion: result.reducerVersion,
    stored: !options.dryRun,
    labelsKept,
  };
}
