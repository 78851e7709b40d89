// Initial schema: recordings, videos, raw events, accessibility, windows, steps, edits, labels,
// reviews, timeline marks and uploads.
import type { Migration } from './index';

const SQL = `
CREATE TABLE recordings (
  seq INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  source TEXT NOT NULL,
  task TEXT NOT NULL,
  description TEXT NOT NULL DEFAULT '',
  status TEXT NOT NULL CHECK (status IN ('active','complete','recovered','corrupt','failed')),
  review_status TEXT NOT NULL DEFAULT 'draft'
    CHECK (review_status IN ('draft','submitted','accepted','needs-edit','rejected')),
  os TEXT NOT NULL,
  platform_json TEXT NOT NULL,
  screen_width INTEGER NOT NULL,
  screen_height INTEGER NOT NULL,
  scale_factor REAL NOT NULL DEFAULT 1,
  monitors_json TEXT NOT NULL DEFAULT '[]',
  video_start_ms REAL,
  video_start_method TEXT,
  duration_ms REAL,
  app_version TEXT NOT NULL,
  dir TEXT NOT NULL,
  started_at TEXT,
  stopped_at TEXT,
  source_metadata_json TEXT,
  capture_json TEXT,
  warnings_json TEXT NOT NULL DEFAULT '[]',
  created_at_ms INTEGER NOT NULL,
  updated_at_ms INTEGER NOT NULL
) STRICT;
CREATE INDEX recordings_created ON recordings (created_at_ms);
CREATE INDEX recordings_status ON recordings (status);

CREATE TABLE videos (
  recording_seq INTEGER NOT NULL REFERENCES recordings (seq) ON DELETE CASCADE,
  ord INTEGER NOT NULL,
  path TEXT NOT NULL,
  width INTEGER NOT NULL,
  height INTEGER NOT NULL,
  fps REAL NOT NULL,
  frame_count INTEGER,
  duration_ms REAL NOT NULL,
  start_ms REAL NOT NULL,
  start_method TEXT NOT NULL,
  codec TEXT,
  size_bytes INTEGER NOT NULL,
  sha256 TEXT,
  PRIMARY KEY (recording_seq, ord)
) STRICT;

-- Raw input: immutable, compact (small-int kinds and buttons), clustered by (recording, idx).
CREATE TABLE events (
  recording_seq INTEGER NOT NULL REFERENCES recordings (seq) ON DELETE CASCADE,
  idx INTEGER NOT NULL,
  t_ms REAL NOT NULL,
  kind INTEGER NOT NULL,
  x REAL,
  y REAL,
  button INTEGER,
  keycode INTEGER,
  key TEXT,
  char TEXT,
  key_raw TEXT,
  modifiers INTEGER NOT NULL DEFAULT 0,
  dx INTEGER,
  dy INTEGER,
  flags INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (recording_seq, idx)
) STRICT, WITHOUT ROWID;
CREATE INDEX events_time ON events (recording_seq, t_ms);

-- Accessibility: window snapshots and element-at-point records (tree as JSON text).
CREATE TABLE ax_records (
  id INTEGER PRIMARY KEY,
  recording_seq INTEGER NOT NULL REFERENCES recordings (seq) ON DELETE CASCADE,
  t_ms REAL NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('window','element')),
  source TEXT NOT NULL,
  x REAL,
  y REAL,
  node_count INTEGER,
  root_name TEXT,
  tree_json TEXT NOT NULL,
  note TEXT
) STRICT;
CREATE INDEX ax_records_time ON ax_records (recording_seq, kind, t_ms);

-- Active window / focus timeline.
CREATE TABLE windows (
  id INTEGER PRIMARY KEY,
  recording_seq INTEGER NOT NULL REFERENCES recordings (seq) ON DELETE CASCADE,
  t_ms REAL NOT NULL,
  title TEXT,
  app TEXT,
  pid INTEGER,
  x INTEGER,
  y INTEGER,
  width INTEGER,
  height INTEGER,
  window_id TEXT
) STRICT;
CREATE INDEX windows_time ON windows (recording_seq, t_ms);

-- Timeline marks: pauses, input gaps, notes.
CREATE TABLE marks (
  id INTEGER PRIMARY KEY,
  recording_seq INTEGER NOT NULL REFERENCES recordings (seq) ON DELETE CASCADE,
  t_ms REAL NOT NULL,
  end_ms REAL,
  kind TEXT NOT NULL,
  data_json TEXT NOT NULL DEFAULT '{}'
) STRICT;
CREATE INDEX marks_time ON marks (recording_seq, t_ms);

-- Reduced steps: derived, replaceable; raw events stay untouched.
CREATE TABLE steps (
  recording_seq INTEGER NOT NULL REFERENCES recordings (seq) ON DELETE CASCADE,
  step_id TEXT NOT NULL,
  ord INTEGER NOT NULL,
  kind TEXT NOT NULL,
  start_ms REAL NOT NULL,
  end_ms REAL NOT NULL,
  description TEXT NOT NULL,
  label TEXT NOT NULL,
  data_json TEXT NOT NULL,
  source TEXT NOT NULL,
  version INTEGER NOT NULL DEFAULT 1,
  PRIMARY KEY (recording_seq, step_id)
) STRICT;
CREATE INDEX steps_order ON steps (recording_seq, ord);

-- Edit log applied over the steps (append-only; undo is a flag, not a delete).
CREATE TABLE edits (
  id INTEGER PRIMARY KEY,
  recording_seq INTEGER NOT NULL REFERENCES recordings (seq) ON DELETE CASCADE,
  at_ms INTEGER NOT NULL,
  author TEXT,
  op TEXT NOT NULL,
  step_id TEXT,
  payload_json TEXT NOT NULL,
  undone INTEGER NOT NULL DEFAULT 0
) STRICT;
CREATE INDEX edits_recording ON edits (recording_seq, id);

-- Task labels (one row per recording, versioned).
CREATE TABLE labels (
  recording_seq INTEGER PRIMARY KEY REFERENCES recordings (seq) ON DELETE CASCADE,
  task_completed INTEGER,
  task_difficulty INTEGER,
  alignment_score INTEGER,
  efficiency_score INTEGER,
  data_json TEXT NOT NULL DEFAULT '{}',
  version INTEGER NOT NULL DEFAULT 1,
  updated_at_ms INTEGER NOT NULL
) STRICT;

-- Review verdicts (history).
CREATE TABLE reviews (
  id INTEGER PRIMARY KEY,
  recording_seq INTEGER NOT NULL REFERENCES recordings (seq) ON DELETE CASCADE,
  at_ms INTEGER NOT NULL,
  reviewer TEXT,
  status TEXT NOT NULL,
  grade TEXT,
  comment TEXT
) STRICT;

CREATE TABLE uploads (
  id INTEGER PRIMARY KEY,
  recording_seq INTEGER NOT NULL REFERENCES recordings (seq) ON DELETE CASCADE,
  target TEXT NOT NULL,
  status TEXT NOT NULL,
  upload_state_json TEXT NOT NULL DEFAULT '{}',
  bytes_total INTEGER NOT NULL DEFAULT 0,
  bytes_done INTEGER NOT NULL DEFAULT 0,
  error TEXT,
  created_at_ms INTEGER NOT NULL,
  updated_at_ms INTEGER NOT NULL
) STRICT;
CREATE INDEX uploads_recording ON uploads (recording_seq);

CREATE TABLE settings (
  key TEXT PRIMARY KEY,
  value_json TEXT NOT NULL
) STRICT;
`;

/** Version 1: the initial schema. */
export const migration0001: Migration = {
  version: 1,
  name: 'initial',
  up: (db) => {
    db.exec(SQL);
  },
};
