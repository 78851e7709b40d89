// Computes and stores the keyframe of every current step (native mode: the chosen time per step,
// docs/keyframes.md §1, §6). All or nothing: PNGs are staged beside the recording's
// keyframes/ folder, swapped in, and the rows are replaced in one transaction; on any failure
// the previous keyframes stay.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { secondsToMs } from '../../shared/clock';
import type { Step } from '../../shared/domain';
import { AppError } from '../../shared/errors';
import type { ExtractedKeyframe } from '../../pipeline/media/keyframes-extract';
import { encodePngRgb } from '../../pipeline/media/png';
import { getRecording, listKeyframes, replaceKeyframes, type KeyframeRecord } from '../../store';
import type { ServiceContext } from '../context';
import {
  extractStepKeyframes,
  keyframeInputOf,
  pathExists,
  resolveDecodeBinaries,
} from '../export/export-service';
import type { Library } from '../library/library';
import { effectiveSteps } from '../steps';

/** Folder (inside a recording's folder) of its keyframe PNGs. */
export const KEYFRAMES_DIR = 'keyframes';

/** Options of {@link computeKeyframes}. */
export type ComputeKeyframesOptions = {
  /** ffmpeg executable; resolved (CUA_FFMPEG, ffmpeg-static, PATH) when absent. */
  ffmpegPath?: string;
  /** ffprobe for the frame timeline (seeking decodes); with an explicit ffmpegPath, null or
   * absent means one decode from frame 0. */
  ffprobePath?: string | null;
  /** Clock for `computed_at` (epoch ms); default Date.now. */
  now?: () => number;
};

/** What one computation stored. */
export type ComputedKeyframes = {
  /** Steps with a keyframe row. */
  steps: number;
  /** Distinct PNG files written. */
  files: number;
  /** Per-step problems (`step <id>: CODE: message`). */
  diagnostics: string[];
};

/** The keyframe search input of a step as stored (a different input later = stale row). */
export function keyframeInputKey(step: Step): string {
  return JSON.stringify(keyframeInputOf(step));
}

/** The PNG file name of a video frame. */
export function keyframeFileName(frame: number): string {
  return `frame-${String(frame).padStart(6, '0')}.png`;
}

/** Keyframe jobs under way, by {@link jobKey}. */
const running = new Set<string>();

// One recording of one library: the key of its keyframe jobs and background refreshes.
function jobKey(lib: Library, id: string): string {
  return `${lib.dir}\0${id}`;
}

// Runs keyframe extraction over the recording's effective steps and stores PNGs + times.
export async function computeKeyframes(
  lib: Library,
  idOrPrefix: string,
  options: ComputeKeyframesOptions = {},
): Promise<ComputedKeyframes> {
  const rec = getRecording(lib.db, idOrPrefix);
  const key = jobKey(lib, rec.id);
  // a refresh after an edit is part of the same work: let it finish rather than refuse
  await keyframesSettled(lib, rec.id);
  if (running.has(key)) {
    throw new AppError(
      'INVALID_STATE',
      `Keyframes of recording ${rec.id} are already being computed; wait for that run to finish.`,
      { id: rec.id },
    );
  }
  running.add(key);
  try {
    return await compute(lib, rec, options);
  } finally {
    running.delete(key);
  }
}

/**
 * Computes the keyframes of the steps whose keyframe is missing or stale (a merge, split, insert
 * or changed action gives a step a new keyframe search) and keeps every other row and file.
 * Only for recordings whose keyframes were computed before (the others wait for the user's
 * "Compute keyframes"); null when there was nothing it could do.
 */
