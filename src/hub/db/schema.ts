// Row types of the hub's tables, as the query layer (Kysely) sees them. One declaration per table
// of migrations/; SQL names are snake_case. Timestamps are `timestamptz` (read as Date on both
// backends); ids and counts are `bigint` read as numbers (see open.ts: INT8 parsed as Number).
import type { ColumnType, Generated, Insertable, Kysely, Selectable, Transaction } from 'kysely';
import type { HubRole } from '../../shared/contract/hub';

/** A timestamp the database fills in (default now()). */
type CreatedAt = ColumnType<Date, never, never>;

/** `hub_schema`: the one-row schema version table of migrate.ts. */
export type HubSchemaTable = {
  singleton: ColumnType<boolean, boolean | undefined, never>;
  version: number;
};

/** `users`: one account. A removed account is disabled, never deleted (its history stays). */
export type UsersTable = {
  id: Generated<number>;
  name: string;
  /** argon2id PHC string (auth/passwords.ts); never the password. */
  password_hash: string;
  /** True while the one-time password of `hub user add` is in force. */
  must_change_password: Generated<boolean>;
  created_at: CreatedAt;
  disabled_at: ColumnType<Date | null, never, Date | null>;
};

/** `user_roles`: the roles of an account, one row each. */
export type UserRolesTable = {
  user_id: number;
  role: HubRole;
  granted_at: CreatedAt;
};

/** `api_tokens`: revocable tokens for the app and the CLI, stored as SHA-256 only. */
export type ApiTokensTable = {
  id: Generated<number>;
  user_id: number;
  /** What the owner called it ("laptop", "ci"). */
  name: string;
  /** Lower-case hex SHA-256 of the token; the token itself is shown once and never stored. */
  token_sha256: string;
  created_at: CreatedAt;
  last_used_at: ColumnType<Date | null, never, Date | null>;
  revoked_at: ColumnType<Date | null, never, Date | null>;
};

/** `audit_log`: every state change: who, when, what, on what, from which client. */
export type AuditLogTable = {
  id: Generated<number>;
  at: CreatedAt;
  /** The account name, or `os:<user>@<host>` for a CLI run on the hub's machine. */
  actor: string;
  /** The account id when the actor is an account (no foreign key: the log outlives accounts). */
  actor_user_id: number | null;
  /** Dotted verb: `user.add`, `user.remove`, `user.roles`, `token.create`, `token.revoke`. */
  action: string;
  /** What it acted on (`user:alice`, `token:12`), or null. */
  target: string | null;
  /** `cli`, `web`, `app`. */
  client: string;
  /** JSON object with the change (never a password or token). */
  details: ColumnType<Record<string, unknown>, string, never>;
};

/** Every hub table, for Kysely. */
export type HubTables = {
  hub_schema: HubSchemaTable;
  users: UsersTable;
  user_roles: UserRolesTable;
  api_tokens: ApiTokensTable;
  audit_log: AuditLogTable;
};

/** The hub database handle itself (transactions start here). */
export type HubRootDb = Kysely<HubTables>;

/** The hub database handle (or a transaction on it): what every query function takes first. */
export type HubDb = Kysely<HubTables> | Transaction<HubTables>;

/** A `users` row as read. */
export type UserRow = Selectable<UsersTable>;
/** A new `users` row. */
export type NewUserRow = Insertable<UsersTable>;
/** An `api_tokens` row as read. */
export type ApiTokenRow = Selectable<ApiTokensTable>;
/** An `audit_log` row as read. */
export type AuditRow = Selectable<AuditLogTable>;
