// The reviewers' edits of a version, applied to its bundle restored in a scratch library: the
// edit log each verdict on that version carries (`review:verdict`'s editLog, the edits the
// reviewer made after taking it, undone ones left out), in the order given. The accepted
// version as reviewed is the bundle plus these (its marks are the CoT's prior judges).
import type { StepEdit } from '../../../shared/contract';
import { applyEdit } from '../../../services/edits/edit-service';
import type { Library } from '../../../services/library/library';
import { listVerdicts, type HubDb } from '../../db';

/** Applies the edit logs of the verdicts on `version` of submission `submissionId`; answers
 * how many edits it applied. */
export async function applyReviewerEdits(
  db: HubDb,
  lib: Library,
  recordingId: string,
  p: { submissionId: number; version: number },
): Promise<number> {
  let applied = 0;
  for (const verdict of await listVerdicts(db, p.submissionId)) {
    if (verdict.version !== p.version) {
      continue;
    }
    for (const entry of verdict.editLog as {
      atMs?: number;
      author?: string | null;
      edit: StepEdit;
    }[]) {
      applyEdit(lib, recordingId, entry.edit, {
        author: entry.author ?? verdict.reviewer,
        now: () => entry.atMs ?? verdict.atMs,
        // a scratch copy: nothing to send back to review
        force: true,
      });
      applied++;
    }
  }
  return applied;
}