export async function refreshStaleKeyframes(
  lib: Library,
  idOrPrefix: string,
  options: ComputeKeyframesOptions = {},
): Promise<ComputedKeyframes | null> {
  const rec = getRecording(lib.db, idOrPrefix);
  const video = rec.videos[0];
  const existing = listKeyframes(lib.db, rec.seq);
  if (existing.size === 0 || !video?.frameCount || !(video.fps > 0)) {
    return null;
  }
  const stale = effectiveSteps(lib, rec.seq).filter(
    (step) => existing.get(step.id)?.inputJson !== keyframeInputKey(step),
  );
  if (stale.length === 0) {
    return { steps: 0, files: 0, diagnostics: [] };
  }
  const key = jobKey(lib, rec.id);
  if (running.has(key)) {
    return null;
  }
  running.add(key);
  try {
    const extraction = await extractStepKeyframes(
      lib.resolve(video.path),
      { ...video, frameCount: video.frameCount },
      stale,
      await resolveDecodeBinaries(options),
    );
    const final = path.join(lib.resolve(rec.dir), KEYFRAMES_DIR);
    await fs.mkdir(final, { recursive: true });
    const computedAtMs = (options.now ?? Date.now)();
    const rows = new Map(existing);
    const diagnostics: string[] = [];
    let files = 0;
    const sink: KeyframeSink = {
      recDir: rec.dir,
      video,
      computedAtMs,
      diagnostics,
      // a frame's PNG is the same whichever step chose it: an existing file is kept
      writePng: async (name, _frame, png) => {
        if (await pathExists(path.join(final, name))) {
          return;
        }
        const tmp = path.join(final, `.${name}.${randomBytes(6).toString('hex')}.tmp`);
        try {
          await fs.writeFile(tmp, png());
          await fs.rename(tmp, path.join(final, name));
        } finally {
          await fs.rm(tmp, { force: true });
        }
        files += 1;
      },
    };
    for (const [i, step] of stale.entries()) {
      const k = extraction.steps[i];
      if (k) {
        rows.set(step.id, await storeStepKeyframe(sink, step, k));
      }
    }
    lib.db.transaction(() => replaceKeyframes(lib.db, rec.seq, [...rows.values()]))();
    return { steps: stale.length, files, diagnostics };
  } finally {
    running.delete(key);
  }
}

/** Background keyframe refreshes by library + recording (`again`: an edit came meanwhile). */
const refreshes = new Map<string, { again: boolean; done: Promise<void> }>();

/**
 * Starts {@link refreshStaleKeyframes} for a recording whose steps an edit changed, without
 * making the edit wait; announces the recording when keyframes were added. An edit arriving while
 * one runs makes it run once more afterwards. Failures are logged (the page still offers
 * "Compute keyframes").
 */
export function refreshKeyframesInBackground(
  ctx: Pick<ServiceContext, 'lib' | 'emit' | 'log'>,
  id: string,
): void {
  const key = jobKey(ctx.lib, id);
  const current = refreshes.get(key);
  if (current) {
    current.again = true;
    return;
  }
  const entry = { again: true, done: Promise.resolve() };
  refreshes.set(key, entry);
  entry.done = (async () => {
    while (entry.again) {
      entry.again = false;
      try {
        const result = await refreshStaleKeyframes(ctx.lib, id);
        if (result && result.steps > 0) {
          ctx.emit('recordings:changed', { id });
        }
      } catch (e) {
        const log = ctx.log ?? ((line: string) => process.stderr.write(`${line}\n`));
        log(`keyframes of ${id}: refresh after an edit failed: ${(e as Error).message}`);
      }
    }
    refreshes.delete(key);
  })();
}

/** Resolves when no background keyframe refresh of the recording runs (tests, shutdown). */
export async function keyframesSettled(lib: Library, id: string): Promise<void> {
  const key = jobKey(lib, id);
  for (let entry = refreshes.get(key); entry; entry = refreshes.get(key)) {
    await entry.done;
  }
}

