// Checks before submit (issue 15 item 4, docs/quality.md): gathers what the pure checker
// (pipeline/quality/check.ts) looks at from the library — the edited steps, the recorded screen,
// the video range, keyframe freshness, the settings and the privacy findings with their
// resolutions — and returns its problems (`cua-annotator check`, `recordings:check`).
import { checkRecording, type CheckOptions } from '../../pipeline/quality/check';
import type { CheckResult } from '../../shared/domain';
import { getRecording } from '../../store';
import type { Library } from '../library/library';
import { scanWithResolutions } from '../privacy/policy';
import type { ScanOptions } from '../privacy/scan-service';
import {
  keyframeStaleness,
  TERMINATE_KEYFRAME_ID,
  type KeyframeStaleness,
} from '../keyframes/keyframes';
import { readCheckSettings } from '../settings/settings-service';

/** Options of {@link checkRecordingInLibrary}. */
export type CheckServiceOptions = CheckOptions & {
  /** The PII scan's detectors (tests). */
  scan?: ScanOptions;
};

/** The recording-clock range covered by a recording's videos (null: no video). */
function videoRange(
  videos: readonly { startMs: number; durationMs: number }[],
): { startMs: number; endMs: number } | null {
  if (!videos.length) {
    return null;
  }
  return {
    startMs: Math.min(...videos.map((v) => v.startMs)),
    endMs: Math.max(...videos.map((v) => v.startMs + v.durationMs)),
  };
}

// The fresh keyframe rows stored without an image (a frame that could not be read); stale and
// missing rows are reported as such.
function imagelessKeyframes(
  staleness: KeyframeStaleness,
): { stepId: string | null; frame: number | null }[] {
  const stale = new Set(staleness.stale.map((s) => s.id));
  const out: { stepId: string | null; frame: number | null }[] = [];
  for (const step of staleness.steps) {
    const row = staleness.rows.get(step.id);
    if (row && row.path === null && !stale.has(step.id)) {
      out.push({ stepId: step.id, frame: row.frame });
    }
  }
  const terminate = staleness.rows.get(TERMINATE_KEYFRAME_ID);
  if (
    staleness.steps.length &&
    terminate &&
    terminate.path === null &&
    !staleness.isTerminateStale
  ) {
    out.push({ stepId: null, frame: terminate.frame });
  }
  return out;
}

/** Checks one recording (id or unique prefix) of the library: `ok` false on any error. */
export function checkRecordingInLibrary(
  lib: Library,
  idOrPrefix: string,
  options: CheckServiceOptions = {},
): CheckResult & { id: string } {
  const rec = getRecording(lib.db, idOrPrefix);
  const staleness = keyframeStaleness(lib, rec.seq);
  const { findings } = scanWithResolutions(lib, rec.id, options.scan);
  const result = checkRecording(
    {
      task: rec.task,
      steps: staleness.steps,
      screen: { width: rec.screen.width, height: rec.screen.height },
      video: videoRange(rec.videos),
      keyframes: {
        staleStepIds: staleness.stale.map((s) => s.id),
        isTerminateStale: staleness.isTerminateStale,
        imageless: imagelessKeyframes(staleness),
      },
      settings: readCheckSettings(lib),
      findings,
    },
    options.idleMs === undefined ? {} : { idleMs: options.idleMs },
  );
  return { id: rec.id, ...result };
}
