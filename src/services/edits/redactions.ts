// Box redactions in the edit log (issue 14, item 3): the `redact-box` edits of a recording for
// `cua-annotator redact --list`, and undoing one by its id (`--undo`). Undo is the log's own undo
// (a state flag, non-destructive), so only the latest active edit can be undone.
import type { StoredEdit } from '../../shared/contract';
import { AppError } from '../../shared/errors';
import { listEdits, resolveRecordingSeq } from '../../store';
import type { Library } from '../library/library';
import { undoLastEdit, type ApplyEditOptions } from './edit-service';

/** One box redaction of the log. */
export type BoxRedaction = {
  editId: number;
  state: StoredEdit['state'];
  atMs: number;
  author: string | null;
  startMs: number;
  endMs: number;
  box: { x: number; y: number; width: number; height: number };
};

/** The `redact-box` edits of a recording in log order (active and undone; discarded left out). */
export function listBoxRedactions(lib: Library, idOrPrefix: string): BoxRedaction[] {
  const { seq } = resolveRecordingSeq(lib.db, idOrPrefix);
  return listEdits(lib.db, seq, ['active', 'undone']).flatMap((e) =>
    e.edit.op === 'redact-box'
      ? [
          {
            editId: e.id,
            state: e.state,
            atMs: e.atMs,
            author: e.author,
            startMs: e.edit.startMs,
            endMs: e.edit.endMs,
            box: { ...e.edit.box },
          },
        ]
      : [],
  );
}

/** Undoes box redaction `editId`; it must be the latest active edit of the recording. */
export function undoBoxRedaction(
  lib: Library,
  idOrPrefix: string,
  editId: number,
  options: ApplyEditOptions = {},
): StoredEdit {
  const { seq, id } = resolveRecordingSeq(lib.db, idOrPrefix);
  const active = listEdits(lib.db, seq, ['active']);
  const target = active.find((e) => e.id === editId);
  if (!target || target.edit.op !== 'redact-box') {
    throw new AppError(
      'NOT_FOUND',
      `Recording ${id} has no active box redaction with edit id ${editId}.`,
      { id, editId },
      `List them with \`cua-annotator redact ${id} --list\`.`,
    );
  }
  const latest = active.at(-1)!;
  if (latest.id !== editId) {
    throw new AppError(
      'INVALID_STATE',
      `Edit ${editId} of recording ${id} is not its latest edit (${latest.id} is): the edit log ` +
        'undoes edits newest first.',
      { id, editId, latestEditId: latest.id },
      'Undo the later edits first (the review UI or edits:undo), then this one.',
    );
  }
  return undoLastEdit(lib, id, options);
}