async function compute(
  lib: Library,
  rec: ReturnType<typeof getRecording>,
  options: ComputeKeyframesOptions,
): Promise<ComputedKeyframes> {
  const video = rec.videos[0];
  if (!video) {
    throw new AppError('NOT_FOUND', `Recording ${rec.id} has no video to take keyframes from.`, {
      id: rec.id,
    });
  }
  if (!video.frameCount || !(video.fps > 0)) {
    throw new AppError(
      'VIDEO_UNREADABLE',
      `Recording ${rec.id}: the video's frame count or frame rate is unknown; re-import it with ffprobe installed.`,
      { id: rec.id },
    );
  }
  const steps = effectiveSteps(lib, rec.seq);
  const extraction = steps.length
    ? await extractStepKeyframes(
        lib.resolve(video.path),
        { ...video, frameCount: video.frameCount },
        steps,
        await resolveDecodeBinaries(options),
      )
    : null;

  const folder = lib.resolve(rec.dir);
  const suffix = randomBytes(6).toString('hex');
  const staging = path.join(folder, `.keyframes-staging-${suffix}`);
  const final = path.join(folder, KEYFRAMES_DIR);
  const old = path.join(folder, `.keyframes-old-${suffix}`);
  const computedAtMs = (options.now ?? Date.now)();
  const diagnostics: string[] = [];
  const records: KeyframeRecord[] = [];
  const written = new Set<number>();
  try {
    await fs.mkdir(staging, { recursive: true });
    const sink: KeyframeSink = {
      recDir: rec.dir,
      video,
      computedAtMs,
      diagnostics,
      writePng: async (name, frame, png) => {
        if (!written.has(frame)) {
          await fs.writeFile(path.join(staging, name), png());
          written.add(frame);
        }
      },
    };
    for (const [i, step] of steps.entries()) {
      const k = extraction?.steps[i];
      if (k) {
        records.push(await storeStepKeyframe(sink, step, k));
      }
    }
    const hadFinal = await pathExists(final);
    if (hadFinal) {
      await fs.rename(final, old);
    }
    await fs.rename(staging, final);
    try {
      lib.db.transaction(() => replaceKeyframes(lib.db, rec.seq, records))();
    } catch (e) {
      await fs.rm(final, { recursive: true, force: true });
      if (hadFinal) {
        await fs.rename(old, final);
      }
      throw e;
    }
  } finally {
    await fs.rm(staging, { recursive: true, force: true });
    await fs.rm(old, { recursive: true, force: true });
  }
  return { steps: records.length, files: written.size, diagnostics };
}

/** Where {@link storeStepKeyframe} puts what it finds, for one computation. */
type KeyframeSink = {
  /** The recording's folder, relative to the library. */
  recDir: string;
  video: { startMs: number; width: number; height: number };
  computedAtMs: number;
  /** Collects every step's problems (`step <id>: CODE: message`). */
  diagnostics: string[];
  /** Writes the PNG `name` of video frame `frame` (`png` encodes it) unless it is there already. */
  writePng: (name: string, frame: number, png: () => Buffer) => Promise<void>;
};

// One step's keyframe: its problems join the sink's diagnostics, its frame (when decoded) is
// written as a PNG, and the returned row points at that file.
async function storeStepKeyframe(
  sink: KeyframeSink,
  step: Step,
  k: ExtractedKeyframe,
): Promise<KeyframeRecord> {
  const { video } = sink;
  for (const d of k.diagnostics) {
    sink.diagnostics.push(`step ${step.id}: ${d.code}: ${d.message}`);
  }
  let relPath: string | null = null;
  if (k.frame !== null && k.rgb) {
    const { rgb } = k;
    const name = keyframeFileName(k.frame);
    await sink.writePng(name, k.frame, () => encodePngRgb(rgb, video.width, video.height));
    relPath = `${sink.recDir}/${KEYFRAMES_DIR}/${name}`;
  }
  return {
    stepId: step.id,
    // chosen times are video-relative seconds; rows keep the recording clock like every
    // stamp, rounded to 0.1 µs (the float sum's last bits are noise)
    timeMs:
      k.timeS === null ? null : Math.round((video.startMs + secondsToMs(k.timeS)) * 1e4) / 1e4,
    frame: k.frame,
    path: relPath,
    inputJson: keyframeInputKey(step),
    source: k.source,
    diagnostics: k.diagnostics.map((d) => `${d.code}: ${d.message}`),
    computedAtMs: sink.computedAtMs,
  };
}
