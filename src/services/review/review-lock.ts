// An accepted recording is locked against edits: an edit of it must say `force` (the UI asks the
// user first), and a forced edit returns the recording to review with an entry in its review
// history, so an accepted verdict never silently covers data that changed after it.
import type { ReviewStatus } from '../../shared/domain';
import { AppError } from '../../shared/errors';
import { addReview, getReviewStatus } from '../../store';
import type { Library } from '../library/library';

/** Review status of a recording edited after it was accepted (back in the review queue). */
export const STATUS_AFTER_LOCKED_EDIT: ReviewStatus = 'submitted';

/** Review-history comment of that transition. */
export const LOCKED_EDIT_COMMENT = 'Edited after it was accepted; back in review.';

/** What the edit wants: `force` to edit an accepted recording, who made it, when. */
export type LockedEditOptions = {
  force?: boolean | undefined;
  author?: string | null | undefined;
  nowMs: number;
};

/**
 * Checks that `idOrPrefix` may be edited: refuses (REVIEW_LOCKED) when it is accepted and the
 * edit does not say `force`; with `force`, moves it back to review and records that in its review
 * history. Call inside the edit's transaction, before the write.
 */
export function guardAcceptedEdit(
  lib: Library,
  idOrPrefix: string,
  what: string,
  options: LockedEditOptions,
): void {
  const rec = getReviewStatus(lib.db, idOrPrefix);
  if (rec.reviewStatus !== 'accepted') {
    return;
  }
  if (!options.force) {
    throw new AppError(
      'REVIEW_LOCKED',
      `Recording ${rec.id} is accepted; ${what} would change data a reviewer accepted.`,
      { id: rec.id, reviewStatus: rec.reviewStatus },
      'Send the edit again with force: true (the recording then goes back to review), or reopen it first.',
    );
  }
  addReview(lib.db, rec.seq, {
    atMs: options.nowMs,
    reviewer: options.author ?? null,
    status: STATUS_AFTER_LOCKED_EDIT,
    grade: null,
    comment: LOCKED_EDIT_COMMENT,
  });
}
