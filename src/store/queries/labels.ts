// Task labels: one row per recording, upserted with a version bump on every save.
import type { TaskLabels } from '../../shared/contract';
import type { Db } from '../db';

type LabelRow = {
  task_completed: number | null;
  task_difficulty: number | null;
  alignment_score: number | null;
  efficiency_score: number | null;
  version: number;
  updated_at_ms: number;
};

/** Labels of a recording that has none yet. */
export const EMPTY_TASK_LABELS: TaskLabels = {
  taskCompleted: null,
  taskDifficulty: null,
  alignmentScore: null,
  efficiencyScore: null,
};

/** Saved labels with their version (0 = never saved). */
export type StoredLabels = { labels: TaskLabels; version: number; updatedAtMs: number | null };

/** Inserts or replaces a recording's labels, bumping the version; returns the new version. */
export function saveLabels(
  db: Db,
  recordingSeq: number,
  labels: TaskLabels,
  nowMs: number,
): number {
  const row = db
    .prepare(
      `INSERT INTO labels (recording_seq, task_completed, task_difficulty, alignment_score,
         efficiency_score, version, updated_at_ms) VALUES (?, ?, ?, ?, ?, 1, ?)
       ON CONFLICT (recording_seq) DO UPDATE SET
         task_completed = excluded.task_completed,
         task_difficulty = excluded.task_difficulty,
         alignment_score = excluded.alignment_score,
         efficiency_score = excluded.efficiency_score,
         version = labels.version + 1,
         updated_at_ms = excluded.updated_at_ms
       RETURNING version`,
    )
    .get(
      recordingSeq,
      labels.taskCompleted === null ? null : labels.taskCompleted ? 1 : 0,
      labels.taskDifficulty,
      labels.alignmentScore,
      labels.efficiencyScore,
      nowMs,
    ) as { version: number };
  return row.version;
}

/** A recording's labels (all null, version 0 when never saved). */
export function getLabels(db: Db, recordingSeq: number): StoredLabels {
  const r = db
    .prepare(
      `SELECT task_completed, task_difficulty, alignment_score, efficiency_score, version,
         updated_at_ms FROM labels WHERE recording_seq = ?`,
    )
    .get(recordingSeq) as LabelRow | undefined;
  if (!r) {
    return { labels: { ...EMPTY_TASK_LABELS }, version: 0, updatedAtMs: null };
  }
  return {
    labels: {
      taskCompleted: r.task_completed === null ? null : r.task_completed !== 0,
      taskDifficulty: r.task_difficulty,
      alignmentScore: r.alignment_score,
      efficiencyScore: r.efficiency_score,
    },
    version: r.version,
    updatedAtMs: r.updated_at_ms,
  };
}
