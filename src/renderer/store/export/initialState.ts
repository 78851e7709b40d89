// State of an export run started from the UI.
import type { ApiMethods } from '../../../shared/contract';
import type { ExportFormat } from '../../../shared/domain';

/** Export formats (the domain's). */
export type { ExportFormat };

/** The result of a finished export. */
export type ExportResult = ApiMethods['exports:run']['output'];

/** Export state (plain serialisable data). */
export type ExportState = {
  status: 'idle' | 'running' | 'done' | 'error';
  /** Recordings being exported. */
  ids: string[];
  format: ExportFormat;
  /** Target folder on the machine running the services. */
  outDir: string;
  /** Last progress event. */
  progress: { done: number; total: number; recordingId: string; phase: string } | null;
  result: ExportResult | null;
  error: string | null;
  /** The output that is in the way when the service refused to replace it (else null). */
  existingPath: string | null;
  /** Replace existing outputs of the same names. */
  overwrite: boolean;
  /** Names of the steps the result's warnings mention, by recording id and step id
   * (`Step 4 · Click on Display`), so no internal step id is shown. */
  stepNames: Record<string, Record<string, string>>;
};

// A fresh export state.
export function initialExportState(): ExportState {
  return {
    status: 'idle',
    ids: [],
    format: 'standardized',
    outDir: '',
    progress: null,
    result: null,
    error: null,
    existingPath: null,
    overwrite: false,
    stepNames: {},
  };
}
