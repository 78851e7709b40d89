// Appending to, undoing and redoing a recording's edit log. An edit is checked against the
// current steps before it is stored, so the log only ever grows by edits that applied.
import type { StepEdit, StoredEdit } from '../../shared/contract';
import { validateStepEdit } from '../../shared/contract';
import { AppError } from '../../shared/errors';
import {
  appendEdit,
  getRecordingScreen,
  listEdits,
  listSteps,
  redoEdit,
  resolveRecordingSeq,
  setStepCount,
  undoEdit,
} from '../../store';
import type { Library } from '../library/library';
import { storeStepCount } from '../recordings';
import { guardAcceptedEdit } from '../review/review-lock';
import { applyEdits } from './apply-edits';

/** Options of {@link applyEdit}. */
export type ApplyEditOptions = {
  /** Who made the edit (stored with it). */
  author?: string | null;
  /** Clock (epoch ms); default Date.now. */
  now?: () => number;
  /** Edit an accepted recording (it goes back to review); without it such an edit is
   * refused with REVIEW_LOCKED. */
  force?: boolean | undefined;
};

/** Id the trial application gives the candidate edit (never stored). */
const CANDIDATE_ID = Number.MAX_SAFE_INTEGER;

// Checks `edit` against the recording's current steps and appends it (dropping the redo tail).
export function applyEdit(
  lib: Library,
  idOrPrefix: string,
  edit: StepEdit,
  options: ApplyEditOptions = {},
): StoredEdit {
  const checked = validateStepEdit(edit);
  if (!checked.ok) {
    throw new AppError('INVALID_PAYLOAD', `${checked.field} ${checked.message}`, {
      field: checked.field,
    });
  }
  const { seq, id } = resolveRecordingSeq(lib.db, idOrPrefix);
  const nowMs = (options.now ?? Date.now)();
  return lib.db.transaction(() => {
    const active = listEdits(lib.db, seq, ['active']);
    const trial = applyEdits(
      listSteps(lib.db, seq),
      [
        ...active,
        { id: CANDIDATE_ID, atMs: nowMs, author: null, edit: checked.value, state: 'active' },
      ],
      { screen: getRecordingScreen(lib.db, seq) },
    );
    const refused = trial.skipped.find((s) => s.editId === CANDIDATE_ID);
    if (refused) {
      throw new AppError('EDIT_INVALID', `Recording ${id}: ${refused.message}`, {
        op: refused.op,
        reason: refused.code,
      });
    }
    guardAcceptedEdit(lib, id, `a ${checked.value.op} edit`, { ...options, nowMs });
    const stored = appendEdit(lib.db, seq, checked.value, {
      nowMs,
      author: options.author ?? null,
    });
    setStepCount(lib.db, seq, trial.steps.length);
    return stored;
  })();
}

// Moves the undo cursor one edit (undo or redo) in one transaction with the review guard and the
// stored step count; refuses with `noneMessage` when there is nothing to move over.
function moveEditCursor(
  lib: Library,
  idOrPrefix: string,
  options: ApplyEditOptions,
  what: string,
  move: (db: Library['db'], seq: number) => StoredEdit | null,
  noneMessage: (id: string) => string,
): StoredEdit {
  const { seq, id } = resolveRecordingSeq(lib.db, idOrPrefix);
  const moved = lib.db.transaction(() => {
    guardAcceptedEdit(lib, id, what, { ...options, nowMs: (options.now ?? Date.now)() });
    const edit = move(lib.db, seq);
    storeStepCount(lib, seq);
    return edit;
  })();
  if (!moved) {
    throw new AppError('INVALID_STATE', noneMessage(id), { id });
  }
  return moved;
}

// Undoes the latest applied edit; refuses when there is none.
export function undoLastEdit(
  lib: Library,
  idOrPrefix: string,
  options: ApplyEditOptions = {},
): StoredEdit {
  return moveEditCursor(
    lib,
    idOrPrefix,
    options,
    'an undo',
    undoEdit,
    (id) => `Recording ${id} has no edit to undo.`,
  );
}

// Applies the earliest undone edit again; refuses when there is none.
export function redoNextEdit(
  lib: Library,
  idOrPrefix: string,
  options: ApplyEditOptions = {},
): StoredEdit {
  return moveEditCursor(
    lib,
    idOrPrefix,
    options,
    'a redo',
    redoEdit,
    (id) => `Recording ${id} has no undone edit to redo.`,
  );
}
