// A registered version's dashboard summary (migration 16, docs/team-mode.md §18), read from the
// bundle the hub has just verified: the OS from the manifest, the steps by kind from
// steps/steps.json, the video length from raw/recording.json's videos, the keyframes from the
// manifest's keyframe files. A file that is missing or unreadable counts as nothing (an old
// bundle still registers; its figures are the manifest's step count).
import type { VersionSummary } from '../db';
import type { SubmissionManifest } from '../../services/upload/manifest';
import type { HubObjectStore } from '../storage';

const STEPS_FILE = 'steps/steps.json';
const RECORDING_FILE = 'raw/recording.json';
/** Larger files are not read for the summary (a steps file of 100,000 steps is ~50 MB). */
const MAX_SUMMARY_BYTES = 64 * 1024 * 1024;

async function readJson(store: HubObjectStore, key: string): Promise<unknown> {
  const info = await store.stat(key);
  if (!info || info.sizeBytes > MAX_SUMMARY_BYTES) {
    return undefined;
  }
  const chunks: Buffer[] = [];
  for await (const c of await store.get(key)) {
    chunks.push(Buffer.from(c));
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}

/** Pure: the summary from the manifest and the parsed steps and recording files. */
export function summarize(
  manifest: Pick<SubmissionManifest, 'platform' | 'stepCount' | 'files'>,
  steps: unknown,
  recording: unknown,
): VersionSummary {
  const actionCounts: Record<string, number> = {};
  let stepCount = manifest.stepCount;
  if (Array.isArray(steps)) {
    stepCount = steps.length;
    for (const s of steps as { kind?: unknown }[]) {
      const kind = typeof s?.kind === 'string' ? s.kind : 'unknown';
      actionCounts[kind] = (actionCounts[kind] ?? 0) + 1;
    }
  }
  const videos = (recording as { videos?: unknown } | undefined)?.videos;
  const videoMs = Array.isArray(videos)
    ? (videos as { durationMs?: unknown }[]).reduce(
        (t, v) => t + (typeof v?.durationMs === 'number' && v.durationMs > 0 ? v.durationMs : 0),
        0,
      )
    : 0;
  return {
    os: manifest.platform.os || 'unknown',
    stepCount,
    actionCounts,
    videoMs,
    keyframeCount: manifest.files.filter((f) => f.role === 'keyframe').length,
  };
}

/** Reads the bundle under `prefix` and summarises it. */
export async function summarizeBundle(
  store: HubObjectStore,
  prefix: string,
  manifest: SubmissionManifest,
): Promise<VersionSummary> {
  const has = (p: string) => manifest.files.some((f) => f.path === p);
  const [steps, recording] = await Promise.all([
    has(STEPS_FILE) ? readJson(store, `${prefix}/${STEPS_FILE}`) : undefined,
    has(RECORDING_FILE) ? readJson(store, `${prefix}/${RECORDING_FILE}`) : undefined,
  ]);
  return summarize(manifest, steps, recording);
}
