// Exports recordings in the AgentNet/OpenCUA formats. A run is all-or-nothing: every recording
// is read and its video verified first (export-load.ts), everything is staged in a hidden folder
// inside the output folder and committed at the end by journalled renames (export-stage.ts). The
// format registry (formats.ts) says what each format writes and whether it needs keyframe images;
// one module per format writes a recording's files (format-*.ts); the keyframe images come from
// the stored keyframes when they are fresh, else from one extraction (export-keyframes.ts).
import fs from 'node:fs/promises';
import path from 'node:path';
import { AppError } from '../../shared/errors';
import type { Library } from '../library/library';
import { lazyDecodeBinaries, type LazyDecodeBinaries } from '../keyframes/keyframe-extraction';
import { acquireExportLock } from './export-lock';
import type { ExportFormat } from '../../shared/domain';
import { exportKeyframeImages } from './export-keyframes';
import {
  assignEpisodeIds,
  damagedError,
  damageOf,
  isDamage,
  isNoStepsError,
  loadForExport,
  type Loaded,
  type SkippedRecording,
} from './export-load';
import {
  commitStage,
  createStage,
  dropStage,
  orderMoves,
  recoverStaleStages,
  type StageMove,
} from './export-stage';
import { exportFsError, prepareOutDir, rethrowExportFsError } from './export-target';
import { redactingWriter, textRedactorOf } from '../privacy/text-redaction';
import { folderWriter } from './export-writer';
import {
  EXPORT_FORMAT_REGISTRY,
  exportFormatOf,
  type ExportFormatDefinition,
  type FormatWriteInput,
  type FormatWritten,
} from './formats';
import { enforcePiiPolicy, type PiiAllowance, type PiiDecision } from '../privacy/policy';

export { EXPORT_FORMATS, type ExportFormat } from '../../shared/domain';
export { episodeIdOf, verifyVideo, type SkippedRecording } from './export-load';
export {
  extractStepKeyframes,
  keyframeInputOf,
  resolveDecodeBinaries,
  type DecodeBinaries,
} from '../keyframes/keyframe-extraction';

/** Progress of a run: one tick per phase of each recording. */
export type ExportProgress = { done: number; total: number; recordingId: string; phase: string };

/** Options of {@link exportRecordings}. */
export type ExportOptions = {
  format: ExportFormat;
  /** Output folder (created if missing). */
  outDir: string;
  /** Standardized only: embed images as data URIs instead of image files. Default false. */
  embedImages?: boolean;
  /** Replace existing outputs of the same names. Default false (refuse). */
  overwrite?: boolean;
  /** Version written into provenance. */
  appVersion: string;
  /** ffmpeg path (resolved when absent). */
  ffmpegPath?: string;
  /** ffprobe for seeking decodes; with an explicit ffmpegPath, null or absent = decode from 0. */
  ffprobePath?: string | null;
  onProgress?: (p: ExportProgress) => void;
  /** Leave damaged recordings out (listed in {@link ExportRun.skipped}) instead of failing. */
  skipDamaged?: boolean;
  /** Leave recordings with no step out (listed in {@link ExportRun.skipped}, code NO_STEPS)
   * instead of failing: `export --all` (a recording without input has nothing to export). */
  skipEmpty?: boolean;
  /** Export despite unresolved PII findings of a blocking kind (else PII_UNRESOLVED); the
   * allowance is recorded in the review history and the export's metadata (policy.ts). */
  allowPii?: boolean | undefined;
};

/** What one recording produced. */
export type ExportedRecording = {
  id: string;
  episodeId: string;
  /** Paths relative to the output folder. */
  outputs: string[];
  /** Files written for it (every file under `outputs`). */
  files: number;
  steps: number;
  warnings: string[];
  /** Blocking PII findings let through with `allowPii` (absent when none). */
  pii?: PiiAllowance;
};

/** What {@link runExport} produced. */
export type ExportRun = { recordings: ExportedRecording[]; skipped: SkippedRecording[] };

/** Exports recordings into `outDir`; nothing appears there unless every recording succeeded. */
export async function exportRecordings(
  lib: Library,
  ids: readonly string[],
  options: ExportOptions,
): Promise<ExportedRecording[]> {
  return (await runExport(lib, ids, options)).recordings;
}

