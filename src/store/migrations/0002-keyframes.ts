// Version 2: computed keyframes per step, a stored step count per recording (kept by triggers),
// and the indexes the library page and the review history query need at 10,000 recordings.
import type { Migration } from './index';

const SQL = `
-- Keyframes chosen for the steps as they were when computed (the PNG lives under
-- recordings/<id>/keyframes/). input_json is the keyframe search input of the step: a row whose
-- input no longer matches the step (edited or re-reduced) is stale and not shown.
CREATE TABLE keyframes (
  recording_seq INTEGER NOT NULL REFERENCES recordings (seq) ON DELETE CASCADE,
  step_id TEXT NOT NULL,
  time_ms REAL,
  frame INTEGER,
  path TEXT,
  input_json TEXT NOT NULL,
  source TEXT NOT NULL,
  diagnostics_json TEXT NOT NULL DEFAULT '[]',
  computed_at_ms INTEGER NOT NULL,
  PRIMARY KEY (recording_seq, step_id)
) STRICT;

-- Step count per recording for sorting the library page without counting 10,000 times.
ALTER TABLE recordings ADD COLUMN step_count INTEGER NOT NULL DEFAULT 0;
UPDATE recordings SET step_count = (SELECT COUNT(*) FROM steps s WHERE s.recording_seq = recordings.seq);
CREATE TRIGGER steps_count_insert AFTER INSERT ON steps BEGIN
  UPDATE recordings SET step_count = step_count + 1 WHERE seq = NEW.recording_seq;
END;
CREATE TRIGGER steps_count_delete AFTER DELETE ON steps BEGIN
  UPDATE recordings SET step_count = step_count - 1 WHERE seq = OLD.recording_seq;
END;

-- Library page: every filter paired with the default sort, and one index per sort column.
DROP INDEX recordings_status;
CREATE INDEX recordings_status_created ON recordings (status, created_at_ms);
CREATE INDEX recordings_review_created ON recordings (review_status, created_at_ms);
CREATE INDEX recordings_os_created ON recordings (os, created_at_ms);
CREATE INDEX recordings_task ON recordings (task COLLATE NOCASE);
CREATE INDEX recordings_duration ON recordings (duration_ms);
CREATE INDEX recordings_steps ON recordings (step_count);

-- Review history of one recording.
CREATE INDEX reviews_recording ON reviews (recording_seq, id);
`;

/** Version 2: keyframes table, recordings.step_count, library-page indexes. */
export const migration0002: Migration = {
  version: 2,
  name: 'keyframes',
  up: (db) => {
    db.exec(SQL);
  },
};
