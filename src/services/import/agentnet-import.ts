// Imports an AgentNet Tool recording folder into the library, all or nothing:
// validate everything first, copy the files, then one transaction; on failure nothing remains.
import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { secondsToMs } from '../../shared/clock';
import type { PlatformInfo } from '../../shared/domain';
import { AppError, isAppError } from '../../shared/errors';
import { readAgentNetFolder, type AgentNetBundle } from '../../pipeline/io/agentnet-read';
import { sha256File } from '../../pipeline/io/hash';
import { probeVideo, type ProbeBinaries, type VideoProbe } from '../../infra/ffmpeg/probe';
import { stepsFromAgentNetRows } from '../../pipeline/agentnet/import-steps';
import { resolveFfmpeg } from '../../infra/ffmpeg/binary';
import {
  insertAxRecords,
  insertEvents,
  insertRecording,
  insertVideo,
  findRecordingBySourceFingerprint,
  findRecordingsByVideoSha,
  insertWindows,
  replaceSteps,
  type NewAxRecord,
} from '../../store';
import { stagingDirName } from '../library/cleanup';
import { RECORDINGS_DIR, type Library } from '../library/library';

/** Options of {@link importAgentNetFolder}. */
export type ImportOptions = {
  /** ffmpeg/ffprobe to probe the video with; resolved when absent. */
  binaries?: ProbeBinaries;
  /** Version written into the recording row. */
  appVersion: string;
  /** Clock for created/updated stamps (epoch ms); default Date.now. */
  now?: () => number;
  /** Import a folder whose video is already in the library again, under a distinct episode
   * name (`<folder>_<first 8 characters of the new id>`). Default false: refused. */
  allowDuplicate?: boolean;
  /** Test seam: runs inside the transaction after every insert (throw to simulate a failure). */
  beforeCommit?: () => void;
  /** The keyframe job runner: the new recording's keyframes are queued there once it is in the
   * library (computed in the background, keyframes/keyframe-jobs.ts). */
  keyframes?: { enqueue(recordingId: string): unknown };
};

/** What one import produced, with phase timings in ms. */
export type ImportResult = {
  id: string;
  task: string;
  events: number;
  steps: number;
  warnings: string[];
  timings: {
    readMs: number;
    probeMs: number;
    copyMs: number;
    videoCopyMs: number;
    dbMs: number;
    totalMs: number;
  };
};

/** Sub-folder of a recording that keeps the source files byte for byte. */
export const RAW_SUBDIR = 'raw';
/** How the video start of an imported AgentNet recording is known. */
export const AGENTNET_VIDEO_START_METHOD = 'agentnet-metadata';

const OS_BY_SYSTEM: Record<string, string> = {
  windows: 'win32',
  darwin: 'darwin',
  linux: 'linux',
  ubuntu: 'linux',
};

function platformOf(meta: Record<string, unknown>): PlatformInfo {
  const s = (k: string) => (typeof meta[k] === 'string' ? meta[k] : '');
  const system = s('system');
  return {
    os: OS_BY_SYSTEM[system.toLowerCase()] ?? (system.toLowerCase() || 'unknown'),
    system,
    release: s('release'),
    version: s('version'),
    machine: s('machine'),
    model: s('model') || null,
  };
}

function countNodes(tree: unknown): number {
  if (!tree || typeof tree !== 'object' || Array.isArray(tree)) {
    return 0;
  }
  const node = tree as { Children?: unknown; AXChildren?: unknown; AXColumns?: unknown };
  const kids = [node.Children, node.AXChildren, node.AXColumns].find(Array.isArray) as
    unknown[] | undefined;
  return 1 + (kids ?? []).reduce<number>((n, k) => n + countNodes(k), 0);
}

function rootName(tree: unknown): string | null {
  if (tree && typeof tree === 'object' && !Array.isArray(tree)) {
    const t = tree as { Name?: unknown; AXTitle?: unknown };
    const name = t.Name ?? t.AXTitle;
    return typeof name === 'string' ? name : null;
  }
  return null;
}

function axRecords(bundle: AgentNetBundle): NewAxRecord[] {
  const map = (rows: AgentNetBundle['a11y'], kind: 'window' | 'element', source: string) =>
    rows.map((r): NewAxRecord => ({
      tMs: secondsToMs(r.tS),
      kind,
      source,
      x: null,
      y: null,
      nodeCount: countNodes(r.tree),
      rootName: rootName(r.tree),
      treeJson: JSON.stringify(r.tree),
      note: null,
    }));
  return [
    ...map(bundle.a11y, 'window', 'agentnet-a11y'),
    ...map(bundle.elements, 'element', 'agentnet-element'),
  ];
}

