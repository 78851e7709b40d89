// Exports recordings in the AgentNet/OpenCUA formats. A run is all-or-nothing: every recording
// is read and its video verified first, everything is staged in a hidden folder inside the output
// folder and committed at the end by journalled renames (export-stage.ts).
import fs from 'node:fs/promises';
import path from 'node:path';
import { msToSeconds } from '../../shared/clock';
import type { RecordingDetail, Step, VideoInfo } from '../../shared/domain';
import { AppError } from '../../shared/errors';
import { buildAgentNetRawFolder } from '../../pipeline/export/agentnet-raw';
import { planKeptRange, type KeptRange, type TrimWindow } from '../../pipeline/export/kept-range';
import { cutVideoFrames } from '../../pipeline/media/cut-video';
import { buildAgentNetRecordLine, buildCotInputLine } from '../../pipeline/export/datasets';
import { buildStandardizedJson, standardizedImageName } from '../../pipeline/export/standardized';
import { buildTrajectory, type TrajectoryStep } from '../../pipeline/export/trajectory';
import type { KeyframeStepInput } from '../../pipeline/keyframes/plan';
import { extractKeyframes, type KeyframeExtraction } from '../../pipeline/media/keyframes-extract';
import { encodePngRgb } from '../../pipeline/media/png';
import { resolveFfmpeg } from '../../recorder/screen/ffmpeg-binary';
import { getLabels, getRecording, listAxRecords, listWindows, readEvents } from '../../store';
import type { Library } from '../library/library';
import { effectiveStepState } from '../steps';
import type { StepMark } from '../../shared/contract';
import { sha256File } from '../../pipeline/io/hash';
import { acquireExportLock } from './export-lock';
import {
  commitStage,
  createStage,
  dropStage,
  orderMoves,
  recoverStaleStages,
  type StageMove,
} from './export-stage';
import { errnoOf, exportFsError, prepareOutDir, rethrowExportFsError } from './export-target';

/** Export formats. */
export const EXPORT_FORMATS = ['agentnet-raw', 'agentnet-jsonl', 'standardized'] as const;
/** One of {@link EXPORT_FORMATS}. */
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

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
};

/** The id that names a recording's outputs (AgentNet `episode_id`). */
export function episodeIdOf(rec: RecordingDetail): string {
  // a folder imported again with --allow-duplicate carries a distinct name
  const episodeName = rec.sourceMetadata?.episodeName;
  if (typeof episodeName === 'string' && episodeName) {
    return episodeName;
  }
  const folder = rec.sourceMetadata?.folderName;
  if (rec.source === 'agentnet-import' && typeof folder === 'string' && folder) {
    return folder;
  }
  const stamp = new Date(rec.createdAtMs).toISOString().replace(/[-:T]/g, '').slice(0, 14);
  return `${stamp}_local_${rec.id}`;
}

const ACTION_WORD: Partial<Record<Step['kind'], string>> = {
  click: 'click',
  doubleClick: 'click',
  tripleClick: 'click',
  rightClick: 'click',
  middleClick: 'click',
  dragTo: 'drag',
  scroll: 'scroll',
  hscroll: 'scroll',
  write: 'type',
  press: 'type',
  hotkey: 'press',
};

/** The keyframe search input of a step (its AgentNet row when imported). */
export function keyframeInputOf(step: Step): KeyframeStepInput {
  const complete = (step.extra.agentnet as { complete?: Record<string, unknown> } | undefined)
    ?.complete;
  const pressStartS = msToSeconds(step.startMs);
  const endS = msToSeconds(step.endMs);
  if (complete) {
    const pre = complete.pre_move as { start_time?: unknown } | undefined;
    return {
      action: typeof complete.action === 'string' ? complete.action : '',
      preMoveStartS: pre && typeof pre.start_time === 'number' ? pre.start_time : null,
      pressStartS,
      endS,
    };
  }
  const action =
    step.extra.longPress === true ? 'mouse_press' : (ACTION_WORD[step.kind] ?? step.kind);
  return {
    action,
    preMoveStartS: step.preMove ? msToSeconds(step.preMove.startMs) : null,
    pressStartS,
    endS,
  };
}

