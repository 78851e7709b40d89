// Uploads: the queue/history rows, the objects of each submission with their completed parts,
// pull provenance, and the upload settings (target defaults, the encrypted credentials blob).
import { UPLOAD_STATUSES, type UploadStatus } from '../../shared/domain';
import type { Db } from '../db';

/** Lifecycle of an upload row (the domain's list). */
export { UPLOAD_STATUSES, type UploadStatus };

/** Statuses an upload can be resumed from. */
export const RESUMABLE_UPLOAD_STATUSES: readonly UploadStatus[] = [
  'queued',
  'preparing',
  'uploading',
  'verifying',
  'paused',
  'failed',
];

/** One upload (queue entry or history). */
export type UploadRecord = {
  id: number;
  recordingSeq: number;
  /** The recording's id (uuid). */
  recordingId: string;
  task: string;
  /** Canonical target, `s3://bucket/prefix`. */
  target: string;
  status: UploadStatus;
  /** Service-owned state (endpoint, annotator, key prefix, staging folder, owner pid). */
  state: Record<string, unknown>;
  bytesTotal: number;
  bytesDone: number;
  /** `CODE: message` of the last failure, null otherwise. */
  error: string | null;
  /** UploadPart requests sent over the upload's life (instrumentation). */
  partRequests: number;
  /** Retried requests over the upload's life. */
  retries: number;
  createdAtMs: number;
  updatedAtMs: number;
  /** When the manifest was written (the submission became complete), epoch ms. */
  submittedAtMs: number | null;
};

type UploadRow = {
  id: number;
  recording_seq: number;
  recording_id: string;
  task: string;
  target: string;
  status: string;
  upload_state_json: string;
  bytes_total: number;
  bytes_done: number;
  error: string | null;
  part_requests: number;
  retries: number;
  created_at_ms: number;
  updated_at_ms: number;
  submitted_at_ms: number | null;
};

const UPLOAD_SELECT = `SELECT u.*, r.id AS recording_id, r.task AS task FROM uploads u
  JOIN recordings r ON r.seq = u.recording_seq`;

function toUpload(row: UploadRow): UploadRecord {
  return {
    id: row.id,
    recordingSeq: row.recording_seq,
    recordingId: row.recording_id,
    task: row.task,
    target: row.target,
    status: row.status as UploadStatus,
    state: JSON.parse(row.upload_state_json) as Record<string, unknown>,
    bytesTotal: row.bytes_total,
    bytesDone: row.bytes_done,
    error: row.error,
    partRequests: row.part_requests,
    retries: row.retries,
    createdAtMs: row.created_at_ms,
    updatedAtMs: row.updated_at_ms,
    submittedAtMs: row.submitted_at_ms,
  };
}

/** Inserts an upload row and returns its id. */
export function insertUpload(
  db: Db,
  input: {
    recordingSeq: number;
    target: string;
    status: UploadStatus;
    state: Record<string, unknown>;
    nowMs: number;
  },
): number {
  const info = db
    .prepare(
      `INSERT INTO uploads (recording_seq, target, status, upload_state_json, created_at_ms,
        updated_at_ms) VALUES (?, ?, ?, ?, ?, ?)`,
    )
    .run(
      input.recordingSeq,
      input.target,
      input.status,
      JSON.stringify(input.state),
      input.nowMs,
      input.nowMs,
    );
  return Number(info.lastInsertRowid);
}

/** One upload by id, or undefined. */
export function getUpload(db: Db, id: number): UploadRecord | undefined {
  const row = db.prepare(`${UPLOAD_SELECT} WHERE u.id = ?`).get(id) as UploadRow | undefined;
  return row ? toUpload(row) : undefined;
}

/** The newest upload of a recording to a target in one of `statuses`, or undefined. */
export function findUpload(
  db: Db,
  recordingSeq: number,
  target: string,
  statuses: readonly UploadStatus[],
): UploadRecord | undefined {
  const row = db
    .prepare(
      `${UPLOAD_SELECT} WHERE u.recording_seq = ? AND u.target = ?
       AND u.status IN (SELECT value FROM json_each(?)) ORDER BY u.id DESC LIMIT 1`,
    )
    .get(recordingSeq, target, JSON.stringify(statuses)) as UploadRow | undefined;
  return row ? toUpload(row) : undefined;
}

