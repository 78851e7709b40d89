// Version 5: a unique key for "this source is already in the library" (issue 26 item 13). Import
// checked for the same video in one statement and inserted in another, so parallel imports of one
// folder all passed the check; the key makes the second insert fail inside its transaction.
// `recordings.source_fingerprint` is `video-sha256:<hex>` for an import and NULL for a recording
// made here and for an import made with --allow-duplicate (NULLs never collide). Existing imports
// get the key from their video's SHA-256, only the oldest of each video: a library that already
// holds duplicates (made before this key, or with --allow-duplicate) migrates without failing.
import type { Migration } from './index';

const SQL = `
ALTER TABLE recordings ADD COLUMN source_fingerprint TEXT;
UPDATE recordings
   SET source_fingerprint = (SELECT 'video-sha256:' || v.sha256 FROM videos v
                              WHERE v.recording_seq = recordings.seq AND v.ord = 0)
 WHERE seq IN (SELECT MIN(r.seq) FROM recordings r
                 JOIN videos v ON v.recording_seq = r.seq AND v.ord = 0
                WHERE r.source = 'agentnet-import' AND v.sha256 IS NOT NULL
                GROUP BY v.sha256);
CREATE UNIQUE INDEX recordings_source_fingerprint ON recordings (source_fingerprint);
`;

/** Adds the unique source fingerprint of imported recordings. */
export const migration0005: Migration = {
  version: 5,
  name: 'import-fingerprint',
  up: (db) => {
    db.exec(SQL);
  },
};