type Loaded = {
  rec: RecordingDetail & { seq: number };
  steps: Step[];
  marks: Map<string, StepMark>;
  episodeId: string;
  videoPath: string;
  /** The trim of the edit log (exports leave the trimmed-out time out: kept-range.ts). */
  trim: TrimWindow;
};

/** A recording left out of an export (`skipDamaged`), with the reason. */
export type SkippedRecording = { id: string; code: string; message: string };

/** What {@link runExport} produced. */
export type ExportRun = { recordings: ExportedRecording[]; skipped: SkippedRecording[] };

// Errors that mean "this recording is damaged" (its rows, its video) rather than "the export
// cannot be done": `export --all` names these up front, `--skip-damaged` leaves them out.
const DAMAGE_CODES = new Set<string>([
  'DB_CORRUPT',
  'INTEGRITY_FAILED',
  'VIDEO_MISSING',
  'VIDEO_UNREADABLE',
  'FFMPEG_FAILED',
]);

function isDamage(e: unknown): boolean {
  // anything not coded while reading rows (SQLITE_CORRUPT, malformed JSON) is damage too
  return !(e instanceof AppError) || DAMAGE_CODES.has(e.code);
}

function damageOf(id: string, e: unknown): SkippedRecording {
  return e instanceof AppError
    ? { id, code: e.code, message: e.message }
    : {
        id,
        code: 'DB_CORRUPT',
        message: `Recording ${id}: its rows cannot be read (${String((e as Error)?.message ?? e)}).`,
      };
}

// The raw layer an agentnet-raw export writes (read once up front too, to find damaged rows).
function readRawLayer(lib: Library, seq: number) {
  return {
    events: readEvents(lib.db, seq),
    a11y: listAxRecords(lib.db, seq, 'window').map((r) => ({
      tS: msToSeconds(r.tMs),
      tree: JSON.parse(r.treeJson) as unknown,
      truncated: r.note?.startsWith('truncated') ?? false,
    })),
    elements: listAxRecords(lib.db, seq, 'element').map((r) => ({
      tS: msToSeconds(r.tMs),
      tree: JSON.parse(r.treeJson) as unknown,
      x: r.x,
      y: r.y,
    })),
    topWindows: listWindows(lib.db, seq).map((w) => ({
      tS: msToSeconds(w.tMs),
      name: w.app ?? w.title ?? '',
    })),
  };
}

/** Checks a library video against the SHA-256 stored when it entered the library. */
export async function verifyVideo(
  lib: Library,
  recordingId: string,
  video: { path: string; sha256: string | null },
): Promise<string> {
  const videoPath = lib.resolve(video.path);
  let actual: string;
  try {
    actual = await sha256File(videoPath);
  } catch (e) {
    if (errnoOf(e) === 'ENOENT') {
      throw new AppError(
        'VIDEO_MISSING',
        `Recording ${recordingId}: its video ${video.path} is missing from the library.`,
        { recordingId, file: video.path },
        `Put the video back or delete the recording (cua-annotator delete ${recordingId}).`,
      );
    }
    throw e;
  }
  if (video.sha256 && actual !== video.sha256) {
    throw new AppError(
      'INTEGRITY_FAILED',
      `Recording ${recordingId}: its video ${video.path} has changed since it entered the library ` +
        `(SHA-256 ${actual.slice(0, 12)}…, stored ${video.sha256.slice(0, 12)}…); it is not exported.`,
      { recordingId, file: video.path, expectedSha256: video.sha256, actualSha256: actual },
      'Restore the video from a backup or re-import the recording from its source folder.',
    );
  }
  return videoPath;
}

