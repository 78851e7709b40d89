// Derived values of the export store.
import type { ExportState } from './initialState';

/** Human names of the export formats. */
export const EXPORT_FORMAT_LABELS: Record<ExportState['format'], string> = {
  standardized: 'Standardized trajectory (OpenCUA JSON + images)',
  'agentnet-jsonl': 'AgentNet dataset (JSONL + keyframes)',
  'agentnet-raw': 'AgentNet raw folder (AgentNet Tool layout)',
};

const STEP_REF = /\bstep (\S+): /g;

// The step ids a list of export warnings mentions (`step <id>: …`).
export function stepIdsInWarnings(warnings: readonly string[]): string[] {
  return [...new Set(warnings.flatMap((w) => [...w.matchAll(STEP_REF)].map((m) => m[1]!)))];
}

// A warning with `step <id>:` replaced by the step's name (`Step 4 · Click on Display:`); ids
// without a known name become `a step:`, never an internal id.
export function nameStepsInWarning(warning: string, names: Record<string, string>): string {
  return warning.replace(STEP_REF, (_m, id: string) => `${names[id] ?? 'A step'}: `);
}

/** Selectors of the export store. */
export const exportSelectors = {
  /** Progress as a fraction 0…1 (null when indeterminate). */
  fraction: (s: ExportState): number | null => {
    if (s.status === 'done') {
      return 1;
    }
    if (!s.progress || s.progress.total <= 0) {
      return null;
    }
    return Math.min(1, Math.max(0, s.progress.done / s.progress.total));
  },
  /** True when the form can start an export. */
  canStart: (s: ExportState): boolean =>
    s.status !== 'running' && s.ids.length > 0 && s.outDir.trim() !== '',
  /** Number of files written (every file, not the top-level folders). */
  outputCount: (s: ExportState): number =>
    s.result ? s.result.recordings.reduce((n, r) => n + (r.files ?? r.outputs.length), 0) : 0,
  /** What was written at the top of the output folder (`name/` for folders). */
  outputNames: (s: ExportState): string[] => [
    ...new Set(s.result ? s.result.recordings.flatMap((r) => r.outputs) : []),
  ],
  /** Every warning of the result, its steps named by number and label instead of id. */
  warnings: (s: ExportState): string[] =>
    s.result
      ? s.result.recordings.flatMap((r) =>
          r.warnings.map((w) => nameStepsInWarning(w, s.stepNames[r.id] ?? {})),
        )
      : [],
};
