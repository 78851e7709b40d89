// Computes and stores the keyframe of every current step and of the terminate step (native mode:
// the chosen time per step, docs/keyframes.md §1, §6, §8). Each row keeps the search input it
// was computed from (its freshness key); review, export and upload bundles reuse fresh rows, and
// only stale or missing ones are computed again. A first computation is all or nothing: PNGs are
// staged beside the recording's keyframes/ folder, swapped in, and the rows are replaced in one
// transaction; on any failure the previous keyframes stay. Who runs these, one at a time per
// recording, is the job runner (keyframe-jobs.ts).
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { secondsToMs } from '../../shared/clock';
import type { Step } from '../../shared/domain';
import { AppError } from '../../shared/errors';
import type { ExtractedKeyframe } from '../../pipeline/media/keyframes-extract';
import { encodePngRgb } from '../../pipeline/media/png';
import { getRecording, listKeyframes, replaceKeyframes, type KeyframeRecord } from '../../store';
import type { Library } from '../library/library';
import type { PixelRedaction } from '../../pipeline/privacy/redact-box';
import { pixelRedactions, redactionHash, redactRgbFrame } from '../privacy/redact-media';
import { effectiveSteps } from '../steps';
import {
  extractStepKeyframes,
  keyframeInputKey,
  resolveDecodeBinaries,
  terminateInputKey,
} from './keyframe-extraction';

export { keyframeInputKey } from './keyframe-extraction';

/** Folder (inside a recording's folder) of its keyframe PNGs. */
export const KEYFRAMES_DIR = 'keyframes';

/** The `step_id` of the terminate keyframe's row (no step id starts with a colon). */
export const TERMINATE_KEYFRAME_ID = ':terminate';

/** Phases a computation reports. */
export type KeyframePhase = 'decoding' | 'storing';

/** Options of {@link computeKeyframes} and {@link refreshStaleKeyframes}. */
export type ComputeKeyframesOptions = {
  /** ffmpeg executable; resolved (CUA_FFMPEG, ffmpeg-static, PATH) when absent. */
  ffmpegPath?: string;
  /** ffprobe for the frame timeline (seeking decodes); with an explicit ffmpegPath, null or
   * absent means one decode from frame 0. */
  ffprobePath?: string | null;
  /** Clock for `computed_at` (epoch ms); default Date.now. */
  now?: () => number;
  /** Aborts the decodes (rejects with ABORTED); nothing is stored then. */
  signal?: AbortSignal;
  /** Called when a phase starts, with the number of steps being computed. */
  onPhase?: (phase: KeyframePhase, steps: number) => void;
};

/** What one computation stored. */
export type ComputedKeyframes = {
  /** Steps with a new keyframe row (0: every stored keyframe was fresh). */
  steps: number;
  /** Distinct PNG files written. */
  files: number;
  /** Per-step problems (`step <id>: CODE: message`). */
  diagnostics: string[];
};

/** The PNG file name of a video frame (with the hash of its pixel redactions, if any: a frame
 * redacted with other boxes is another file). */
export function keyframeFileName(frame: number, redactHash: string | null = null): string {
  const suffix = redactHash === null ? '' : `.r${redactHash}`;
  return `frame-${String(frame).padStart(6, '0')}${suffix}.png`;
}

/** The pixel redactions of a recording and their hash (freshness keys, file names). */
export function keyframeRedactions(
  lib: Library,
  seq: number,
): { redactions: PixelRedaction[]; redactHash: string | null } {
  const redactions = pixelRedactions(lib, seq);
  return { redactions, redactHash: redactionHash(redactions) };
}

/** Which stored keyframes of a recording are missing or stale. */
export type KeyframeStaleness = {
  /** The current (effective) steps. */
  steps: Step[];
  /** The steps whose row is missing or was computed from another search input. */
  stale: Step[];
  /** True when the terminate row is missing or stale (there are steps). */
  isTerminateStale: boolean;
  /** The stored rows by step id. */
  rows: Map<string, KeyframeRecord>;
};

/** Compares a recording's stored keyframe rows with its current steps (no decoding). */
export function keyframeStaleness(lib: Library, seq: number): KeyframeStaleness {
  const rows = listKeyframes(lib.db, seq);
  const steps = effectiveSteps(lib, seq);
  const { redactHash } = keyframeRedactions(lib, seq);
  const terminateKey = terminateInputKey(steps, redactHash);
  return {
    steps,
    stale: steps.filter(
      (step) => rows.get(step.id)?.inputJson !== keyframeInputKey(step, redactHash),
    ),
    isTerminateStale:
      terminateKey !== null && rows.get(TERMINATE_KEYFRAME_ID)?.inputJson !== terminateKey,
    rows,
  };
}

/** True when some keyframe of the recording is missing or stale. */
export function needsKeyframes(lib: Library, seq: number): boolean {
  const s = keyframeStaleness(lib, seq);
  return s.stale.length > 0 || s.isTerminateStale;
}

