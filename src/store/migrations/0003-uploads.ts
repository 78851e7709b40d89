// Uploads: resumable multipart state (objects of a submission and their completed parts),
// request counters, and where pulled recordings came from.
import type { Migration } from './index';

const SQL = `
-- Instrumentation and outcome of an upload (the row itself exists since migration 1).
ALTER TABLE uploads ADD COLUMN part_requests INTEGER NOT NULL DEFAULT 0;
ALTER TABLE uploads ADD COLUMN retries INTEGER NOT NULL DEFAULT 0;
ALTER TABLE uploads ADD COLUMN submitted_at_ms INTEGER;
CREATE INDEX uploads_status ON uploads (status, recording_seq);

-- One object of a submission: where its bytes are, what they hash to, how far it got.
CREATE TABLE upload_objects (
  upload_id INTEGER NOT NULL REFERENCES uploads (id) ON DELETE CASCADE,
  rel_key TEXT NOT NULL,
  role TEXT NOT NULL,
  path TEXT NOT NULL,
  size_bytes INTEGER NOT NULL,
  mtime_ms REAL NOT NULL,
  sha256 TEXT NOT NULL,
  part_size_bytes INTEGER NOT NULL,
  multipart_upload_id TEXT,
  status TEXT NOT NULL CHECK (status IN ('pending','uploading','uploaded','verified')),
  etag TEXT,
  PRIMARY KEY (upload_id, rel_key)
) STRICT;

-- Parts the server acknowledged (ETag checked against our MD5); never re-sent on resume.
CREATE TABLE upload_parts (
  upload_id INTEGER NOT NULL,
  rel_key TEXT NOT NULL,
  part_number INTEGER NOT NULL,
  size_bytes INTEGER NOT NULL,
  md5 TEXT NOT NULL,
  sha256 TEXT NOT NULL,
  etag TEXT NOT NULL,
  completed_at_ms INTEGER NOT NULL,
  PRIMARY KEY (upload_id, rel_key, part_number),
  FOREIGN KEY (upload_id, rel_key) REFERENCES upload_objects (upload_id, rel_key)
    ON DELETE CASCADE
) STRICT;

-- Provenance of recordings imported by pull (the recording itself is reproduced unchanged).
CREATE TABLE pulls (
  recording_seq INTEGER PRIMARY KEY REFERENCES recordings (seq) ON DELETE CASCADE,
  source TEXT NOT NULL,
  annotator TEXT NOT NULL,
  manifest_sha256 TEXT NOT NULL,
  submitted_at TEXT NOT NULL,
  pulled_at_ms INTEGER NOT NULL
) STRICT;
`;

/** Version 3: upload objects and parts, request counters, pull provenance. */
export const migration0003: Migration = {
  version: 3,
  name: 'uploads',
  up: (db) => {
    db.exec(SQL);
  },
};
