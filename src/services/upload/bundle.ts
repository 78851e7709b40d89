// Builds a recording's submission: the files that go under <prefix>/<annotator>/<recording-id>/.
//
//   video/<name>.mp4                 the recording's video file(s), byte for byte
//   files/<path>                     every other file of the recording the library knows of (an
//                                    import's AgentNet source files, computed keyframes); a
//                                    stray file dropped into the folder is not shipped; of the
//                                    source files (raw/) only text ones, which the PII scan
//                                    reads, and none with `privacy.uploadRawFiles` off
//   raw/recording.json               the recording row (task, platform, screen, clock facts)
//   raw/<table>.jsonl                raw layer rows: events, ax_records, windows, marks, videos
//   steps/steps.json                 the steps with every edit applied (what exports use)
//   steps/<table>.jsonl              steps as reduced, the edit log, labels, reviews, keyframes
//   db/<table>.jsonl                 rows of any other table keyed by recording
//   keyframes/<episode>_<k>.png      the keyframe of every step (+ terminate), as exported
//   agentnet/<episode>/…             agentnet-raw export (its mp4 is video/<name>, not repeated)
//   agentnet/agentnet.jsonl          agentnet-jsonl export (images = keyframes/)
//   agentnet/cot-input/<episode>.jsonl
//   manifest.json                    written last, by the engine (manifest.ts)
//
// Generated files are staged in the library (uploads/<upload id>/) so an interrupted upload
// resumes with the same bytes; library files (the video) are read in place. The AgentNet files
// are written by the export's formats (BUNDLE_FORMATS, through export/formats.ts) straight into
// the staging folder, and the keyframes are the stored ones when fresh (the video is decoded only
// when they are not).
import type { Dirent } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { schemaVersion } from '../../store';
import { getRecording, listKeyframes } from '../../store';
import type { ExportFormat } from '../../shared/domain';
import { AppError } from '../../shared/errors';
import { exportKeyframeImages } from '../export/export-keyframes';
import { episodeIdOf, loadForExport, verifyVideo } from '../export/export-load';
import type { ExportWriter } from '../export/export-writer';
import {
  EXPORT_FORMAT_REGISTRY,
  type FormatWriteInput,
  type FormatWritten,
} from '../export/formats';
import { pixelRedactions, redactsVideo, writeRedactedVideo } from '../privacy/redact-media';
import { dumpRowRedactor, redactingWriter, textRedactorOf } from '../privacy/text-redaction';
import { rawFilesOf, readRawText } from '../privacy/raw-files';
import { readPrivacySettings } from '../settings/settings-service';
import { exclusionDumpFilter } from '../recording/exclusion-marks';
import { lazyDecodeBinaries } from '../keyframes/keyframe-extraction';
import type { Library } from '../library/library';
import { effectiveSteps } from '../steps';
import type { FileRole } from './manifest';
import { isSafeRelativePath } from './manifest';
import { RAW_SUBDIR } from '../import/agentnet-import';
import {
  dumpRecordingRow,
  dumpTableLines,
  recordingFingerprint,
  recordingTables,
  tableDumpPath,
} from './recording-dump';

/** One file of a submission before hashing. */
export type BundleFile = {
  /** Path inside the submission folder. */
  relKey: string;
  role: FileRole;
  /** Library-relative path of the bytes (absolute for extra files outside the library). */
  path: string;
  /** video/file roles: path inside the recording's library folder. */
  libraryPath?: string;
  /** table role: the table dumped. */
  table?: string;
};

/** A built submission (without the manifest). */
export type Bundle = {
  recordingId: string;
  episodeId: string;
  stepCount: number;
  librarySchemaVersion: number;
  /** {@link recordingFingerprint} when built: a later edit makes the staged files stale. */
  fingerprint: string;
  /** Built with `privacy.uploadRawFiles` off (an import's kept files left out); a staged bundle
   * built with the other value is built again. */
  rawFilesHome?: boolean;
  files: BundleFile[];
};

/** A file added to a submission as-is (tests and benchmarks: a large blob). */
export type ExtraFile = {
  /** Key inside the submission folder, e.g. `extra/blob.bin`. */
  relKey: string;
  /** Absolute path of the file. */
  path: string;
};