/** Filter of {@link listUploads}. */
export type UploadFilter = {
  status?: UploadStatus;
  recordingSeq?: number;
  /** At most this many rows (newest first). */
  limit?: number;
};

/** Uploads newest first. */
export function listUploads(db: Db, filter: UploadFilter = {}): UploadRecord[] {
  const where: string[] = [];
  const params: unknown[] = [];
  if (filter.status) {
    where.push('u.status = ?');
    params.push(filter.status);
  }
  if (filter.recordingSeq !== undefined) {
    where.push('u.recording_seq = ?');
    params.push(filter.recordingSeq);
  }
  params.push(filter.limit ? Math.max(1, Math.floor(filter.limit)) : -1);
  const rows = db
    .prepare(
      `${UPLOAD_SELECT}${where.length ? ` WHERE ${where.join(' AND ')}` : ''}
       ORDER BY u.id DESC LIMIT ?`,
    )
    .all(...params) as UploadRow[];
  return rows.map(toUpload);
}

/** Fields of an upload row that change while it runs. */
export type UploadPatch = {
  status?: UploadStatus;
  state?: Record<string, unknown>;
  bytesTotal?: number;
  bytesDone?: number;
  error?: string | null;
  submittedAtMs?: number | null;
};

const PATCH_COLUMNS: Record<keyof UploadPatch, string> = {
  status: 'status',
  state: 'upload_state_json',
  bytesTotal: 'bytes_total',
  bytesDone: 'bytes_done',
  error: 'error',
  submittedAtMs: 'submitted_at_ms',
};

/** Updates the given fields (and updated_at_ms) of an upload row. */
export function updateUpload(db: Db, id: number, patch: UploadPatch, nowMs: number): void {
  const sets: string[] = [];
  const params: unknown[] = [];
  for (const [key, column] of Object.entries(PATCH_COLUMNS) as [keyof UploadPatch, string][]) {
    if (key in patch) {
      sets.push(`${column} = ?`);
      params.push(key === 'state' ? JSON.stringify(patch.state) : (patch[key] ?? null));
    }
  }
  sets.push('updated_at_ms = ?');
  params.push(nowMs, id);
  db.prepare(`UPDATE uploads SET ${sets.join(', ')} WHERE id = ?`).run(...params);
}

/** Adds to the request counters of an upload. */
export function addUploadCounters(
  db: Db,
  id: number,
  counts: { partRequests?: number; retries?: number },
): void {
  db.prepare(
    `UPDATE uploads SET part_requests = part_requests + ?, retries = retries + ? WHERE id = ?`,
  ).run(counts.partRequests ?? 0, counts.retries ?? 0, id);
}

/** Status of one object of a submission. */
export type UploadObjectStatus = 'pending' | 'uploading' | 'uploaded' | 'verified';

/** One object of a submission. */
export type UploadObjectRecord = {
  /** Key relative to the submission folder, e.g. `video/x.mp4`. */
  relKey: string;
  /** What the file is (`video`, `file`, `raw`, `steps`, `keyframe`, `agentnet`, …). */
  role: string;
  /** Library-relative path of the bytes. */
  path: string;
  sizeBytes: number;
  /** File mtime when hashed (ms); a changed file restarts its object. */
  mtimeMs: number;
  /** SHA-256 of the file, hex; '' until computed (while the object is being sent). */
  sha256: string;
  /** Part size used for this object (bytes); objects up to this size go in one PUT. */
  partSizeBytes: number;
  /** Server-side multipart upload id while one is open. */
  multipartUploadId: string | null;
  status: UploadObjectStatus;
  /** ETag the server reported on completion. */
  etag: string | null;
};

type UploadObjectRow = {
  rel_key: string;
  role: string;
  path: string;
  size_bytes: number;
  mtime_ms: number;
  sha256: string;
  part_size_bytes: number;
  multipart_upload_id: string | null;
  status: string;
  etag: string | null;
};

/** How many objects an upload has, and how many of them are verified (without loading them). */
export function countUploadObjects(db: Db, uploadId: number): { total: number; verified: number } {
  const row = db
    .prepare(
      `SELECT COUNT(*) AS total, COALESCE(SUM(status = 'verified'), 0) AS verified
       FROM upload_objects WHERE upload_id = ?`,
    )
    .get(uploadId) as { total: number; verified: number };
  return { total: row.total, verified: row.verified };
}

