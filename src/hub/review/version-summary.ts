// A registered version's dashboard summary (migration 16, docs/team-mode.md §18), read from the
// bundle the hub has just verified: the OS from the manifest, the steps by kind from
// steps/steps.json, the video length from raw/recording.json's videos, the keyframes from the
// manifest's keyframe files. A file that is missing or unreadable counts as nothing (an old
// bundle still registers; its figures are the manifest's step count).
import { STEP_KINDS } from '../../shared/domain/step';
import type { VersionSummary } from '../db';
import type { SubmissionManifest } from '../../services/upload/manifest';
import type { HubObjectStore } from '../storage';

const STEPS_FILE = 'steps/steps.json';
const RECORDING_FILE = 'raw/recording.json';
/** Larger files are not read for the summary (a steps file of 100,000 steps is ~50 MB). */
const MAX_SUMMARY_BYTES = 64 * 1024 * 1024;

// `sizeBytes` is the manifest's, which verification has just checked against the store (no
// HEAD: on S3 a request saved per file)
async function readJson(store: HubObjectStore, key: string, sizeBytes: number): Promise<unknown> {
  if (sizeBytes > MAX_SUMMARY_BYTES) {
    return undefined;
  }
  const chunks: Buffer[] = [];
  try {
    for await (const c of await store.get(key)) {
      chunks.push(Buffer.from(c));
    }
    return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}

// a kind the contract does not know counts as 'unknown': a bundle cannot grow the dashboard's
// list of kinds (action_kinds, migration 18) past the contract's
const KNOWN_KINDS: ReadonlySet<string> = new Set(STEP_KINDS);

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
      const kind = typeof s?.kind === 'string' && KNOWN_KINDS.has(s.kind) ? s.kind : 'unknown';
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

/** Reads the bundle under `prefix` (verified against `manifest`) and summarises it. */
export async function summarizeBundle(
  store: HubObjectStore,
  prefix: string,
  manifest: SubmissionManifest,
): Promise<VersionSummary> {
  const read = (p: string) => {
    const f = manifest.files.find((e) => e.path === p);
    return f ? readJson(store, `${prefix}/${p}`, f.sizeBytes) : undefined;
  };
  const [steps, recording] = await Promise.all([read(STEPS_FILE), read(RECORDING_FILE)]);
  return summarize(manifest, steps, recording);
}
