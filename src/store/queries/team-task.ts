// The hub task a local recording was made for (docs/team-mode.md §16): a key of the
// recording's source metadata, so no migration is needed and the key travels inside every
// bundle's recordings row (a reviewer's library gets it with the recording).
import { TEAM_TASK_ID_KEY } from '../../shared/tasks-file';
import type { Db } from '../db';

/** Sets (or, with null, removes) the recording's hub task id. */
export function setTeamTaskId(db: Db, seq: number, taskId: number | null, nowMs: number): void {
  const path = `$.${TEAM_TASK_ID_KEY}`;
  if (taskId === null) {
    db.prepare(
      `UPDATE recordings SET source_metadata_json = json_remove(source_metadata_json, ?),
              updated_at_ms = ?
        WHERE seq = ? AND source_metadata_json IS NOT NULL`,
    ).run(path, nowMs, seq);
    return;
  }
  db.prepare(
    `UPDATE recordings
        SET source_metadata_json = json_set(coalesce(source_metadata_json, '{}'), ?, ?),
            updated_at_ms = ?
      WHERE seq = ?`,
  ).run(path, taskId, nowMs, seq);
}