/**
 * Computes and stores the keyframes of every current step and of terminate, all or nothing
 * (previous rows and files are replaced). Callers make sure only one computation of a recording
 * runs at a time (keyframe-jobs.ts).
 */
export async function computeKeyframes(
  lib: Library,
  idOrPrefix: string,
  options: ComputeKeyframesOptions = {},
): Promise<ComputedKeyframes> {
  return await compute(lib, getRecording(lib.db, idOrPrefix), options);
}

/**
 * Computes the keyframes of the steps whose keyframe is missing or stale (a merge, split, insert
 * or changed action gives a step a new keyframe search; a new last step a new terminate search)
 * and keeps every other row and file. A recording without any row gets a full computation; one
 * without a usable video has nothing to refresh.
 */
export async function refreshStaleKeyframes(
  lib: Library,
  idOrPrefix: string,
  options: ComputeKeyframesOptions = {},
): Promise<ComputedKeyframes> {
  const rec = getRecording(lib.db, idOrPrefix);
  const { steps, stale, isTerminateStale, rows: existing } = keyframeStaleness(lib, rec.seq);
  if (stale.length === 0 && !isTerminateStale) {
    return { steps: 0, files: 0, diagnostics: [] };
  }
  const video = rec.videos[0];
  if (!video?.frameCount || !(video.fps > 0)) {
    // no video to take them from (a recording that failed before its first frame): nothing to
    // refresh; an explicit recompute says why (computeKeyframes)
    return { steps: 0, files: 0, diagnostics: [] };
  }
  if (existing.size === 0) {
    return await compute(lib, rec, options);
  }
  // the terminate search follows the last input step: decode the real last step with it
  const last = steps.at(-1)!;
  const inputs = isTerminateStale && stale.at(-1) !== last ? [...stale, last] : stale;
  options.onPhase?.('decoding', stale.length);
  const redactions = keyframeRedactions(lib, rec.seq);
  const extraction = await extractStepKeyframes(
    lib.resolve(video.path),
    { ...video, frameCount: video.frameCount },
    inputs,
    await resolveDecodeBinaries(options),
    options.signal,
    keyframePngEncoder(video, redactions.redactions),
  );
  options.onPhase?.('storing', stale.length);
  const final = path.join(lib.resolve(rec.dir), KEYFRAMES_DIR);
  await fs.mkdir(final, { recursive: true });
  const computedAtMs = (options.now ?? Date.now)();
  const rows = new Map(existing);
  const diagnostics: string[] = [];
  let files = 0;
  const sink: KeyframeSink = {
    recDir: rec.dir,
    video,
    ...redactions,
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
  if (isTerminateStale && extraction.terminate) {
    rows.set(
      TERMINATE_KEYFRAME_ID,
      await storeTerminateKeyframe(sink, steps, extraction.terminate),
    );
  }
  // rows of steps an edit removed stay: an undo brings those steps back with their keyframes
  options.signal?.throwIfAborted();
  lib.db.transaction(() => replaceKeyframes(lib.db, rec.seq, [...rows.values()]))();
  await pruneKeyframeFiles(lib, rec.seq, final);
  return { steps: stale.length, files, diagnostics };
}

// Removes the PNGs of a recording's keyframe folder that no stored row names any more (a
// redaction renames every keyframe: without this the old ones piled up, one set per redaction).
// Hidden files are other writers' temporaries and are left alone; a reader that loses a file
// meanwhile decodes instead (storedExportKeyframes).
async function pruneKeyframeFiles(lib: Library, seq: number, folder: string): Promise<void> {
  const named = new Set(
    [...listKeyframes(lib.db, seq).values()].flatMap((row) =>
      row.path === null ? [] : [path.posix.basename(row.path)],
    ),
  );
  let names: string[];
  try {
    names = await fs.readdir(folder);
  } catch {
    return;
  }
  for (const name of names) {
    if (name.endsWith('.png') && !name.startsWith('.') && !named.has(name)) {
      await fs.rm(path.join(folder, name), { force: true });
    }
  }
}

/** The PNG bytes of every exported image of a recording (index = trajectory image index:
 * steps, then terminate) and the warnings their diagnostics give. */
export type StoredExportKeyframes = { images: (Buffer | null)[]; warnings: string[] };

/**
 * The stored keyframes of `steps` (the recording's effective steps, untrimmed) when every one of
 * them and the terminate keyframe is fresh and its file readable: exports and upload bundles use
 * these instead of decoding the video again. Null when any is missing or stale.
 */
export async function storedExportKeyframes(
  lib: Library,
  seq: number,
  steps: readonly Step[],
): Promise<StoredExportKeyframes | null> {
  const rows = listKeyframes(lib.db, seq);
  const { redactHash } = keyframeRedactions(lib, seq);
  const terminateKey = terminateInputKey(steps, redactHash);
  const terminate = rows.get(TERMINATE_KEYFRAME_ID);
  if (terminateKey === null || terminate?.inputJson !== terminateKey) {
    return null;
  }
  const ordered: KeyframeRecord[] = [];
  for (const step of steps) {
    const row = rows.get(step.id);
    if (row?.inputJson !== keyframeInputKey(step, redactHash)) {
      return null;
    }
    ordered.push(row);
  }
  ordered.push(terminate);
  const files = new Map<string, Buffer>();
  const images: (Buffer | null)[] = [];
  for (const row of ordered) {
    if (row.path === null) {
      images.push(null);
      continue;
    }
    let png = files.get(row.path);
    if (!png) {
      try {
        png = await fs.readFile(lib.resolve(row.path));
      } catch {
        return null; // a file gone from the library: decode instead
      }
      files.set(row.path, png);
    }
    images.push(png);
  }
  const warnings = ordered.flatMap((row, i) =>
    row.diagnostics.map((d) =>
      i < steps.length ? `step ${steps[i]!.id}: ${d}` : `terminate: ${d}`,
    ),
  );
  return { images, warnings };
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
  options.onPhase?.('decoding', steps.length);
  const redactions = keyframeRedactions(lib, rec.seq);
  const extraction = steps.length
    ? await extractStepKeyframes(
        lib.resolve(video.path),
        { ...video, frameCount: video.frameCount },
        steps,
        await resolveDecodeBinaries(options),
        options.signal,
        keyframePngEncoder(video, redactions.redactions),
      )
    : null;
  options.onPhase?.('storing', steps.length);

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
      ...redactions,
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
    if (extraction?.terminate) {
      records.push(await storeTerminateKeyframe(sink, steps, extraction.terminate));
    }
    options.signal?.throwIfAborted();
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
  return {
    steps: records.filter((r) => r.stepId !== TERMINATE_KEYFRAME_ID).length,
    files: written.size,
    diagnostics,
  };
}

/** Where {@link storeStepKeyframe} puts what it finds, for one computation. */
type KeyframeSink = {
  /** The recording's folder, relative to the library. */
  recDir: string;
  video: { startMs: number; width: number; height: number; fps: number; frameCount: number | null };
  /** Pixel redactions drawn on every PNG, and their hash (keys, file names). */
  redactions: PixelRedaction[];
  redactHash: string | null;
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
  for (const d of k.diagnostics) {
    sink.diagnostics.push(`step ${step.id}: ${d.code}: ${d.message}`);
  }
  return await keyframeRecord(sink, step.id, keyframeInputKey(step, sink.redactHash), k);
}

// The terminate keyframe's row (its time is video-relative like the steps'; §1.5).
async function storeTerminateKeyframe(
  sink: KeyframeSink,
  steps: readonly Step[],
  k: ExtractedKeyframe,
): Promise<KeyframeRecord> {
  for (const d of k.diagnostics) {
    sink.diagnostics.push(`terminate: ${d.code}: ${d.message}`);
  }
  return await keyframeRecord(
    sink,
    TERMINATE_KEYFRAME_ID,
    terminateInputKey(steps, sink.redactHash)!,
    k,
  );
}

async function keyframeRecord(
  sink: KeyframeSink,
  stepId: string,
  inputJson: string,
  k: ExtractedKeyframe,
): Promise<KeyframeRecord> {
  const { video } = sink;
  let relPath: string | null = null;
  const { frame, rgb, encoded } = k;
  if (frame !== null && (encoded || rgb)) {
    const name = keyframeFileName(frame, sink.redactHash);
    await sink.writePng(
      name,
      frame,
      () => encoded ?? keyframePngEncoder(video, sink.redactions)(frame, rgb as Buffer),
    );
    relPath = `${sink.recDir}/${KEYFRAMES_DIR}/${name}`;
  }
  return {
    stepId,
    // chosen times are video-relative seconds; rows keep the recording clock like every
    // stamp, rounded to 0.1 µs (the float sum's last bits are noise)
    timeMs:
      k.timeS === null ? null : Math.round((video.startMs + secondsToMs(k.timeS)) * 1e4) / 1e4,
    frame: k.frame,
    path: relPath,
    inputJson,
    source: k.source,
    diagnostics: k.diagnostics.map((d) => `${d.code}: ${d.message}`),
    computedAtMs: sink.computedAtMs,
  };
}

/** A chosen frame's PNG as stored: keyframes are chosen on the original video, then redacted
 * (issue 14). Given to the extraction, which encodes each chosen frame as soon as it is known. */
function keyframePngEncoder(
  video: KeyframeSink['video'],
  redactions: PixelRedaction[],
): (frame: number, rgb: Buffer) => Buffer {
  // one scratch buffer for every image of the extraction (the encoder is synchronous)
  const scratch = Buffer.allocUnsafe((video.width * 3 + 1) * video.height);
  return (frame, rgb) =>
    encodePngRgb(
      redactions.length ? redactRgbFrame(Uint8Array.from(rgb), frame, redactions, video) : rgb,
      video.width,
      video.height,
      { scratch },
    );
}

async function pathExists(p: string): Promise<boolean> {
  try {
    await fs.stat(p);
    return true;
  } catch {
    return false;
  }
}