// The moves of a commit: files of shared folders one by one, other top-level entries whole.
function movesOf(written: readonly string[]): StageMove[] {
  const moves = new Map<string, StageMove>();
  for (const rel of written) {
    const top = rel.split('/')[0]!;
    const unit = SHARED_DIRS.has(top) && rel !== top ? rel : top;
    moves.set(unit, { from: unit, to: unit });
  }
  return [...moves.values()];
}

/**
 * Exports recordings into `outDir`, all or nothing. Damaged recordings (unreadable rows, a
 * missing or changed video) stop the run before anything is written, naming each, unless
 * `skipDamaged`: then the others are exported and the damaged ones listed in `skipped`.
 */
export async function runExport(
  lib: Library,
  ids: readonly string[],
  options: ExportOptions,
): Promise<ExportRun> {
  // an unknown format is refused before anything is read or written
  const format = exportFormatOf(options.format);
  const outDir = path.resolve(options.outDir);
  // read and verify every recording before touching the output folder
  const loaded: Loaded[] = [];
  const skipped: SkippedRecording[] = [];
  for (const id of ids) {
    try {
      loaded.push(await loadForExport(lib, id, options.format));
    } catch (e) {
      if (isNoStepsError(e) && (options.skipEmpty || options.skipDamaged)) {
        // nothing to export (a recording without input): left out with its reason and fix
        skipped.push({ id, code: 'NO_STEPS', message: `${e.message} ${e.fix ?? ''}`.trim() });
        continue;
      }
      if (!isDamage(e)) {
        throw e;
      }
      if (ids.length === 1 && !options.skipDamaged) {
        throw e instanceof AppError
          ? e
          : new AppError(
              'DB_CORRUPT',
              damageOf(id, e).message,
              { recordingId: id },
              'Run `cua-annotator doctor` to check the library.',
            );
      }
      skipped.push(damageOf(id, e));
    }
  }
  const damaged = skipped.filter((s) => s.code !== 'NO_STEPS');
  if (damaged.length && !options.skipDamaged) {
    throw damagedError(damaged);
  }
  // the privacy policy before anything is written (PII_UNRESOLVED refuses the whole run)
  const pii = new Map(
    enforcePiiPolicy(
      lib,
      loaded.map((l) => l.rec.id),
      { action: 'export', allowPii: options.allowPii },
    ).map((d) => [d.id, d]),
  );
  assignEpisodeIds(loaded);
  await prepareOutDir(outDir);
  // the folder's export lock is held while recovering and while checking and committing (not
  // while decoding): another export into the same folder waits for it (export-lock.ts)
  await underLock(outDir, () => recoverStaleStages(outDir));
  let stage: string | null = null;
  try {
    stage = await createStage(outDir);
    const recordings = await writeStage(lib, loaded, stage, outDir, format, options, skipped, pii);
    if (loaded.length && !recordings.results.length) {
      throw damagedError(skipped);
    }
    const moves = await orderMoves(stage, movesOf(recordings.written));
    const committing = stage;
    await underLock(outDir, async () => {
      // a staging folder left by a failed commit of this process is finished first
      await recoverStaleStages(outDir);
      if (!options.overwrite) {
        await refuseExistingTargets(moves.map((m) => path.join(outDir, m.to)));
      }
      await commitStage(committing, outDir, moves);
    });
    return { recordings: recordings.results, skipped };
  } catch (e) {
    throw exportFsError(e, outDir) ?? e;
  } finally {
    // a commit that failed partway keeps its journalled staging folder for the next export
    if (stage !== null) {
      await dropStage(stage);
    }
  }
}

// Runs `body` holding the export lock of `outDir`, file-system errors turned into coded ones.
async function underLock<T>(outDir: string, body: () => Promise<T>): Promise<T> {
  try {
    const release = await acquireExportLock(outDir);
    try {
      return await body();
    } finally {
      await release();
    }
  } catch (e) {
    rethrowExportFsError(e, outDir);
  }
}

// Refuses the export (EXPORT_TARGET_EXISTS) when one of the output paths `targets` already exists
// and the user did not ask to overwrite.
async function refuseExistingTargets(targets: readonly string[]): Promise<void> {
  for (const target of targets) {
    if (await pathExists(target)) {
      throw new AppError(
        'EXPORT_TARGET_EXISTS',
        `${target} already exists; choose another --out or pass --overwrite.`,
        { path: target },
        'Choose another --out folder or pass --overwrite to replace it.',
      );
    }
  }
}

