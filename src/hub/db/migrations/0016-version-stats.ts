// Hub migration 16: one summary row per registered version for the admin dashboard
// (docs/team-mode.md §18): the OS, step count, action-type counts, video length and keyframe
// count read from the bundle the hub has just verified, so the dashboard's figures are SQL over
// small rows rather than reads of every bundle. Released migrations are never edited.
import { sql } from 'kysely';
import type { HubDb } from '../schema';

/** Creates version_stats and the indexes the dashboard's filters use. */
export async function migrate0016(db: HubDb): Promise<void> {
  await sql`
    CREATE TABLE version_stats (
      submission_id bigint NOT NULL,
      version integer NOT NULL,
      -- manifest platform.os: linux | win32 | darwin (or what the recorder reported)
      os text NOT NULL CHECK (length(os) <= 40),
      step_count integer NOT NULL CHECK (step_count >= 0),
      -- {"click": 7, "write": 2, …}: steps by kind (steps/steps.json)
      action_counts jsonb NOT NULL DEFAULT '{}'::jsonb,
      video_ms bigint NOT NULL DEFAULT 0 CHECK (video_ms >= 0),
      keyframe_count integer NOT NULL DEFAULT 0 CHECK (keyframe_count >= 0),
      PRIMARY KEY (submission_id, version),
      FOREIGN KEY (submission_id, version) REFERENCES submission_versions (submission_id, version)
    )`.execute(db);
  await sql`CREATE INDEX submissions_status_created ON submissions (status, created_at)`.execute(
    db,
  );
  await sql`CREATE INDEX submissions_annotator_created ON submissions (annotator_id, created_at)`.execute(
    db,
  );
  await sql`CREATE INDEX verdicts_submission_at ON verdicts (submission_id, at)`.execute(db);
}
