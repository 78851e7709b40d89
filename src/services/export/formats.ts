// The export formats, one entry each: the outputs of a recording, what the recordings of a run
// share, whether the format needs keyframe images, the rows it reads and its writer. `export`
// (export-service.ts), reading a recording for an export (export-load.ts) and the upload bundle
// (upload/bundle.ts) all go through this table, so a new format is its name in shared/domain's
// EXPORT_FORMATS, a format-<name>.ts writer and one entry here (a name without an entry does not
// compile).
import { EXPORT_FORMATS, type ExportFormat } from '../../shared/domain';
import { AppError } from '../../shared/errors';
import { getLabels } from '../../store';
import type { Library } from '../library/library';
import type { PiiAllowance } from '../privacy/policy';
import type { ExportImages } from './export-keyframes';
import type { Loaded } from './export-load';
import type { ExportWriter } from './export-writer';
import { AGENTNET_JSONL_FILE, writeAgentNetJsonl } from './format-agentnet-jsonl';
import { readRawLayer, writeAgentNetRaw } from './format-agentnet-raw';
import { writeStandardized } from './format-standardized';

/** Options every format's writer gets; each reads the ones it knows. */
export type FormatWriteOptions = {
  /** Version written into provenance. */
  appVersion: string;
  /** ffmpeg for cutting or redacting a video (resolved when absent). */
  ffmpegPath?: string;
  /** Blocking PII findings let through with `allowPii` (absent when none). */
  pii?: PiiAllowance;
  /** standardized: embed the images as data URIs instead of image files. Default false. */
  embedImages?: boolean;
  /** agentnet-raw: leave the library's own video out (an upload bundle ships it as video/); a
   * cut video is still written. Default false. */
  omitSourceVideo?: boolean;
};

/** What a format's writer is given for one recording. */
export type FormatWriteInput = {
  lib: Library;
  loaded: Loaded;
  /** Where its files go (paths relative to the export's root). */
  out: ExportWriter;
  options: FormatWriteOptions;
};

/** What a format's writer produced for one recording. */
export type FormatWritten = {
  /** Problems met (`step <id>: …`), reported with the recording. */
  warnings: string[];
  /** Its line of the run's {@link ExportFormatDefinition.sharedFile} (null: the format has none). */
  sharedLine: string | null;
};

type FormatCommon = {
  name: ExportFormat;
  /** The outputs of a recording with episode id `episodeId` (relative to the output folder) that
   * must not exist yet unless the export overwrites: checked before anything is decoded. */
  outputs(episodeId: string): string[];
  /** The file every recording of a run adds its line to, written once after the last one. */
  sharedFile: string | null;
  /** Folders the recordings of a run write into together (committed file by file). */
  sharedDirs: readonly string[];
  /** Reads every row the writer will read, so a damaged row stops a run before anything is
   * written. */
  readRows(lib: Library, seq: number): void;
};

/** One export format. Formats that need keyframe images get them (the stored keyframes when
 * fresh, else one extraction: export-keyframes.ts) before their writer runs. */
export type ExportFormatDefinition = FormatCommon &
  (
    | { needsKeyframes: false; write(input: FormatWriteInput): Promise<FormatWritten> }
    | {
        needsKeyframes: true;
        write(input: FormatWriteInput & { images: ExportImages }): Promise<FormatWritten>;
      }
  );

// the labels row (the jsonl record's labels; standardized checks it too, as exports always have)
function readLabels(lib: Library, seq: number): void {
  getLabels(lib.db, seq);
}

/** Every export format by name. */
export const EXPORT_FORMAT_REGISTRY: {
  readonly [F in ExportFormat]: ExportFormatDefinition & { name: F };
} = {
  'agentnet-raw': {
    name: 'agentnet-raw',
    // one AgentNet Tool folder per recording (docs/agentnet-raw-export.md)
    outputs: (episodeId) => [episodeId],
    sharedFile: null,
    sharedDirs: [],
    needsKeyframes: false,
    readRows: (lib, seq) => {
      readRawLayer(lib, seq);
    },
    write: async ({ lib, loaded, out, options }) => ({
      warnings: await writeAgentNetRaw(lib, loaded, out, options),
      sharedLine: null,
    }),
  },
  'agentnet-jsonl': {
    name: 'agentnet-jsonl',
    // one line per recording in the run's agentnet.jsonl, its images and CoT input beside it
    outputs: () => [AGENTNET_JSONL_FILE],
    sharedFile: AGENTNET_JSONL_FILE,
    sharedDirs: ['images', 'cot-input'],
    needsKeyframes: true,
    readRows: readLabels,
    write: async ({ lib, loaded, out, images }) => ({
      warnings: [],
      sharedLine: await writeAgentNetJsonl(lib, loaded, images, out),
    }),
  },
  standardized: {
    name: 'standardized',
    outputs: (episodeId) => [`${episodeId}.json`],
    sharedFile: null,
    sharedDirs: ['images'],
    needsKeyframes: true,
    readRows: readLabels,
    write: async ({ loaded, out, images, options }) => {
      await writeStandardized(loaded, images, out, options.embedImages ?? false);
      return { warnings: [], sharedLine: null };
    },
  },
};

/** The definition of format `name`; INVALID_PAYLOAD naming the formats when there is none. */
export function exportFormatOf(name: string): ExportFormatDefinition {
  if (!Object.hasOwn(EXPORT_FORMAT_REGISTRY, name)) {
    throw new AppError(
      'INVALID_PAYLOAD',
      `format must be one of ${EXPORT_FORMATS.join(', ')}, got "${name}"`,
      { field: 'format', format: name },
      `Export as one of ${EXPORT_FORMATS.join(', ')}.`,
    );
  }
  return EXPORT_FORMAT_REGISTRY[name as ExportFormat];
}
