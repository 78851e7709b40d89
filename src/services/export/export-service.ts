// Exports recordings in the AgentNet/OpenCUA formats. A run is all-or-nothing: everything is
// staged in a hidden folder inside the output folder and moved into place only at the end.
import { randomBytes } from 'node:crypto';
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
};

/** What one recording produced. */
export type ExportedRecording = {
  id: string;
  episodeId: string;
  /** Paths relative to the output folder. */
  outputs: string[];
  steps: number;
  warnings: string[];
};

/** The id that names a recording's outputs (AgentNet `episode_id`). */
export function episodeIdOf(rec: RecordingDetail): string {
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

async function load(lib: Library, id: string): Promise<Loaded> {
  const rec = getRecording(lib.db, id);
  const { steps, marks, trim } = effectiveStepState(lib, rec.seq);
  const video = rec.videos[0];
  if (!video) {
    throw new AppError(
      'EXPORT_INVALID',
      `Recording ${rec.id} has no video; nothing can be exported.`,
    );
  }
  const videoPath = lib.resolve(video.path);
  try {
    await fs.access(videoPath);
  } catch {
    throw new AppError(
      'EXPORT_INVALID',
      `Recording ${rec.id}: its video ${video.path} is missing from the library.`,
    );
  }
  if (!steps.length) {
    throw new AppError(
      'EXPORT_INVALID',
      `Recording ${rec.id} has no steps; run \`cua-annotator reduce ${rec.id}\` first (zero events give zero steps).`,
    );
  }
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
  outputs: Set<string>,
): Promise<void> {
  const full = path.join(stage, rel);
  await fs.mkdir(path.dirname(full), { recursive: true });
  await fs.writeFile(full, content);
  outputs.add(rel.split('/')[0]!);
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
  const outDir = path.resolve(options.outDir);
  await fs.mkdir(outDir, { recursive: true });
  const stage = path.join(outDir, `.cua-export-${randomBytes(6).toString('hex')}`);
  await fs.mkdir(stage);
  const topLevel = new Set<string>();
  const results: ExportedRecording[] = [];
  const total = ids.length;
  try {
    // agentnet-raw decodes nothing
    const binaries: DecodeBinaries =
      options.format === 'agentnet-raw'
        ? { ffmpegPath: '', ffprobePath: null }
        : await resolveDecodeBinaries(options);
    const jsonlLines: string[] = [];
    const loaded: Loaded[] = [];
    for (const id of ids) {
      loaded.push(await load(lib, id));
    }
    if (!options.overwrite) {
      // refuse before any decoding when a main output already exists
      const mains = loaded.map((l) =>
        options.format === 'agentnet-raw'
          ? l.episodeId
          : options.format === 'standardized'
            ? `${l.episodeId}.json`
            : 'agentnet.jsonl',
      );
      for (const name of new Set(mains)) {
        const target = path.join(outDir, name);
        if (await pathExists(target)) {
          throw new AppError(
            'EXPORT_TARGET_EXISTS',
            `${target} already exists; choose another --out or pass --overwrite.`,
          );
        }
      }
    }
    for (const [i, l] of loaded.entries()) {
      const tick = (phase: string) =>
        options.onProgress?.({ done: i, total, recordingId: l.rec.id, phase });
      const video = l.rec.videos[0]!;
      const outputs = new Set<string>();
      const warnings: string[] = [];
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
          events: readEvents(lib.db, l.rec.seq),
          steps: l.steps,
          a11y: listAxRecords(lib.db, l.rec.seq, 'window').map((r) => ({
            tS: msToSeconds(r.tMs),
            tree: JSON.parse(r.treeJson) as unknown,
            truncated: r.note?.startsWith('truncated') ?? false,
          })),
          elements: listAxRecords(lib.db, l.rec.seq, 'element').map((r) => ({
            tS: msToSeconds(r.tMs),
            tree: JSON.parse(r.treeJson) as unknown,
            x: r.x,
            y: r.y,
          })),
          topWindows: listWindows(lib.db, l.rec.seq).map((w) => ({
            tS: msToSeconds(w.tMs),
            name: w.app ?? w.title ?? '',
          })),
          kept,
        });
        warnings.push(...raw.warnings.map((w) => `step ${w.stepId}: ${w.message}`));
        for (const [name, content] of raw.files) {
          await writeFile(stage, `${l.episodeId}/${name}`, content, outputs);
        }
        // a cut video is named video.mp4, as AgentNet Tool names its cut recordings (spec §7)
        const videoName = kept ? 'video.mp4' : path.basename(video.path);
        if (kept) {
          await cutKeptVideo(l, kept, path.join(stage, l.episodeId, videoName), options.ffmpegPath);
        } else {
          await fs.copyFile(l.videoPath, path.join(stage, l.episodeId, videoName));
        }
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
          await writeFile(stage, `${l.episodeId}.json`, json, outputs);
          if (!options.embedImages) {
            for (const [idx, png] of images) {
              await writeFile(
                stage,
                `images/${standardizedImageName(l.episodeId, idx)}`,
                png,
                outputs,
              );
            }
          }
        } else {
          const imageName = (k: number) => `${l.episodeId}_${k}.png`;
          jsonlLines.push(
            buildAgentNetRecordLine({
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
                  lastStepRedundant:
                    mark === 'redundant' ? true : mark === 'correct' ? false : null,
                };
              },
            }),
          );
          for (const [k, s] of traj.entries()) {
            const png = requireImage(
              pngOf(kf.extraction, s.imageIndex, video.width, video.height),
              l,
              s.imageIndex,
            );
            await writeFile(stage, `images/${imageName(k)}`, png, outputs);
          }
          // the CoT pipeline's input for the same trajectory (pyautogui-code.md §5.1)
          await writeFile(
            stage,
            `cot-input/${l.episodeId}.jsonl`,
            buildCotInputLine(l.episodeId, l.rec.task, traj),
            outputs,
          );
        }
      }
      for (const o of outputs) {
        topLevel.add(o);
      }
      results.push({
        id: l.rec.id,
        episodeId: l.episodeId,
        outputs: [...outputs],
        steps: l.steps.length,
        warnings,
      });
      options.onProgress?.({ done: i + 1, total, recordingId: l.rec.id, phase: 'done' });
    }
    if (jsonlLines.length) {
      await writeFile(stage, 'agentnet.jsonl', jsonlLines.join(''), topLevel);
    }
    await commitStage(stage, outDir, [...topLevel], options.overwrite ?? false);
    return results;
  } finally {
    await fs.rm(stage, { recursive: true, force: true });
  }
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

/** Moves staged top-level entries into `outDir` (refusing to clobber unless `overwrite`). */
async function commitStage(
  stage: string,
  outDir: string,
  entries: string[],
  overwrite: boolean,
): Promise<void> {
  const moves: { from: string; to: string }[] = [];
  for (const name of entries) {
    const staged = path.join(stage, name);
    if (SHARED_DIRS.has(name) && (await fs.stat(staged)).isDirectory()) {
      // shared folders (images/, cot-input/) receive files one by one
      for (const f of await fs.readdir(staged)) {
        moves.push({ from: path.join(staged, f), to: path.join(outDir, name, f) });
      }
    } else {
      moves.push({ from: staged, to: path.join(outDir, name) });
    }
  }
  if (!overwrite) {
    for (const m of moves) {
      if (await pathExists(m.to)) {
        throw new AppError(
          'EXPORT_TARGET_EXISTS',
          `${m.to} already exists; choose another --out or pass --overwrite.`,
        );
      }
    }
  }
  for (const m of moves) {
    await fs.mkdir(path.dirname(m.to), { recursive: true });
    if (overwrite) {
      await fs.rm(m.to, { recursive: true, force: true });
    }
    await fs.rename(m.from, m.to);
  }
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
