// Hub migration 12: browser sign-in sessions (docs/team-mode.md §12). Released migrations are never
// edited; a change is a new migration.
import { sql } from 'kysely';
import type { HubDb } from '../schema';

/** Creates hub_sessions: one row per sign-in by password, the cookie's SHA-256 only. */
export async function migrate0012(db: HubDb): Promise<void> {
  await sql`
    CREATE TABLE hub_sessions (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      user_id bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      session_sha256 text NOT NULL UNIQUE CHECK (session_sha256 ~ '^[0-9a-f]{64}$'),
      created_at timestamptz NOT NULL DEFAULT now(),
      expires_at timestamptz NOT NULL,
      revoked_at timestamptz,
      client_address text,
      user_agent text
    )`.execute(db);
  await sql`CREATE INDEX hub_sessions_user ON hub_sessions (user_id)`.execute(db);
}
