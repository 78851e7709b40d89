// Version 6: reasoning for every step (issue 30, docs/cot.md §5). One row per trajectory step that
// OpenCUA's CoT synthesis finished, and one summary per recording. `input_sha256` fingerprints
// what the row was made from (the goal, the step's code and reviewer mark, and the fingerprints
// of the steps before it): a row whose fingerprint no longer matches the recording's steps is
// stale, and the next run makes it again. Keyed by trajectory index (the exported trajectory,
// terminate last), not step id: an exported step can join several reduced steps.
import type { Migration } from './index';

const SQL = `
CREATE TABLE cot_steps (
  recording_seq INTEGER NOT NULL REFERENCES recordings (seq) ON DELETE CASCADE,
  idx INTEGER NOT NULL,
  input_sha256 TEXT NOT NULL,
  code TEXT NOT NULL,
  observation TEXT NOT NULL,
  thought TEXT NOT NULL,
  action TEXT NOT NULL,
  last_step_correct INTEGER NOT NULL CHECK (last_step_correct IN (0, 1)),
  last_step_redundant INTEGER NOT NULL CHECK (last_step_redundant IN (0, 1)),
  reflection TEXT NOT NULL,
  verdict_source TEXT NOT NULL CHECK (verdict_source IN ('model', 'reviewer', 'final-step')),
  model TEXT NOT NULL,
  calls INTEGER NOT NULL,
  prompt_tokens INTEGER NOT NULL,
  completion_tokens INTEGER NOT NULL,
  edited_at_ms INTEGER,
  created_at_ms INTEGER NOT NULL,
  PRIMARY KEY (recording_seq, idx)
) STRICT;

CREATE TABLE cot_summaries (
  recording_seq INTEGER PRIMARY KEY REFERENCES recordings (seq) ON DELETE CASCADE,
  input_sha256 TEXT NOT NULL,
  fields_json TEXT NOT NULL,
  model TEXT NOT NULL,
  calls INTEGER NOT NULL,
  prompt_tokens INTEGER NOT NULL,
  completion_tokens INTEGER NOT NULL,
  edited_at_ms INTEGER,
  created_at_ms INTEGER NOT NULL
) STRICT;
`;

/** Version 6: the CoT tables (cot_steps, cot_summaries). */
export const migration0006: Migration = {
  version: 6,
  name: 'cot',
  up: (db) => {
    db.exec(SQL);
  },
};