async function load(lib: Library, id: string, format: ExportFormat): Promise<Loaded> {
  const rec = getRecording(lib.db, id);
  const { steps, marks, trim } = effectiveStepState(lib, rec.seq);
  const video = rec.videos[0];
  if (!video) {
    throw new AppError(
      'EXPORT_INVALID',
      `Recording ${rec.id} has no video; nothing can be exported.`,
    );
  }
  if (!steps.length) {
    throw new AppError(
      'EXPORT_INVALID',
      `Recording ${rec.id} has no steps; run \`cua-annotator reduce ${rec.id}\` first (zero events give zero steps).`,
    );
  }
  // every row the export will read, so a damaged page stops the run before anything is written
  if (format === 'agentnet-raw') {
    readRawLayer(lib, rec.seq);
  } else {
    getLabels(lib.db, rec.seq);
  }
  const videoPath = await verifyVideo(lib, rec.id, video);
  return { rec, steps, marks, episodeId: episodeIdOf(rec), videoPath, trim };
}

// The part of a trimmed recording an export keeps (null: untrimmed, everything is exported).
function keptRangeOf(l: Loaded): KeptRange | null {
  if (l.trim.startMs === null && l.trim.endMs === null) {
    return null;
  }
  const video = l.rec.videos[0]!;
  if (!video.frameCount) {
    throw new AppError(
      'EXPORT_INVALID',
      `Recording ${l.rec.id} is trimmed but its video's frame count is unknown, so the video cannot be cut.`,
      { recordingId: l.rec.id },
      'Re-import the recording with ffprobe installed, or remove the trim.',
    );
  }
  return planKeptRange({ ...video, frameCount: video.frameCount }, l.steps, l.trim);
}

// Writes the kept frames of a trimmed recording's video (docs/agentnet-raw-export.md §3).
async function cutKeptVideo(
  l: Loaded,
  kept: KeptRange,
  outputPath: string,
  ffmpegPath: string | undefined,
): Promise<void> {
  await cutVideoFrames({
    ffmpegPath: ffmpegPath || (await resolveFfmpeg()).path,
    inputPath: l.videoPath,
    outputPath,
    startFrame: kept.startFrame,
    endFrame: kept.endFrame,
  });
}

// Recordings that share an episode name get their own: the first (in library order) keeps it,
// the others get `_<first 8 characters of their id>`.
function assignEpisodeIds(loaded: Loaded[]): void {
  const groups = new Map<string, Loaded[]>();
  for (const l of loaded) {
    groups.set(l.episodeId, [...(groups.get(l.episodeId) ?? []), l]);
  }
  const taken = new Set(groups.keys());
  for (const [name, group] of groups) {
    if (group.length < 2) {
      continue;
    }
    group.sort((a, b) => a.rec.seq - b.rec.seq);
    for (const l of group.slice(1)) {
      let candidate = `${name}_${l.rec.id.slice(0, 8)}`;
      for (let n = 2; taken.has(candidate); n += 1) {
        candidate = `${name}_${l.rec.id.slice(0, 8)}_${n}`;
      }
      taken.add(candidate);
      l.episodeId = candidate;
    }
  }
}

function damagedError(damaged: SkippedRecording[]): AppError {
  return new AppError(
    'EXPORT_DAMAGED',
    `${damaged.length} recording(s) cannot be exported, so nothing was written:\n` +
      damaged.map((d) => `  ${d.id}: [${d.code}] ${d.message}`).join('\n'),
    { damaged },
    'Pass --skip-damaged to export the others, or repair or delete the damaged recordings.',
  );
}

/** ffmpeg, and ffprobe for seeking decodes (null: decode from frame 0), for keyframes. */
export type DecodeBinaries = { ffmpegPath: string; ffprobePath: string | null };

