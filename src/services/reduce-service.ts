// Re-runs the reducer over a recording's raw events and stores the steps (raw events untouched).
import type { Step } from '../shared/domain';
import { AppError } from '../shared/errors';
import { reduce, type ReduceResult } from '../pipeline/reduce';
import type { ReducePlatform } from '../pipeline/reduce';
import type { ElementContext } from '../pipeline/agentnet/accessibility';
import {
  getRecording,
  getRecordingScreen,
  listAxRecords,
  listEdits,
  listSteps,
  readEvents,
  replaceSteps,
  setStepCount,
  listMarks,
} from '../store';
import { applyEdits } from './edits/apply-edits';
import { withoutAppInput } from './recording/app-input';
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
  /** Step labels that survive: labels stored on the previous steps carried over (matched by step
   * id or first event) plus relabel edits that still apply to the new steps. */
  labelsKept: number;
  /** Active edits (relabels included) that still apply to the new steps. */
  editsKept: number;
  /** Active edits that no longer apply (their step is gone); they stay in the log, skipped. */
  editsLost: number;
  /** Steps shown after the edits are applied. */
  stepCount: number;
};

const PLATFORMS: readonly ReducePlatform[] = ['win32', 'darwin', 'linux'];

// Our recordings' element records, for targets and element-naming labels. AgentNet imports get
// none: their labels are the annotator's and their reduction stays the golden one.
function recordedElements(lib: Library, seq: number): ElementContext[] {
  return listAxRecords(lib.db, seq, 'element')
    .filter((r) => r.source === 'atspi')
    .map((r) => ({
      tMs: r.tMs,
      x: r.x,
      y: r.y,
      tree: JSON.parse(r.treeJson) as unknown,
      system: 'atspi',
    }));
}

// The type word a reduced step is labelled with when nothing better is known (its AgentNet
// complete-row action: click, drag, scroll, type, press, mouse_press).
function defaultLabelOf(step: Step): string | null {
  const agentnet = step.extra.agentnet as { action?: unknown } | undefined;
  return typeof agentnet?.action === 'string' ? agentnet.action : null;
}

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
  const result = reduce(withoutAppInput(readEvents(lib.db, rec.seq), listMarks(lib.db, rec.seq)), {
    screen: { width: rec.screen.width, height: rec.screen.height },
    scaleFactor: rec.screen.scale,
    platform: PLATFORMS.includes(rec.platform.os as ReducePlatform)
      ? (rec.platform.os as ReducePlatform)
      : 'linux',
    source: rec.source === 'agentnet-import' ? 'agentnet' : 'recorder',
    elements: rec.source === 'agentnet-import' ? undefined : recordedElements(lib, rec.seq),
  });
  const byId = new Map(previous.map((s) => [s.id, s]));
  const byStartIdx = new Map(
    previous.filter((s) => s.eventStartIdx !== null).map((s) => [s.eventStartIdx, s]),
  );
  let labelsCarried = 0;
  const steps = result.steps.map((s) => {
    const old =
      byId.get(s.id) ?? (s.eventStartIdx === null ? undefined : byStartIdx.get(s.eventStartIdx));
    // a previous default label (the type word) does not hide a label naming the element
    const isOldDefault = old !== undefined && old.label === defaultLabelOf(old);
    if (old && old.label !== s.label && old.kind === s.kind && !isOldDefault) {
      labelsCarried += 1;
      return { ...s, label: old.label, target: s.target ?? old.target };
    }
    return s;
  });
  // Labels typed in review live in the edit log (relabel edits keyed by step id), not on the
  // steps: count what survives by applying the log to the new steps, as every view will.
  const edits = listEdits(lib.db, rec.seq, ['active']);
  const applied = applyEdits(steps, edits, { screen: getRecordingScreen(lib.db, rec.seq) });
  const skippedIds = new Set(applied.skipped.map((k) => k.editId));
  const relabelsKept = edits.filter((e) => e.edit.op === 'relabel' && !skippedIds.has(e.id)).length;
  if (!options.dryRun) {
    lib.db.transaction(() => {
      replaceSteps(lib.db, rec.seq, steps, 'reducer');
      setStepCount(lib.db, rec.seq, applied.steps.length);
    })();
  }
  return {
    id: rec.id,
    steps,
    unowned: result.unowned.length,
    diagnostics: result.diagnostics,
    reducerVersion: result.reducerVersion,
    stored: !options.dryRun,
    labelsKept: labelsCarried + relabelsKept,
    editsKept: edits.length - skippedIds.size,
    editsLost: skippedIds.size,
    stepCount: applied.steps.length,
  };
}
