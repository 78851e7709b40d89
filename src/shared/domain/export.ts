// Export formats: the one list the CLI, the contract, the export service and the UI share.
import * as v from 'valibot';

/** Export formats. */
export const EXPORT_FORMATS = ['agentnet-raw', 'agentnet-jsonl', 'standardized'] as const;
/** One of {@link EXPORT_FORMATS}. */
export const ExportFormatSchema = v.picklist(EXPORT_FORMATS);
/** One of {@link EXPORT_FORMATS}. */
export type ExportFormat = v.InferOutput<typeof ExportFormatSchema>;