/** Options of {@link buildBundle}. */
export type BundleOptions = {
  /** Version written into exports and the manifest. */
  appVersion: string;
  /** Export agentnet-jsonl with keyframe images (the stored keyframes when fresh, else decoded
   * from the video). Default true. */
  includeKeyframes?: boolean;
  extraFiles?: readonly ExtraFile[];
  /** ffmpeg path for keyframes (resolved when absent). */
  ffmpegPath?: string;
  /** ffprobe beside an explicit ffmpegPath (seeking decodes); null or absent: none. */
  ffprobePath?: string | null;
};

/** The export formats a submission carries under agentnet/, in this order; those that need
 * keyframe images only with {@link BundleOptions.includeKeyframes}. */
export const BUNDLE_FORMATS: readonly ExportFormat[] = ['agentnet-raw', 'agentnet-jsonl'];

/** Name of the marker file a finished staging folder contains (the file list as JSON). */
export const STAGE_MARKER = '.bundle.json';

async function walk(dir: string, rel = ''): Promise<string[]> {
  let entries: Dirent[];
  try {
    entries = await fs.readdir(path.join(dir, rel), { withFileTypes: true });
  } catch {
    return [];
  }
  const out: string[] = [];
  for (const e of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    if (e.name.startsWith('.')) {
      continue; // staging leftovers of importers/exporters
    }
    const p = rel ? `${rel}/${e.name}` : e.name;
    if (e.isDirectory()) {
      out.push(...(await walk(dir, p)));
    } else if (e.isFile()) {
      out.push(p);
    }
  }
  return out;
}

// The files of a recording's folder the library knows of (paths relative to the folder): its
// videos, an import's source files (raw/), its computed keyframes.
function knownFiles(
  lib: Library,
  rec: ReturnType<typeof getRecording>,
  recDir: string,
): Set<string> {
  const rel = (libraryPath: string) =>
    path.relative(recDir, lib.resolve(libraryPath)).split(path.sep).join('/');
  const known = new Set<string>(rec.videos.map((v) => rel(v.path)));
  const sourceFiles = rec.sourceMetadata?.files;
  if (Array.isArray(sourceFiles)) {
    for (const f of sourceFiles as { name?: unknown }[]) {
      if (typeof f?.name === 'string') {
        known.add(`${RAW_SUBDIR}/${f.name}`);
      }
    }
  }
  for (const k of listKeyframes(lib.db, rec.seq).values()) {
    if (k.path) {
      known.add(rel(k.path));
    }
  }
  return known;
}

