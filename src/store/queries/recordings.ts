// Recordings and their videos: rows ↔ domain objects.
import type {
  PlatformInfo,
  RecordingDetail,
  RecordingSource,
  RecordingStatus,
  RecordingSummary,
  ReviewStatus,
  ScreenInfo,
  VideoInfo,
} from '../../shared/domain';
import { AppError } from '../../shared/errors';
import type { Db } from '../db';
import { countEvents } from './events';

/** Everything needed to create a recording row. */
export type NewRecording = {
  id: string;
  source: RecordingSource;
  task: string;
  description: string;
  status: RecordingStatus;
  platform: PlatformInfo;
  screen: ScreenInfo;
  /** Recording-clock ms of video frame 0 (null until known). */
  videoStartMs: number | null;
  videoStartMethod: string | null;
  durationMs: number | null;
  appVersion: string;
  /** Folder of the recording's files, relative to the library root. */
  dir: string;
  startedAt: string | null;
  stoppedAt: string | null;
  sourceMetadata: Record<string, unknown> | null;
  capture: Record<string, unknown> | null;
  warnings: string[];
  nowMs: number;
  /** What makes this recording's source unique in the library (`video-sha256:<hex>` for an
   * import); a second recording with the same key fails with IMPORT_DUPLICATE. Default null: no
   * key (recordings made here, imports with --allow-duplicate). */
  sourceFingerprint?: string | null;
};

type RecordingRow = {
  seq: number;
  id: string;
  source: string;
  task: string;
  description: string;
  status: string;
  review_status: string;
  os: string;
  platform_json: string;
  screen_width: number;
  screen_height: number;
  scale_factor: number;
  monitors_json: string;
  display_x: number;
  display_y: number;
  video_start_ms: number | null;
  video_start_method: string | null;
  duration_ms: number | null;
  app_version: string;
  dir: string;
  started_at: string | null;
  stopped_at: string | null;
  source_metadata_json: string | null;
  capture_json: string | null;
  warnings_json: string;
  created_at_ms: number;
  updated_at_ms: number;
  step_count?: number;
  event_count?: number;
};