async function probeOrExplain(
  bundle: AgentNetBundle,
  binaries: ProbeBinaries,
): Promise<VideoProbe> {
  try {
    return await probeVideo(bundle.videoPath, binaries);
  } catch (e) {
    if (isAppError(e, 'VIDEO_UNREADABLE')) {
      throw new AppError(
        'IMPORT_INVALID',
        `${bundle.videoFileName}: unreadable video (${e.message})`,
        {
          file: bundle.videoFileName,
          problem: 'unreadable video',
        },
      );
    }
    throw e;
  }
}

// A full disk while copying or committing: a coded error, the library left as it was.
function importFsError(e: unknown, lib: Library, folder: string): unknown {
  const code = (e as { code?: unknown } | null)?.code;
  if (code === 'ENOSPC' || code === 'EDQUOT' || code === 'SQLITE_FULL') {
    return new AppError(
      'DISK_FULL',
      `The disk holding the library ${lib.dir} is full (${String(code)}); ${folder} was not imported and the library is unchanged.`,
      { folder, library: lib.dir, errno: code },
      'Free disk space (delete recordings you no longer need with `cua-annotator delete`, or files outside the library), then import again.',
    );
  }
  return e;
}

/** The unique key of an imported source in the library (`recordings.source_fingerprint`). */
export function importFingerprint(videoSha: string): string {
  return `video-sha256:${videoSha}`;
}

function duplicateError(folder: string, existing: { id: string; task: string }[]): AppError {
  const first = existing[0]!;
  return new AppError(
    'IMPORT_DUPLICATE',
    `${folder} is already in the library as recording ${first.id} ("${first.task}"); it was not imported again.`,
    { folder, existingId: first.id, existingIds: existing.map((r) => r.id) },
    'Use the existing recording, or pass --allow-duplicate to import it again under a distinct episode name.',
  );
}

// The recordings already holding this video (by its key or by any video with its SHA-256).
function findDuplicates(lib: Library, videoSha: string): { id: string; task: string }[] {
  const holder = findRecordingBySourceFingerprint(lib.db, importFingerprint(videoSha));
  const bySha = findRecordingsByVideoSha(lib.db, videoSha);
  return holder ? [holder, ...bySha.filter((r) => r.id !== holder.id)] : bySha;
}

// True when the recording already holding this video is in the library; IMPORT_DUPLICATE unless
// duplicates are allowed.
function refuseDuplicate(
  lib: Library,
  folder: string,
  videoSha: string,
  options: ImportOptions,
): boolean {
  const existing = findDuplicates(lib, videoSha);
  if (existing.length && !options.allowDuplicate) {
    throw duplicateError(folder, existing);
  }
  return existing.length > 0;
}

// The unique key refused the insert: another import of the same video committed first.
function isFingerprintConflict(e: unknown): boolean {
  const err = e as { code?: unknown; message?: unknown } | null;
  return (
    typeof err?.code === 'string' &&
    err.code.startsWith('SQLITE_CONSTRAINT') &&
    String(err.message).includes('source_fingerprint')
  );
}