// Writes every recording into the staging folder; a recording whose video turns out unreadable
// while decoding is dropped (and listed in `skipped`) when `skipDamaged`, else the run fails.
async function writeStage(
  lib: Library,
  loaded: Loaded[],
  stage: string,
  outDir: string,
  format: ExportFormatDefinition,
  options: ExportOptions,
  skipped: SkippedRecording[],
  pii: ReadonlyMap<string, PiiDecision>,
): Promise<{ results: ExportedRecording[]; written: string[] }> {
  const results: ExportedRecording[] = [];
  const allWritten: string[] = [];
  const total = loaded.length;
  // a format without keyframe images decodes nothing, nor do the others when every keyframe is
  // stored
  const binaries = lazyDecodeBinaries(options);
  const sharedLines: string[] = [];
  if (!options.overwrite) {
    // refuse before any decoding when a main output already exists
    const mains = loaded.flatMap((l) => format.outputs(l.episodeId));
    await refuseExistingTargets([...new Set(mains)].map((name) => path.join(outDir, name)));
  }
  for (const [i, l] of loaded.entries()) {
    const written: string[] = [];
    try {
      const r = await writeRecording(
        lib,
        l,
        stage,
        format,
        options,
        binaries,
        written,
        sharedLines,
        (phase) => options.onProgress?.({ done: i, total, recordingId: l.rec.id, phase }),
        pii.get(l.rec.id) ?? null,
      );
      results.push(r);
      allWritten.push(...written);
    } catch (e) {
      if (!(options.skipDamaged && isDamage(e) && exportFsError(e, outDir) === null)) {
        if (isDamage(e) && e instanceof AppError && !options.skipDamaged && loaded.length > 1) {
          throw damagedError([damageOf(l.rec.id, e)]);
        }
        throw e;
      }
      skipped.push(damageOf(l.rec.id, e));
      for (const rel of written) {
        await fs.rm(path.join(stage, rel), { recursive: true, force: true });
      }
    }
    options.onProgress?.({ done: i + 1, total, recordingId: l.rec.id, phase: 'done' });
  }
  if (format.sharedFile && sharedLines.length) {
    await folderWriter(stage, allWritten).file(format.sharedFile, sharedLines.join(''));
  }
  return { results, written: allWritten };
}

// Writes one recording's files in the run's format into the staging folder; its line of the
// format's shared file goes to `sharedLines`.
async function writeRecording(
  lib: Library,
  l: Loaded,
  stage: string,
  format: ExportFormatDefinition,
  options: ExportOptions,
  binaries: LazyDecodeBinaries,
  written: string[],
  sharedLines: string[],
  tick: (phase: string) => void,
  pii: PiiDecision | null,
): Promise<ExportedRecording> {
  // every text file with the text redactions applied once more (issue 14; a safety net)
  const out = redactingWriter(folderWriter(stage, written), textRedactorOf(lib, l.rec.seq));
  const warnings: string[] = [...(pii?.warnings ?? [])];
  const input: FormatWriteInput = {
    lib,
    loaded: l,
    out,
    options: {
      appVersion: options.appVersion,
      ...(options.ffmpegPath ? { ffmpegPath: options.ffmpegPath } : {}),
      ...(pii?.allowance ? { pii: pii.allowance } : {}),
      embedImages: options.embedImages ?? false,
    },
  };
  let result: FormatWritten;
  if (format.needsKeyframes) {
    tick('keyframes');
    const images = await exportKeyframeImages(lib, l, binaries, stage);
    warnings.push(...images.warnings);
    tick(format.name);
    result = await format.write({ ...input, images });
  } else {
    tick(format.name);
    result = await format.write(input);
  }
  warnings.push(...result.warnings);
  if (result.sharedLine !== null) {
    sharedLines.push(result.sharedLine);
  }
  return {
    id: l.rec.id,
    episodeId: l.episodeId,
    outputs: [...new Set(written.map((rel) => rel.split('/')[0]!))],
    files: written.length,
    steps: l.steps.length,
    warnings,
    ...(pii?.allowance ? { pii: pii.allowance } : {}),
  };
}

// folders the recordings of a run write into together, of every format (formats.ts)
const SHARED_DIRS = new Set(
  Object.values(EXPORT_FORMAT_REGISTRY).flatMap((format) => format.sharedDirs),
);

/** True when `p` exists (any kind of entry). */
export async function pathExists(p: string): Promise<boolean> {
  try {
    await fs.stat(p);
    return true;
  } catch {
    return false;
  }
}
