// Derived values of the export store.
import type { ExportState } from './initialState';

/** Human names of the export formats. */
export const EXPORT_FORMAT_LABELS: Record<ExportState['format'], string> = {
  standardized: 'Standardized trajectory (OpenCUA JSON + images)',
  'agentnet-jsonl': 'AgentNet dataset (JSONL + keyframes)',
  'agentnet-raw': 'AgentNet raw folder (AgentNet Tool layout)',
};

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
  /** Number of files written. */
  outputCount: (s: ExportState): number =>
    s.result ? s.result.recordings.reduce((n, r) => n + r.outputs.length, 0) : 0,
  /** Every warning of the result. */
  warnings: (s: ExportState): string[] =>
    s.result ? s.result.recordings.flatMap((r) => r.warnings) : [],
};
