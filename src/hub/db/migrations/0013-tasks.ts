// Hub migration 13: tasks to record, their claims and infeasible reports, the hub's settings, and
// the task a submission was recorded for (docs/team-mode.md §16). Released migrations are never
// edited; a change is a new migration.
import { sql } from 'kysely';
import type { HubDb } from '../schema';

/** Creates tasks, task_claims, task_reports and hub_settings; adds submissions.task_id. */
export async function migrate0013(db: HubDb): Promise<void> {
  await sql`
    CREATE TABLE tasks (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      instruction text NOT NULL CHECK (length(instruction) BETWEEN 1 AND 10000),
      -- the instruction lower-cased with its whitespace collapsed (src/shared/tasks-file.ts):
      -- one task per instruction, however it was spaced or capitalised
      instruction_key text NOT NULL UNIQUE,
      description text NOT NULL DEFAULT '' CHECK (length(description) <= 20000),
      domain text NOT NULL DEFAULT '' CHECK (length(domain) <= 200),
      app text NOT NULL DEFAULT '' CHECK (length(app) <= 200),
      url text NOT NULL DEFAULT '' CHECK (length(url) <= 2000),
      platform text NOT NULL CHECK (platform IN ('win', 'mac', 'ubuntu', 'any')),
      target integer NOT NULL CHECK (target BETWEEN 1 AND 100000),
      status text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'closed', 'infeasible')),
      tags jsonb NOT NULL DEFAULT '[]'::jsonb,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    )`.execute(db);
  await sql`CREATE INDEX tasks_open ON tasks (platform, id) WHERE status = 'open'`.execute(db);
  // ended_at stays null while a claim is held (or expired but not yet ended)
  await sql`
    CREATE TABLE task_claims (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      task_id bigint NOT NULL REFERENCES tasks (id),
      user_id bigint NOT NULL REFERENCES users (id),
      claimed_at timestamptz NOT NULL DEFAULT now(),
      expires_at timestamptz NOT NULL,
      ended_at timestamptz,
      end_reason text
        CHECK (end_reason IN ('released', 'expired', 'submitted', 'infeasible', 'closed')),
      CHECK ((ended_at IS NULL) = (end_reason IS NULL))
    )`.execute(db);
  // one open claim per person and task, whatever the code above it does
  await sql`
    CREATE UNIQUE INDEX task_claims_open ON task_claims (task_id, user_id)
      WHERE ended_at IS NULL`.execute(db);
  await sql`CREATE INDEX task_claims_user ON task_claims (user_id) WHERE ended_at IS NULL`.execute(
    db,
  );
  await sql`
    CREATE TABLE task_reports (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      task_id bigint NOT NULL REFERENCES tasks (id),
      user_id bigint NOT NULL REFERENCES users (id),
      reason text NOT NULL CHECK (length(reason) BETWEEN 1 AND 5000),
      at timestamptz NOT NULL DEFAULT now(),
      -- a reopened task counts only the reports made after its reopening
      cleared_at timestamptz,
      UNIQUE (task_id, user_id)
    )`.execute(db);
  await sql`
    CREATE TABLE hub_settings (
      key text PRIMARY KEY CHECK (key ~ '^[a-z][a-zA-Z0-9.]{0,99}$'),
      value jsonb NOT NULL,
      updated_at timestamptz NOT NULL DEFAULT now()
    )`.execute(db);
  await sql`ALTER TABLE submissions ADD COLUMN task_id bigint REFERENCES tasks (id)`.execute(db);
  await sql`CREATE INDEX submissions_task ON submissions (task_id, status)`.execute(db);
}