/** The objects of an upload in key order. */
export function listUploadObjects(db: Db, uploadId: number): UploadObjectRecord[] {
  const rows = db
    .prepare(`SELECT * FROM upload_objects WHERE upload_id = ? ORDER BY rel_key`)
    .all(uploadId) as UploadObjectRow[];
  return rows.map((r) => ({
    relKey: r.rel_key,
    role: r.role,
    path: r.path,
    sizeBytes: r.size_bytes,
    mtimeMs: r.mtime_ms,
    sha256: r.sha256,
    partSizeBytes: r.part_size_bytes,
    multipartUploadId: r.multipart_upload_id,
    status: r.status as UploadObjectStatus,
    etag: r.etag,
  }));
}

/** Inserts one object of an upload. */
export function insertUploadObject(db: Db, uploadId: number, o: UploadObjectRecord): void {
  db.prepare(
    `INSERT INTO upload_objects (upload_id, rel_key, role, path, size_bytes, mtime_ms, sha256,
      part_size_bytes, multipart_upload_id, status, etag) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(
    uploadId,
    o.relKey,
    o.role,
    o.path,
    o.sizeBytes,
    o.mtimeMs,
    o.sha256,
    o.partSizeBytes,
    o.multipartUploadId,
    o.status,
    o.etag,
  );
}

/** Updates the progress fields of one object. */
export function updateUploadObject(
  db: Db,
  uploadId: number,
  relKey: string,
  patch: Partial<Pick<UploadObjectRecord, 'multipartUploadId' | 'status' | 'etag' | 'sha256'>>,
): void {
  const sets: string[] = [];
  const params: unknown[] = [];
  if ('sha256' in patch) {
    sets.push('sha256 = ?');
    params.push(patch.sha256);
  }
  if ('multipartUploadId' in patch) {
    sets.push('multipart_upload_id = ?');
    params.push(patch.multipartUploadId ?? null);
  }
  if ('status' in patch) {
    sets.push('status = ?');
    params.push(patch.status);
  }
  if ('etag' in patch) {
    sets.push('etag = ?');
    params.push(patch.etag ?? null);
  }
  if (!sets.length) {
    return;
  }
  params.push(uploadId, relKey);
  db.prepare(
    `UPDATE upload_objects SET ${sets.join(', ')} WHERE upload_id = ? AND rel_key = ?`,
  ).run(...params);
}

/** Deletes one object (and its parts) of an upload. */
export function deleteUploadObject(db: Db, uploadId: number, relKey: string): void {
  db.prepare(`DELETE FROM upload_objects WHERE upload_id = ? AND rel_key = ?`).run(
    uploadId,
    relKey,
  );
}

/** Deletes every object (and part) of an upload. */
export function deleteUploadObjects(db: Db, uploadId: number): void {
  db.prepare(`DELETE FROM upload_objects WHERE upload_id = ?`).run(uploadId);
}

/** A part the server acknowledged. */
export type UploadPartRecord = {
  partNumber: number;
  sizeBytes: number;
  /** MD5 of the part, hex, when it was sent with Content-MD5 (the ETag must equal it), else ''. */
  md5: string;
  /** SHA-256 of the part, hex (signed as the request payload hash; the server verifies it). */
  sha256: string;
  etag: string;
  completedAtMs: number;
};

/** Completed parts of one object in part order. */
export function listUploadParts(db: Db, uploadId: number, relKey: string): UploadPartRecord[] {
  const rows = db
    .prepare(
      `SELECT part_number, size_bytes, md5, sha256, etag, completed_at_ms FROM upload_parts
       WHERE upload_id = ? AND rel_key = ? ORDER BY part_number`,
    )
    .all(uploadId, relKey) as {
    part_number: number;
    size_bytes: number;
    md5: string;
    sha256: string;
    etag: string;
    completed_at_ms: number;
  }[];
  return rows.map((r) => ({
    partNumber: r.part_number,
    sizeBytes: r.size_bytes,
    md5: r.md5,
    sha256: r.sha256,
    etag: r.etag,
    completedAtMs: r.completed_at_ms,
  }));
}

/** Records a completed part (replacing an earlier record of the same part). */
export function insertUploadPart(
  db: Db,
  uploadId: number,
  relKey: string,
  p: UploadPartRecord,
): void {
  db.prepare(
    `INSERT INTO upload_parts (upload_id, rel_key, part_number, size_bytes, md5, sha256, etag,
      completed_at_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (upload_id, rel_key, part_number) DO UPDATE SET size_bytes = excluded.size_bytes,
      md5 = excluded.md5, sha256 = excluded.sha256, etag = excluded.etag,
      completed_at_ms = excluded.completed_at_ms`,
  ).run(uploadId, relKey, p.partNumber, p.sizeBytes, p.md5, p.sha256, p.etag, p.completedAtMs);
}

/** Forgets completed parts of one object (all, or the given part numbers). */
export function deleteUploadParts(
  db: Db,
  uploadId: number,
  relKey: string,
  partNumbers?: readonly number[],
): void {
  if (partNumbers) {
    db.prepare(
      `DELETE FROM upload_parts WHERE upload_id = ? AND rel_key = ?
       AND part_number IN (SELECT value FROM json_each(?))`,
    ).run(uploadId, relKey, JSON.stringify(partNumbers));
  } else {
    db.prepare(`DELETE FROM upload_parts WHERE upload_id = ? AND rel_key = ?`).run(
      uploadId,
      relKey,
    );
  }
}

/** Where a pulled recording came from. */
export type PullRecord = {
  /** `s3://bucket/key-prefix-of-the-submission`. */
  source: string;
  annotator: string;
  manifestSha256: string;
  /** The manifest's submittedAt (ISO 8601). */
  submittedAt: string;
  pulledAtMs: number;
};

/** Records the provenance of a pulled recording. */
export function insertPull(db: Db, recordingSeq: number, p: PullRecord): void {
  db.prepare(
    `INSERT INTO pulls (recording_seq, source, annotator, manifest_sha256, submitted_at,
      pulled_at_ms) VALUES (?, ?, ?, ?, ?, ?)`,
  ).run(recordingSeq, p.source, p.annotator, p.manifestSha256, p.submittedAt, p.pulledAtMs);
}

/** Provenance of a pulled recording, or undefined. */
export function getPull(db: Db, recordingSeq: number): PullRecord | undefined {
  const row = db.prepare(`SELECT * FROM pulls WHERE recording_seq = ?`).get(recordingSeq) as
    | {
        source: string;
        annotator: string;
        manifest_sha256: string;
        submitted_at: string;
        pulled_at_ms: number;
      }
    | undefined;
  return row
    ? {
        source: row.source,
        annotator: row.annotator,
        manifestSha256: row.manifest_sha256,
        submittedAt: row.submitted_at,
        pulledAtMs: row.pulled_at_ms,
      }
    : undefined;
}

/** Settings keys owned by uploads. */
export const UPLOAD_SETTING_KEYS = {
  /** Target defaults (no secrets): endpoint, region, bucket, prefix, path style, annotator. */
  target: 'upload.target',
  /** Credentials encrypted by the host's secret cipher (Electron safeStorage); never plaintext. */
  credentials: 'upload.credentials',
} as const;

/** Reads an upload setting (parsed JSON), or undefined. */
export function getUploadSetting(
  db: Db,
  key: (typeof UPLOAD_SETTING_KEYS)[keyof typeof UPLOAD_SETTING_KEYS],
): unknown {
  const row = db.prepare(`SELECT value_json FROM settings WHERE key = ?`).get(key) as
    { value_json: string } | undefined;
  return row ? (JSON.parse(row.value_json) as unknown) : undefined;
}

/** Writes (or with undefined, removes) an upload setting. */
export function setUploadSetting(
  db: Db,
  key: (typeof UPLOAD_SETTING_KEYS)[keyof typeof UPLOAD_SETTING_KEYS],
  value: unknown,
): void {
  if (value === undefined) {
    db.prepare(`DELETE FROM settings WHERE key = ?`).run(key);
    return;
  }
  db.prepare(
    `INSERT INTO settings (key, value_json) VALUES (?, ?)
     ON CONFLICT (key) DO UPDATE SET value_json = excluded.value_json`,
  ).run(key, JSON.stringify(value));
}