// The given binaries (an explicit ffmpeg comes with its ffprobe or none), else the resolved ones.
export async function resolveDecodeBinaries(options: {
  ffmpegPath?: string;
  ffprobePath?: string | null;
}): Promise<DecodeBinaries> {
  if (options.ffmpegPath) {
    return { ffmpegPath: options.ffmpegPath, ffprobePath: options.ffprobePath ?? null };
  }
  const binary = await resolveFfmpeg();
  return { ffmpegPath: binary.path, ffprobePath: binary.ffprobePath };
}

// The keyframes of `steps` in a recording's video (frame count and rate must be known).
export async function extractStepKeyframes(
  videoPath: string,
  video: VideoInfo & { frameCount: number },
  steps: readonly Step[],
  binaries: DecodeBinaries,
): Promise<KeyframeExtraction> {
  return await extractKeyframes({
    videoPath,
    ...binaries,
    videoStartS: msToSeconds(video.startMs),
    fps: video.fps,
    frameCount: video.frameCount,
    width: video.width,
    height: video.height,
    steps: steps.map(keyframeInputOf),
  });
}

async function keyframes(
  l: Loaded,
  binaries: DecodeBinaries,
  cutDir: string,
): Promise<{ extraction: KeyframeExtraction; warnings: string[] }> {
  const source = l.rec.videos[0]!;
  if (!source.frameCount) {
    throw new AppError(
      'EXPORT_INVALID',
      `Recording ${l.rec.id}: the video's frame count is unknown; re-import it with ffprobe installed.`,
    );
  }
  // a trimmed recording's frames come from its cut video, exactly as agentnet-raw writes it
  const kept = keptRangeOf(l);
  const video = kept
    ? { ...source, startMs: kept.videoStartMs, frameCount: kept.endFrame - kept.startFrame }
    : { ...source, frameCount: source.frameCount };
  const videoPath = kept ? path.join(cutDir, `.cut-${l.rec.id}.mp4`) : l.videoPath;
  if (kept) {
    await cutKeptVideo(l, kept, videoPath, binaries.ffmpegPath);
  }
  const lastEndMs = Math.max(...l.steps.map((s) => s.endMs));
  const videoEndMs = video.startMs + (video.frameCount / video.fps) * 1000;
  const warnings: string[] = [];
  if (lastEndMs > videoEndMs) {
    warnings.push(
      `VIDEO_SHORTER_THAN_STEPS: the last step ends ${((lastEndMs - videoEndMs) / 1000).toFixed(3)} s after the video`,
    );
  }
  const extraction = await extractStepKeyframes(videoPath, video, l.steps, binaries).finally(() =>
    kept ? fs.rm(videoPath, { force: true }) : undefined,
  );
  extraction.steps.forEach((k, i) => {
    for (const d of k.diagnostics) {
      warnings.push(`step ${l.steps[i]?.id}: ${d.code}: ${d.message}`);
    }
  });
  for (const d of extraction.terminate?.diagnostics ?? []) {
    warnings.push(`terminate: ${d.code}: ${d.message}`);
  }
  return { extraction, warnings };
}

function pngOf(
  extraction: KeyframeExtraction,
  imageIndex: number,
  width: number,
  height: number,
): Buffer | null {
  const k =
    imageIndex < extraction.steps.length ? extraction.steps[imageIndex] : extraction.terminate;
  return k?.rgb ? encodePngRgb(k.rgb, width, height) : null;
}

async function writeFile(
  stage: string,
  rel: string,
  content: string | Buffer,
  written: string[],
): Promise<void> {
  const full = path.join(stage, rel);
  await fs.mkdir(path.dirname(full), { recursive: true });
  await fs.writeFile(full, content);
  written.push(rel);
}

