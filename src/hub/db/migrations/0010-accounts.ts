// Hub migration 10: accounts, their roles, API tokens and the audit log (docs/team-mode.md §4).
// Released migrations are never edited; a change is a new migration.
import { sql } from 'kysely';
import type { HubDb } from '../schema';

/** Creates users, user_roles, api_tokens and audit_log. */
export async function migrate0010(db: HubDb): Promise<void> {
  await sql`
    CREATE TABLE users (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      name text NOT NULL UNIQUE CHECK (name ~ '^[a-z0-9][a-z0-9._-]{0,63}$'),
      password_hash text NOT NULL CHECK (password_hash LIKE '$argon2id$%'),
      must_change_password boolean NOT NULL DEFAULT true,
      created_at timestamptz NOT NULL DEFAULT now(),
      disabled_at timestamptz
    )`.execute(db);
  await sql`
    CREATE TABLE user_roles (
      user_id bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      role text NOT NULL CHECK (role IN ('annotator', 'reviewer', 'admin')),
      granted_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (user_id, role)
    )`.execute(db);
  // the admins' lookup (the last-admin rule, the Team page)
  await sql`CREATE INDEX user_roles_role ON user_roles (role, user_id)`.execute(db);
  await sql`
    CREATE TABLE api_tokens (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      user_id bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      name text NOT NULL CHECK (length(name) BETWEEN 1 AND 100),
      token_sha256 text NOT NULL UNIQUE CHECK (token_sha256 ~ '^[0-9a-f]{64}$'),
      created_at timestamptz NOT NULL DEFAULT now(),
      last_used_at timestamptz,
      revoked_at timestamptz
    )`.execute(db);
  await sql`CREATE INDEX api_tokens_user ON api_tokens (user_id)`.execute(db);
  // no foreign key to users: the log outlives accounts and names the actor as it was then
  await sql`
    CREATE TABLE audit_log (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      at timestamptz NOT NULL DEFAULT now(),
      actor text NOT NULL,
      actor_user_id bigint,
      action text NOT NULL,
      target text,
      client text NOT NULL,
      details jsonb NOT NULL DEFAULT '{}'::jsonb
    )`.execute(db);
  await sql`CREATE INDEX audit_log_at ON audit_log (at)`.execute(db);
}
