// The CoT fields an export writes (docs/cot.md §7): the stored rows whose input fingerprint still
// matches the recording (a step edited, re-marked or with another keyframe since is left out, as
// is every step after it), and the summary when it summarised exactly these steps.
import type { CotRecordFields } from '../../pipeline/export/datasets';
import type { TrajectoryStep } from '../../pipeline/export/trajectory';
import { getCotSummary, listCotSteps } from '../../store';
import type { Library } from '../library/library';
import type { Loaded } from '../export/export-load';
import { cotFingerprints, trajectoryMarks } from './cot-fingerprints';

/** The fresh CoT of `l` for its trajectory `traj`; `png(k)` is trajectory image k. */
export function cotExportFields(
  lib: Library,
  l: Loaded,
  traj: readonly TrajectoryStep[],
  png: (k: number) => Uint8Array,
): CotRecordFields | undefined {
  const rows = listCotSteps(lib.db, l.rec.seq);
  const summary = getCotSummary(lib.db, l.rec.seq);
  if (!rows.length && !summary) {
    return undefined;
  }
  const fingerprints = cotFingerprints(
    l.rec.task,
    traj,
    trajectoryMarks(l, traj),
    traj.map((_, k) => png(k)),
  );
  const byIndex = new Map(rows.map((r) => [r.index, r]));
  return {
    steps: traj.map((_, k) => {
      const row = byIndex.get(k);
      return row && row.inputSha256 === fingerprints.steps[k] ? row : null;
    }),
    summary: summary?.inputSha256 === fingerprints.summary ? summary.fields : null,
  };
}