// Builds (or reuses, when complete and current) the staged submission of a recording.
export async function buildBundle(
  lib: Library,
  recordingId: string,
  stageDir: string,
  options: BundleOptions,
): Promise<Bundle> {
  const marker = path.join(stageDir, STAGE_MARKER);
  const rec = getRecording(lib.db, recordingId);
  const fingerprint = recordingFingerprint(lib, rec.seq);
  // an import's kept source files (issue 26, item 2): they leave only as text the PII scan read,
  // and not at all with `privacy.uploadRawFiles` off (docs/privacy.md §5)
  const uploadRawFiles = readPrivacySettings(lib).uploadRawFiles;
  // the videos leave the library (read in place, also by a resumed upload): their bytes must
  // still be the ones stored when they entered it
  for (const v of rec.videos) {
    await verifyVideo(lib, rec.id, v);
  }
  try {
    const staged = JSON.parse(await fs.readFile(marker, 'utf8')) as Bundle;
    if (staged.fingerprint === fingerprint && (staged.rawFilesHome ?? false) === !uploadRawFiles) {
      return staged;
    }
    // edited (or re-reduced, relabelled, reviewed) since it was staged: build again
  } catch {
    // not staged yet (or interrupted while staging): build from scratch
  }
  await fs.rm(stageDir, { recursive: true, force: true });
  await fs.mkdir(stageDir, { recursive: true });
  const relStage = path.relative(lib.dir, stageDir).split(path.sep).join('/');
  const files: BundleFile[] = [];
  const staged = async (
    relKey: string,
    role: FileRole,
    content: string | Buffer,
    table?: string,
  ) => {
    const full = path.join(stageDir, relKey);
    await fs.mkdir(path.dirname(full), { recursive: true });
    await fs.writeFile(full, content);
    files.push({ relKey, role, path: `${relStage}/${relKey}`, ...(table ? { table } : {}) });
  };

  // the recording's own folder: videos under video/, everything else under files/
  const recDir = lib.resolve(rec.dir);
  const videoPaths = new Map(
    rec.videos.map((v, i) => [
      path.relative(recDir, lib.resolve(v.path)).split(path.sep).join('/'),
      i,
    ]),
  );
  const videoNames = new Set<string>();
  const known = knownFiles(lib, rec, recDir);
  // pixel redactions (issue 14): the videos leave redacted, stored keyframe PNGs and other
  // videos of the folder stay home (the bundle's keyframes/ are redacted)
  const redactions = pixelRedactions(lib, rec.seq);
  // text redactions (issue 14): the dump, steps and AgentNet files leave redacted; the imported
  // source files (raw text) stay home, the agentnet/ folder carries them redacted
  const textRedactor = textRedactorOf(lib, rec.seq);
  const dumpRow = dumpRowRedactor(lib, rec.seq);
  // moves over excluded windows and the exclusion rules stay home (docs/privacy.md §2)
  const excluded = exclusionDumpFilter(lib, rec.seq);
  const rawFiles = new Map(rawFilesOf(lib, rec).map((f) => [f.rel, f]));
  const storedPngs = new Set(
    [...listKeyframes(lib.db, rec.seq).values()].flatMap((k) =>
      k.path ? [path.relative(recDir, lib.resolve(k.path)).split(path.sep).join('/')] : [],
    ),
  );
  for (const rel of await walk(recDir)) {
    if (!known.has(rel)) {
      continue; // not a file of this recording (a stray file in its folder)
    }
    const ord = videoPaths.get(rel);
    if (ord !== undefined) {
      let name = path.posix.basename(rel);
      if (videoNames.has(name)) {
        name = `${ord}-${name}`;
      }
      videoNames.add(name);
      const video = rec.videos[ord]!;
      if (redactsVideo(redactions, video, null)) {
        const relKey = `video/${name}`;
        const full = path.join(stageDir, relKey);
        await fs.mkdir(path.dirname(full), { recursive: true });
        await writeRedactedVideo({
          inputPath: lib.resolve(video.path),
          outputPath: full,
          video,
          redactions,
          kept: null,
          ffmpegPath: options.ffmpegPath,
        });
        files.push({ relKey, role: 'video', path: `${relStage}/${relKey}`, libraryPath: rel });
        continue;
      }
      files.push({
        relKey: `video/${name}`,
        role: 'video',
        path: `${rec.dir}/${rel}`,
        libraryPath: rel,
      });
    } else if (
      redactions.length &&
      (storedPngs.has(rel) || /\.(mp4|mkv|webm|mov|avi)$/i.test(rel))
    ) {
      continue;
    } else if (textRedactor.isActive && !storedPngs.has(rel)) {
      continue;
    } else if (rawFiles.has(rel) && (!uploadRawFiles || readRawText(rawFiles.get(rel)!) === null)) {
      continue;
    } else {
      files.push({
        relKey: `files/${rel}`,
        role: 'file',
        path: `${rec.dir}/${rel}`,
        libraryPath: rel,
      });
    }
  }
  for (const [rel] of videoPaths) {
    if (!files.some((f) => f.role === 'video' && f.libraryPath === rel)) {
      throw new AppError(
        'EXPORT_INVALID',
        `Recording ${rec.id}: its video ${rel} is missing from the library folder ${rec.dir}.`,
      );
    }
  }

  // database rows: the recording, every table keyed by it, and the effective steps
  const dumped = dumpRecordingRow(lib.db, rec.seq);
  const recordingRow = dumpRow ? dumpRow('recordings', dumped) : dumped;
  await staged('raw/recording.json', 'recording', `${JSON.stringify(recordingRow, null, 2)}\n`);
  for (const table of recordingTables(lib.db)) {
    const lines = [...dumpTableLines(lib.db, table, rec.seq)].flatMap((line) => {
      if (!dumpRow && !excluded) {
        return [line];
      }
      const row = JSON.parse(line) as Record<string, unknown>;
      const kept = excluded ? excluded(table.name, row) : row;
      return kept ? [`${JSON.stringify(dumpRow ? dumpRow(table.name, kept) : kept)}\n`] : [];
    });
    if (lines.length) {
      await staged(tableDumpPath(table.name), 'table', lines.join(''), table.name);
    }
  }
  const steps = effectiveSteps(lib, rec.seq);
  await staged(
    'steps/steps.json',
    'steps',
    `${JSON.stringify(textRedactor.value(steps), null, 2)}\n`,
  );

  // AgentNet exports (the same format writers as `cua-annotator export`), written in place
  const episodeId = episodeIdOf(rec);
  const loaded = await loadForExport(lib, rec.id, 'agentnet-raw', { isVerified: true });
  const writer = (keyOf: (rel: string) => { relKey: string; role: FileRole }): ExportWriter => {
    const target = async (rel: string): Promise<string> => {
      const { relKey, role } = keyOf(rel);
      const full = path.join(stageDir, relKey);
      await fs.mkdir(path.dirname(full), { recursive: true });
      files.push({ relKey, role, path: `${relStage}/${relKey}` });
      return full;
    };
    return redactingWriter(
      {
        target,
        file: async (rel, content) => {
          await fs.writeFile(await target(rel), content);
        },
      },
      textRedactor,
    );
  };
  for (const name of BUNDLE_FORMATS) {
    const format = EXPORT_FORMAT_REGISTRY[name];
    if (format.needsKeyframes && !(options.includeKeyframes ?? true)) {
      continue;
    }
    const input: FormatWriteInput = {
      lib,
      loaded,
      // a format's images are the submission's keyframes/
      out: writer((rel) =>
        format.needsKeyframes && rel.startsWith('images/')
          ? { relKey: `keyframes/${rel.slice('images/'.length)}`, role: 'keyframe' }
          : { relKey: `agentnet/${rel}`, role: 'agentnet' },
      ),
      options: {
        appVersion: options.appVersion,
        // the same bytes as video/<name>
        omitSourceVideo: true,
        ...(options.ffmpegPath ? { ffmpegPath: options.ffmpegPath } : {}),
      },
    };
    let result: FormatWritten;
    if (format.needsKeyframes) {
      const binaries = lazyDecodeBinaries(options);
      const images = await exportKeyframeImages(lib, loaded, binaries, stageDir);
      result = await format.write({ ...input, images });
    } else {
      result = await format.write(input);
    }
    if (format.sharedFile && result.sharedLine !== null) {
      await staged(
        `agentnet/${format.sharedFile}`,
        'agentnet',
        textRedactor.string(result.sharedLine),
      );
    }
  }

  for (const extra of options.extraFiles ?? []) {
    if (!isSafeRelativePath(extra.relKey) || !path.isAbsolute(extra.path)) {
      throw new AppError('UPLOAD_CONFIG', `Extra file ${extra.relKey} → ${extra.path} is invalid.`);
    }
    files.push({ relKey: extra.relKey, role: 'extra', path: extra.path });
  }
  const keys = new Set<string>();
  for (const f of files) {
    if (keys.has(f.relKey) || !isSafeRelativePath(f.relKey)) {
      throw new AppError('UPLOAD_CONFIG', `Submission key ${f.relKey} is duplicated or unsafe.`);
    }
    keys.add(f.relKey);
  }
  const bundle: Bundle = {
    recordingId: rec.id,
    episodeId,
    stepCount: steps.length,
    librarySchemaVersion: schemaVersion(lib.db),
    fingerprint,
    ...(uploadRawFiles ? {} : { rawFilesHome: true }),
    files: files.sort((a, b) => (a.relKey < b.relKey ? -1 : a.relKey > b.relKey ? 1 : 0)),
  };
  await fs.writeFile(marker, JSON.stringify(bundle));
  return bundle;
}