function requireImage(png: Buffer | null, l: Loaded, imageIndex: number): Buffer {
  if (!png) {
    throw new AppError(
      'EXPORT_INVALID',
      `Recording ${l.rec.id}: no frame could be read for image ${imageIndex} (outside the video?); the export was not written.`,
    );
  }
  return png;
}

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
  const outDir = path.resolve(options.outDir);
  // read and verify every recording before touching the output folder
  const loaded: Loaded[] = [];
  const skipped: SkippedRecording[] = [];
  for (const id of ids) {
    try {
      loaded.push(await load(lib, id, options.format));
    } catch (e) {
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
  if (skipped.length && !options.skipDamaged) {
    throw damagedError(skipped);
  }
  assignEpisodeIds(loaded);
  await prepareOutDir(outDir);
  // the folder's export lock is held while recovering and while checking and committing (not
  // while decoding): another export into the same folder waits for it (export-lock.ts)
  await underLock(outDir, () => recoverStaleStages(outDir));
  let stage: string | null = null;
  try {
    stage = await createStage(outDir);
    const recordings = await writeStage(lib, loaded, stage, outDir, options, skipped);
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
  options: ExportOptions,
  skipped: SkippedRecording[],
): Promise<{ results: ExportedRecording[]; written: string[] }> {
  const results: ExportedRecording[] = [];
  const allWritten: string[] = [];
  const total = loaded.length;
  // agentnet-raw decodes nothing
  const binaries: DecodeBinaries =
    options.format === 'agentnet-raw'
      ? { ffmpegPath: '', ffprobePath: null }
      : await resolveDecodeBinaries(options);
  const jsonlLines: string[] = [];
  if (!options.overwrite) {
    // refuse before any decoding when a main output already exists
    const mains = loaded.map((l) =>
      options.format === 'agentnet-raw'
        ? l.episodeId
        : options.format === 'standardized'
          ? `${l.episodeId}.json`
          : 'agentnet.jsonl',
    );
    await refuseExistingTargets([...new Set(mains)].map((name) => path.join(outDir, name)));
  }
  for (const [i, l] of loaded.entries()) {
    const written: string[] = [];
    try {
      const r = await writeRecording(
        lib,
        l,
        stage,
        options,
        binaries,
        written,
        jsonlLines,
        (phase) => options.onProgress?.({ done: i, total, recordingId: l.rec.id, phase }),
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
  if (jsonlLines.length) {
    await writeFile(stage, 'agentnet.jsonl', jsonlLines.join(''), allWritten);
  }
  return { results, written: allWritten };
}

async function writeRecording(
  lib: Library,
  l: Loaded,
  stage: string,
  options: ExportOptions,
  binaries: DecodeBinaries,
  written: string[],
  jsonlLines: string[],
  tick: (phase: string) => void,
): Promise<ExportedRecording> {
  const video = l.rec.videos[0]!;
  const warnings: string[] = [];
  let line: string | null = null;
  if (options.format === 'agentnet-raw') {
    tick('agentnet-raw');
    const kept = keptRangeOf(l);
    const raw = buildAgentNetRawFolder({
      task: { taskName: l.rec.task, description: l.rec.description },
      metadata: agentNetMetadata(l.rec),
      provenance: {
        app: 'cua-annotator',
        appVersion: options.appVersion,
        recordingId: l.rec.id,
        clock: 'recording clock, seconds',
        exportedAt: new Date().toISOString(),
      },
      videoStartS: msToSeconds(video.startMs),
      steps: l.steps,
      ...readRawLayer(lib, l.rec.seq),
      kept,
    });
    warnings.push(...raw.warnings.map((w) => `step ${w.stepId}: ${w.message}`));
    for (const [name, content] of raw.files) {
      await writeFile(stage, `${l.episodeId}/${name}`, content, written);
    }
    // a cut video is named video.mp4, as AgentNet Tool names its cut recordings
    // (docs/agentnet-raw-format.md §7)
    const videoRel = `${l.episodeId}/${kept ? 'video.mp4' : path.basename(video.path)}`;
    if (kept) {
      await cutKeptVideo(l, kept, path.join(stage, videoRel), options.ffmpegPath);
    } else {
      await fs.copyFile(l.videoPath, path.join(stage, videoRel));
    }
    written.push(videoRel);
  } else {
    tick('keyframes');
    const kf = await keyframes(l, binaries, stage);
    warnings.push(...kf.warnings);
    const traj: TrajectoryStep[] = buildTrajectory(l.steps);
    tick(options.format);
    if (options.format === 'standardized') {
      const images = new Map<number, Buffer>();
      for (const s of traj) {
        images.set(
          s.imageIndex,
          requireImage(
            pngOf(kf.extraction, s.imageIndex, video.width, video.height),
            l,
            s.imageIndex,
          ),
        );
      }
      const json = buildStandardizedJson({
        episodeId: l.episodeId,
        taskName: l.rec.task,
        steps: traj,
        imageContent: (idx) =>
          options.embedImages
            ? `data:image/png;base64,${images.get(idx)!.toString('base64')}`
            : `images/${standardizedImageName(l.episodeId, idx)}`,
      });
      await writeFile(stage, `${l.episodeId}.json`, json, written);
      if (!options.embedImages) {
        for (const [idx, png] of images) {
          await writeFile(stage, `images/${standardizedImageName(l.episodeId, idx)}`, png, written);
        }
      }
    } else {
      const imageName = (k: number) => `${l.episodeId}_${k}.png`;
      line = buildAgentNetRecordLine({
        taskId: l.episodeId,
        instruction: l.rec.task,
        labels: {
          ...getLabels(lib.db, l.rec.seq).labels,
          reason: null,
          naturalLanguageTask: null,
          actualTask: null,
        },
        steps: traj,
        imageName,
        marks: (k) => {
          const step = l.steps[traj[k]?.imageIndex ?? -1];
          const mark = step ? l.marks.get(step.id) : undefined;
          return {
            lastStepCorrect: mark === 'correct' ? true : mark === 'incorrect' ? false : null,
            lastStepRedundant: mark === 'redundant' ? true : mark === 'correct' ? false : null,
          };
        },
      });
      for (const [k, s] of traj.entries()) {
        const png = requireImage(
          pngOf(kf.extraction, s.imageIndex, video.width, video.height),
          l,
          s.imageIndex,
        );
        await writeFile(stage, `images/${imageName(k)}`, png, written);
      }
      // the CoT pipeline's input for the same trajectory (docs/pyautogui-code.md §5.1)
      await writeFile(
        stage,
        `cot-input/${l.episodeId}.jsonl`,
        buildCotInputLine(l.episodeId, l.rec.task, traj),
        written,
      );
    }
  }
  if (line !== null) {
    jsonlLines.push(line);
  }
  return {
    id: l.rec.id,
    episodeId: l.episodeId,
    outputs: [...new Set(written.map((rel) => rel.split('/')[0]!))],
    files: written.length,
    steps: l.steps.length,
    warnings,
  };
}

/** The metadata.json of an exported recording (the imported one kept, ours built per §13.3). */
function agentNetMetadata(rec: RecordingDetail): Record<string, unknown> {
  const original = rec.sourceMetadata?.metadata;
  if (original && typeof original === 'object') {
    return { ...(original as Record<string, unknown>) };
  }
  const video = rec.videos[0];
  return {
    system: rec.platform.system,
    release: rec.platform.release,
    version: rec.platform.version,
    machine: rec.platform.machine,
    processor: '',
    screen_width: rec.screen.width,
    screen_height: rec.screen.height,
    model: rec.platform.model ?? 'Unknown',
    scroll_direction: 1,
    start_time: rec.startedAt ?? '',
    video_start_timestamp: video ? msToSeconds(video.startMs) : 0,
    stop_time: rec.stoppedAt ?? '',
    obs_record_state_timings: {},
  };
}

const SHARED_DIRS = new Set(['images', 'cot-input']);

/** True when `p` exists (any kind of entry). */
export async function pathExists(p: string): Promise<boolean> {
  try {
    await fs.stat(p);
    return true;
  } catch {
    return false;
  }
}