/** Imports one AgentNet folder; returns the new recording's id. The library is unchanged on error. */
export async function importAgentNetFolder(
  lib: Library,
  folder: string,
  options: ImportOptions,
): Promise<ImportResult> {
  const now = options.now ?? Date.now;
  const t0 = performance.now();
  const bundle = await readAgentNetFolder(folder);
  const t1 = performance.now();
  const binaries = options.binaries ?? (await resolveFfmpeg());
  const probe = await probeOrExplain(bundle, binaries);
  if (probe.fps === null || probe.durationMs === null) {
    throw new AppError(
      'IMPORT_INVALID',
      `${bundle.videoFileName}: the video's frame rate or duration cannot be read; install ffprobe (apt-get install ffmpeg).`,
      { file: bundle.videoFileName, problem: 'video facts unknown' },
    );
  }
  const screen = { width: bundle.metadata.screenWidth, height: bundle.metadata.screenHeight };
  const steps = stepsFromAgentNetRows(bundle.reduced, screen);
  const t2 = performance.now();

  // the same video already in the library means the same recording (imported twice): refused
  // here before copying, and again under the write lock, where the unique key makes it atomic
  const sourceSha = await sha256File(path.join(bundle.dir, bundle.videoFileName));
  refuseDuplicate(lib, folder, sourceSha, options);

  const id = randomUUID();
  const relDir = `${RECORDINGS_DIR}/${id}`;
  const finalDir = lib.resolve(relDir);
  // the staging name carries our pid: the start-up clean-up leaves it alone while we live
  const staging = lib.resolve(`${RECORDINGS_DIR}/${stagingDirName(id)}`);
  let videoCopyMs = 0;
  let videoSha = '';
  try {
    await fs.mkdir(path.join(staging, RAW_SUBDIR), { recursive: true });
    for (const f of bundle.files) {
      const c0 = performance.now();
      await fs.copyFile(path.join(bundle.dir, f.name), path.join(staging, RAW_SUBDIR, f.name));
      await fs.chmod(path.join(staging, RAW_SUBDIR, f.name), 0o644);
      if (f.name === bundle.videoFileName) {
        videoCopyMs += performance.now() - c0;
      }
    }
    const h0 = performance.now();
    videoSha = await sha256File(path.join(staging, RAW_SUBDIR, bundle.videoFileName));
    videoCopyMs += performance.now() - h0;
    if (videoSha !== sourceSha) {
      throw new AppError(
        'INTEGRITY_FAILED',
        `${bundle.videoFileName}: the copy in the library differs from the source (SHA-256 ${videoSha.slice(0, 12)}…, source ${sourceSha.slice(0, 12)}…); nothing was imported.`,
        { file: bundle.videoFileName, folder },
        'Check the disk and the source folder (was the video being written?), then import again.',
      );
    }
    await fs.rename(staging, finalDir);
  } catch (e) {
    await fs.rm(staging, { recursive: true, force: true });
    await fs.rm(finalDir, { recursive: true, force: true });
    throw importFsError(e, lib, folder);
  }
  const t3 = performance.now();

  const videoStartMs = secondsToMs(bundle.metadata.videoStartS);
  const nowMs = now();
  try {
    lib.db.transaction(() => {
      // under the write lock: an import of the same video that committed since the first check
      // is seen here (and the key refuses the insert if it were not)
      const isDuplicate = refuseDuplicate(lib, folder, videoSha, options);
      const seq = insertRecording(lib.db, {
        id,
        source: 'agentnet-import',
        task: bundle.task.taskName,
        description: bundle.task.description,
        status: 'complete',
        platform: platformOf(bundle.metadata.raw),
        screen: { width: screen.width, height: screen.height, scale: 1, monitors: [] },
        videoStartMs,
        videoStartMethod: AGENTNET_VIDEO_START_METHOD,
        durationMs: probe.durationMs,
        appVersion: options.appVersion,
        dir: relDir,
        startedAt:
          typeof bundle.metadata.raw.start_time === 'string'
            ? bundle.metadata.raw.start_time
            : null,
        stoppedAt:
          typeof bundle.metadata.raw.stop_time === 'string' ? bundle.metadata.raw.stop_time : null,
        sourceMetadata: {
          format: 'agentnet-raw',
          folderName: bundle.folderName,
          ...(isDuplicate ? { episodeName: `${bundle.folderName}_${id.slice(0, 8)}` } : {}),
          metadata: bundle.metadata.raw,
          hubTaskId: bundle.hubTaskId,
          videoFileName: bundle.videoFileName,
          files: bundle.files,
        },
        capture: null,
        warnings: bundle.warnings,
        nowMs,
        // a duplicate allowed by --allow-duplicate holds no key: the first import keeps it
        sourceFingerprint: isDuplicate ? null : importFingerprint(videoSha),
      });
      insertVideo(lib.db, seq, 0, {
        path: `${relDir}/${RAW_SUBDIR}/${bundle.videoFileName}`,
        width: probe.width,
        height: probe.height,
        fps: probe.fps ?? 0,
        frameCount: probe.frameCount,
        durationMs: probe.durationMs ?? 0,
        startMs: videoStartMs,
        startMethod: AGENTNET_VIDEO_START_METHOD,
        codec: probe.codec,
        sizeBytes: probe.sizeBytes,
        sha256: videoSha,
      });
      insertEvents(lib.db, seq, bundle.events);
      insertAxRecords(lib.db, seq, axRecords(bundle));
      insertWindows(
        lib.db,
        seq,
        bundle.topWindows.map((w) => ({
          tMs: secondsToMs(w.tS),
          title: null,
          app: w.name,
          pid: null,
          bounds: null,
          windowId: null,
        })),
      );
      replaceSteps(lib.db, seq, steps, 'agentnet-import');
      options.beforeCommit?.();
    })();
  } catch (e) {
    await fs.rm(finalDir, { recursive: true, force: true });
    if (isFingerprintConflict(e)) {
      throw duplicateError(folder, findDuplicates(lib, videoSha));
    }
    throw importFsError(e, lib, folder);
  }
  const t4 = performance.now();
  options.keyframes?.enqueue(id);
  return {
    id,
    task: bundle.task.taskName,
    events: bundle.events.length,
    steps: steps.length,
    warnings: bundle.warnings,
    timings: {
      readMs: t1 - t0,
      probeMs: t2 - t1,
      copyMs: t3 - t2,
      videoCopyMs,
      dbMs: t4 - t3,
      totalMs: t4 - t0,
    },
  };
}