/** Inserts a recording and returns its internal sequence number. */
export function insertRecording(db: Db, r: NewRecording): number {
  const info = db
    .prepare(
      `INSERT INTO recordings (id, source, task, description, status, os, platform_json,
        screen_width, screen_height, scale_factor, monitors_json, display_x, display_y,
        video_start_ms, video_start_method, duration_ms, app_version, dir, started_at,
        stopped_at, source_metadata_json, capture_json, warnings_json, created_at_ms,
        updated_at_ms, source_fingerprint)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(
      r.id,
      r.source,
      r.task,
      r.description,
      r.status,
      r.platform.os,
      JSON.stringify(r.platform),
      r.screen.width,
      r.screen.height,
      r.screen.scale,
      JSON.stringify(r.screen.monitors),
      r.screen.origin?.x ?? 0,
      r.screen.origin?.y ?? 0,
      r.videoStartMs,
      r.videoStartMethod,
      r.durationMs,
      r.appVersion,
      r.dir,
      r.startedAt,
      r.stoppedAt,
      r.sourceMetadata === null ? null : JSON.stringify(r.sourceMetadata),
      r.capture === null ? null : JSON.stringify(r.capture),
      JSON.stringify(r.warnings),
      r.nowMs,
      r.nowMs,
      r.sourceFingerprint ?? null,
    );
  return Number(info.lastInsertRowid);
}

/** Removes every video row of a recording (finalising stores them again). */
export function deleteRecordingVideos(db: Db, recordingSeq: number): void {
  db.prepare(`DELETE FROM videos WHERE recording_seq = ?`).run(recordingSeq);
}

/** Inserts one video row. */
export function insertVideo(db: Db, recordingSeq: number, ord: number, v: VideoInfo): void {
  db.prepare(
    `INSERT INTO videos (recording_seq, ord, path, width, height, fps, frame_count, duration_ms,
      start_ms, start_method, codec, size_bytes, sha256) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(
    recordingSeq,
    ord,
    v.path,
    v.width,
    v.height,
    v.fps,
    v.frameCount,
    v.durationMs,
    v.startMs,
    v.startMethod,
    v.codec,
    v.sizeBytes,
    v.sha256,
  );
}

// step_count is the stored count of the steps as shown (edits applied): the steps triggers keep
// it while steps are written, and every edit stores it again (setStepCount) in its transaction.
const SUMMARY_SELECT = `SELECT r.*,
  (SELECT COUNT(*) FROM events e WHERE e.recording_seq = r.seq) AS event_count
  FROM recordings r`;

function toSummary(row: RecordingRow): RecordingSummary {
  return {
    id: row.id,
    task: row.task,
    status: row.status as RecordingStatus,
    reviewStatus: row.review_status as ReviewStatus,
    source: row.source as RecordingSource,
    os: row.os,
    createdAtMs: row.created_at_ms,
    recordedAt: row.started_at,
    durationMs: row.duration_ms,
    stepCount: row.step_count ?? 0,
    eventCount: row.event_count ?? 0,
  };
}

/** Filter for {@link listRecordings}. */
export type RecordingFilter = {
  status?: RecordingStatus;
  reviewStatus?: ReviewStatus;
  /** Case-insensitive substring of the task instruction. */
  search?: string;
  limit?: number;
};

/** Lists recordings, newest first. */
export function listRecordings(db: Db, filter: RecordingFilter = {}): RecordingSummary[] {
  const where: string[] = [];
  const params: unknown[] = [];
  if (filter.status) {
    where.push('r.status = ?');
    params.push(filter.status);
  }
  if (filter.reviewStatus) {
    where.push('r.review_status = ?');
    params.push(filter.reviewStatus);
  }
  if (filter.search) {
    where.push(`r.task LIKE ? ESCAPE '\\'`);
    params.push(`%${filter.search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
  }
  const sql =
    SUMMARY_SELECT +
    (where.length ? ` WHERE ${where.join(' AND ')}` : '') +
    ' ORDER BY r.created_at_ms DESC, r.seq DESC' +
    (filter.limit ? ` LIMIT ${Math.max(1, Math.floor(filter.limit))}` : '');
  return (db.prepare(sql).all(...params) as RecordingRow[]).map(toSummary);
}

/** Finds a recording's sequence number by full id or unique id prefix (≥ 4 chars). */
export function resolveRecordingSeq(db: Db, idOrPrefix: string): { seq: number; id: string } {
  const exact = db.prepare(`SELECT seq, id FROM recordings WHERE id = ?`).get(idOrPrefix) as
    { seq: number; id: string } | undefined;
  if (exact) {
    return exact;
  }
  if (idOrPrefix.length >= 4) {
    const rows = db
      .prepare(`SELECT seq, id FROM recordings WHERE id LIKE ? ESCAPE '\\' LIMIT 3`)
      .all(`${idOrPrefix.replace(/[\\%_]/g, (c) => `\\${c}`)}%`) as { seq: number; id: string }[];
    if (rows.length === 1 && rows[0]) {
      return rows[0];
    }
    if (rows.length > 1) {
      throw new AppError(
        'NOT_FOUND',
        `Recording id prefix "${idOrPrefix}" is ambiguous (${rows.map((r) => r.id).join(', ')}…); give more characters.`,
      );
    }
  }
  throw new AppError(
    'NOT_FOUND',
    `No recording with id "${idOrPrefix}". Run \`cua-annotator list\` to see the ids.`,
  );
}

/** Reads the videos of a recording in order. */
export function listVideos(db: Db, recordingSeq: number): VideoInfo[] {
  const rows = db
    .prepare(`SELECT * FROM videos WHERE recording_seq = ? ORDER BY ord`)
    .all(recordingSeq) as {
    path: string;
    width: number;
    height: number;
    fps: number;
    frame_count: number | null;
    duration_ms: number;
    start_ms: number;
    start_method: string;
    codec: string | null;
    size_bytes: number;
    sha256: string | null;
  }[];
  return rows.map((v) => ({
    path: v.path,
    width: v.width,
    height: v.height,
    fps: v.fps,
    frameCount: v.frame_count,
    durationMs: v.duration_ms,
    startMs: v.start_ms,
    startMethod: v.start_method,
    codec: v.codec,
    sizeBytes: v.size_bytes,
    sha256: v.sha256,
  }));
}

/** The id, seq and review status of one recording (cheap: no event counts, no JSON). */
export function getReviewStatus(
  db: Db,
  idOrPrefix: string,
): { seq: number; id: string; reviewStatus: ReviewStatus } {
  const { seq, id } = resolveRecordingSeq(db, idOrPrefix);
  const row = db.prepare('SELECT review_status FROM recordings WHERE seq = ?').get(seq) as {
    review_status: string;
  };
  return { seq, id, reviewStatus: row.review_status as ReviewStatus };
}

/** Reads one recording with everything `show` needs. */
export function getRecording(db: Db, idOrPrefix: string): RecordingDetail & { seq: number } {
  const { seq } = resolveRecordingSeq(db, idOrPrefix);
  const row = db.prepare(`${SUMMARY_SELECT} WHERE r.seq = ?`).get(seq) as RecordingRow;
  const summary = toSummary(row);
  return {
    ...summary,
    seq,
    description: row.description,
    platform: JSON.parse(row.platform_json) as PlatformInfo,
    screen: {
      width: row.screen_width,
      height: row.screen_height,
      scale: row.scale_factor,
      origin: { x: row.display_x, y: row.display_y },
      monitors: JSON.parse(row.monitors_json) as ScreenInfo['monitors'],
    },
    videos: listVideos(db, seq),
    appVersion: row.app_version,
    updatedAtMs: row.updated_at_ms,
    startedAt: row.started_at,
    stoppedAt: row.stopped_at,
    sourceMetadata:
      row.source_metadata_json === null
        ? null
        : (JSON.parse(row.source_metadata_json) as Record<string, unknown>),
    warnings: JSON.parse(row.warnings_json) as string[],
    eventCounts: countEvents(db, seq),
    dir: row.dir,
  };
}

/** Every recording's id and folder (the library clean-up's list of folders that belong). */
export function listRecordingDirs(db: Db): { seq: number; id: string; dir: string }[] {
  return db.prepare(`SELECT seq, id, dir FROM recordings`).all() as {
    seq: number;
    id: string;
    dir: string;
  }[];
}

/** Recordings with any edit (their shown step count depends on it) and their stored count. */
export function listEditedStepCounts(db: Db): { seq: number; id: string; stepCount: number }[] {
  return db
    .prepare(
      `SELECT r.seq AS seq, r.id AS id, r.step_count AS stepCount FROM recordings r
       WHERE EXISTS (SELECT 1 FROM edits e WHERE e.recording_seq = r.seq) ORDER BY r.seq`,
    )
    .all() as { seq: number; id: string; stepCount: number }[];
}

/** Stores the number of steps the recording shows (its steps with every active edit applied). */
export function setStepCount(db: Db, seq: number, count: number): void {
  db.prepare(`UPDATE recordings SET step_count = ? WHERE seq = ?`).run(count, seq);
}

/** Deletes a recording row and everything that references it (files are the caller's job). */
export function deleteRecordingRow(db: Db, seq: number): void {
  db.prepare(`DELETE FROM recordings WHERE seq = ?`).run(seq);
}

/** Fields a capture may update on its recording row. */
export type RecordingUpdate = {
  status?: RecordingStatus;
  videoStartMs?: number | null;
  videoStartMethod?: string | null;
  durationMs?: number | null;
  stoppedAt?: string | null;
  capture?: Record<string, unknown>;
  warnings?: string[];
};

const UPDATE_COLUMNS: Record<keyof RecordingUpdate, string> = {
  status: 'status',
  videoStartMs: 'video_start_ms',
  videoStartMethod: 'video_start_method',
  durationMs: 'duration_ms',
  stoppedAt: 'stopped_at',
  capture: 'capture_json',
  warnings: 'warnings_json',
};

/** Updates the given fields of a recording row. */
export function updateRecording(db: Db, seq: number, update: RecordingUpdate, nowMs: number): void {
  const sets: string[] = [];
  const params: unknown[] = [];
  for (const [key, column] of Object.entries(UPDATE_COLUMNS) as [keyof RecordingUpdate, string][]) {
    if (key in update) {
      const v = update[key];
      sets.push(`${column} = ?`);
      params.push(key === 'capture' || key === 'warnings' ? JSON.stringify(v) : (v ?? null));
    }
  }
  sets.push('updated_at_ms = ?');
  params.push(nowMs, seq);
  db.prepare(`UPDATE recordings SET ${sets.join(', ')} WHERE seq = ?`).run(...params);
}

/** Capture settings of a recording (`capture_json`), or null. */
export function getCapture(db: Db, seq: number): Record<string, unknown> | null {
  const row = db.prepare(`SELECT capture_json FROM recordings WHERE seq = ?`).get(seq) as
    { capture_json: string | null } | undefined;
  return row?.capture_json ? (JSON.parse(row.capture_json) as Record<string, unknown>) : null;
}

/** Recordings whose capture never finished (status `active`). */
export function listActiveRecordings(db: Db): { seq: number; id: string; dir: string }[] {
  return db
    .prepare(`SELECT seq, id, dir FROM recordings WHERE status = 'active' ORDER BY seq`)
    .all() as {
    seq: number;
    id: string;
    dir: string;
  }[];
}

/** The recording holding this source fingerprint (see {@link NewRecording.sourceFingerprint}). */
export function findRecordingBySourceFingerprint(
  db: Db,
  fingerprint: string,
): { id: string; task: string } | null {
  return (
    (db.prepare(`SELECT id, task FROM recordings WHERE source_fingerprint = ?`).get(fingerprint) as
      { id: string; task: string } | undefined) ?? null
  );
}

/** Recordings holding a video with this SHA-256 (import's duplicate check), oldest first. */
export function findRecordingsByVideoSha(db: Db, sha256: string): { id: string; task: string }[] {
  return db
    .prepare(
      `SELECT r.id AS id, r.task AS task FROM videos v JOIN recordings r ON r.seq = v.recording_seq
       WHERE v.sha256 = ? ORDER BY r.seq`,
    )
    .all(sha256) as { id: string; task: string }[];
}
