// Small reads and writes of one recording row used by the review services.
import type { Db } from '../db';

/** The few facts of a recording most review calls need. */
export type RecordingBasics = {
  seq: number;
  id: string;
  /** Folder of the recording's files, relative to the library root. */
  dir: string;
  /** Screen size in px (the coordinate space of steps and events). */
  screen: { width: number; height: number };
};

/** The basics of a recording by exact id, or null. */
export function findRecordingBasics(db: Db, id: string): RecordingBasics | null {
  const row = db
    .prepare(`SELECT seq, id, dir, screen_width, screen_height FROM recordings WHERE id = ?`)
    .get(id) as
    | { seq: number; id: string; dir: string; screen_width: number; screen_height: number }
    | undefined;
  return row
    ? {
        seq: row.seq,
        id: row.id,
        dir: row.dir,
        screen: { width: row.screen_width, height: row.screen_height },
      }
    : null;
}

/** The screen size of a recording by sequence number. */
export function getRecordingScreen(db: Db, seq: number): { width: number; height: number } {
  const row = db
    .prepare(`SELECT screen_width, screen_height FROM recordings WHERE seq = ?`)
    .get(seq) as { screen_width: number; screen_height: number } | undefined;
  return { width: row?.screen_width ?? 0, height: row?.screen_height ?? 0 };
}

/** Sets the task instruction and/or description of a recording. */
export function updateRecordingText(
  db: Db,
  seq: number,
  update: { task?: string; description?: string },
  nowMs: number,
): void {
  const sets: string[] = [];
  const params: unknown[] = [];
  if (update.task !== undefined) {
    sets.push('task = ?');
    params.push(update.task);
  }
  if (update.description !== undefined) {
    sets.push('description = ?');
    params.push(update.description);
  }
  sets.push('updated_at_ms = ?');
  params.push(nowMs, seq);
  db.prepare(`UPDATE recordings SET ${sets.join(', ')} WHERE seq = ?`).run(...params);
}

/**
 * Sets the screen size of a recording: the canvas of its joined video when the recorded display
 * changed size mid-recording (src/services/recording/finalize.ts).
 */
export function setRecordingScreenSize(
  db: Db,
  seq: number,
  size: { width: number; height: number },
): void {
  db.prepare(`UPDATE recordings SET screen_width = ?, screen_height = ? WHERE seq = ?`).run(
    size.width,
    size.height,
    seq,
  );
}
