// Row types of the hub's tables, as the query layer (Kysely) sees them. One declaration per table
// of migrations/; SQL names are snake_case. Timestamps are `timestamptz` (read as Date on both
// backends); ids and counts are `bigint` read as numbers (see open.ts: INT8 parsed as Number).
import type {
  ColumnType,
  Generated,
  Insertable,
  Kysely,
  RawBuilder,
  Selectable,
  Transaction,
} from 'kysely';
import type { HubRole } from '../../shared/contract/hub';
import type { TaskPlatform, TaskStatus } from '../../shared/tasks-file';

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

/** `hub_sessions`: sign-ins by password (browser cookies), stored as SHA-256 only. */
export type HubSessionsTable = {
  id: Generated<number>;
  user_id: number;
  /** Lower-case hex SHA-256 of the session cookie's value. */
  session_sha256: string;
  created_at: CreatedAt;
  expires_at: ColumnType<Date, Date | RawBuilder<Date>, never>;
  revoked_at: ColumnType<Date | null, never, Date | null>;
  client_address: string | null;
  user_agent: string | null;
};

/** Where a submission stands (docs/team-mode.md §10). */
export type SubmissionStatus =
  | 'draft'
  | 'submitted'
  | 'in-review'
  | 'accepted'
  | 'rejected'
  | 'changes'
  // migration 14: waiting for its intake job; failed it (back to the annotator)
  | 'intake'
  | 'intake-failed';

/** How a review lease ended. */
export type LeaseEndReason = 'verdict' | 'expired' | 'reassigned' | 'released';

/** `submissions`: one annotator's recording sent to the hub; its versions hang below it. */
export type SubmissionsTable = {
  id: Generated<number>;
  annotator_id: number;
  /** The annotator's local recording id (a key segment). */
  recording_id: string;
  task: string;
  /** The hub task it was recorded for (migration 13), or null. */
  task_id: ColumnType<number | null, number | null | undefined, number | null>;
  status: ColumnType<SubmissionStatus, SubmissionStatus | undefined, SubmissionStatus>;
  current_version: ColumnType<number, number | undefined, number>;
  /** When the current version joined the queue (null unless submitted or in review). */
  waiting_since: ColumnType<
    Date | null,
    Date | RawBuilder<Date> | null | undefined,
    Date | RawBuilder<Date> | null
  >;
  created_at: CreatedAt;
  updated_at: ColumnType<Date, never, RawBuilder<Date>>;
};

/** `submission_versions`: one registered bundle of a submission. */
export type SubmissionVersionsTable = {
  id: Generated<number>;
  submission_id: number;
  version: number;
  /** SHA-256 of the bundle's manifest.json: with the submission, the idempotency key. */
  manifest_sha256: string;
  /** The object-store key prefix the bundle's files live under. */
  object_prefix: string;
  check_summary: ColumnType<Record<string, unknown>, string, never>;
  pii_summary: ColumnType<Record<string, unknown>, string, never>;
  submitted_at: CreatedAt;
  /** Migration 14: null when registered without a job runner (no intake); else its state. */
  intake_status: ColumnType<IntakeStatus | null, IntakeStatus | null | undefined, IntakeStatus>;
  /** The intake's findings (src/hub/jobs/handlers/intake.ts), once it ran. */
  intake_result: ColumnType<Record<string, unknown> | null, string | undefined, string>;
  intake_at: ColumnType<Date | null, never, RawBuilder<Date>>;
  /** Keyframes computed on the hub for this version (handlers/keyframes.ts), or null. */
  keyframes: ColumnType<Record<string, unknown> | null, string | undefined, string>;
};

/** Where a version's intake stands (migration 14). */
export type IntakeStatus = 'pending' | 'passed' | 'failed';

/** Where a dataset build stands (migration 14). */
export type DatasetBuildStatus = 'queued' | 'running' | 'merging' | 'done' | 'failed';

/** `dataset_builds`: one dataset release built from accepted submissions (docs/jobs.md §H). */
export type DatasetBuildsTable = {
  id: Generated<number>;
  created_by: number | null;
  created_at: CreatedAt;
  finished_at: ColumnType<Date | null, never, RawBuilder<Date> | null>;
  status: ColumnType<DatasetBuildStatus, DatasetBuildStatus | undefined, DatasetBuildStatus>;
  format: 'agentnet-raw' | 'agentnet-jsonl' | 'standardized';
  /** The filters it was asked with (JSON object). */
  filters: ColumnType<Record<string, unknown>, string, never>;
  /** A key prefix of the hub's store, or a folder path on the machine that merges. */
  destination: string;
  total: ColumnType<number, number | undefined, number>;
  done: ColumnType<number, never, number | RawBuilder<number>>;
  failed: ColumnType<number, never, number | RawBuilder<number>>;
  manifest_sha256: ColumnType<string | null, never, string | null>;
  result: ColumnType<Record<string, unknown> | null, never, string>;
  error: ColumnType<string | null, never, string | null>;
};

/** `dataset_build_items`: one submission version a build takes, in merge order. */
export type DatasetBuildItemsTable = {
  build_id: number;
  ordinal: number;
  submission_id: number;
  version: number;
  status: ColumnType<'pending' | 'done' | 'failed', undefined, 'pending' | 'done' | 'failed'>;
  result: ColumnType<Record<string, unknown> | null, never, string>;
  error: ColumnType<string | null, never, string | null>;
  finished_at: ColumnType<Date | null, never, RawBuilder<Date>>;
};

/** `review_leases`: who reviews which version until when; ended_at null while open. */
export type ReviewLeasesTable = {
  id: Generated<number>;
  submission_id: number;
  version: number;
  reviewer_id: number;
  leased_at: CreatedAt;
  expires_at: ColumnType<Date, RawBuilder<Date>, never>;
  ended_at: ColumnType<Date | null, never, Date | RawBuilder<Date>>;
  end_reason: ColumnType<LeaseEndReason | null, never, LeaseEndReason>;
  /** A QA lease: the second review of an accepted submission (migration 17). */
  qa: ColumnType<boolean, boolean | undefined, never>;
};

/** `verdicts`: a reviewer's decision on one version. */
export type VerdictsTable = {
  id: Generated<number>;
  submission_id: number;
  version: number;
  reviewer_id: number;
  verdict: 'accept' | 'reject' | 'changes';
  grade: 'excellent' | 'good' | 'ok' | null;
  feedback: string;
  /** The reviewer's edit log (JSON array). */
  edit_log: ColumnType<unknown[], string, never>;
  at: CreatedAt;
};

export type { TaskPlatform, TaskStatus };
/** How a task claim ended. */
export type ClaimEndReason = 'released' | 'expired' | 'submitted' | 'infeasible' | 'closed';

/** `tasks`: something to record (migration 13). */
export type TasksTable = {
  id: Generated<number>;
  instruction: string;
  /** The instruction lower-cased with whitespace collapsed: unique (src/shared/tasks-file.ts). */
  instruction_key: string;
  description: ColumnType<string, string | undefined, string>;
  domain: ColumnType<string, string | undefined, string>;
  app: ColumnType<string, string | undefined, string>;
  url: ColumnType<string, string | undefined, string>;
  platform: TaskPlatform;
  /** Accepted submissions after which the task closes itself. */
  target: number;
  status: ColumnType<TaskStatus, TaskStatus | undefined, TaskStatus>;
  tags: ColumnType<string[], string | undefined, string>;
  created_at: CreatedAt;
  updated_at: ColumnType<Date, never, RawBuilder<Date>>;
};

/** `task_claims`: an annotator's reservation of a task until expires_at; ended_at null while held. */
export type TaskClaimsTable = {
  id: Generated<number>;
  task_id: number;
  user_id: number;
  claimed_at: CreatedAt;
  expires_at: ColumnType<Date, RawBuilder<Date>, RawBuilder<Date>>;
  ended_at: ColumnType<Date | null, never, Date | RawBuilder<Date>>;
  end_reason: ColumnType<ClaimEndReason | null, never, ClaimEndReason>;
};

/** `task_reports`: one person's report that a task cannot be done. */
export type TaskReportsTable = {
  id: Generated<number>;
  task_id: number;
  user_id: number;
  reason: string;
  at: CreatedAt;
  /** Set when an admin reopened the task: the report no longer counts. */
  cleared_at: ColumnType<Date | null, never, Date | RawBuilder<Date> | null>;
};

/** `hub_settings`: the hub's settings, one JSON value per key. */
export type HubSettingsTable = {
  key: string;
  value: ColumnType<unknown, string, string>;
  updated_at: ColumnType<Date, never, RawBuilder<Date>>;
};

/** `version_stats`: a registered version's summary for the dashboard (migration 16). */
export type VersionStatsTable = {
  submission_id: number;
  version: number;
  os: string;
  step_count: number;
  action_counts: ColumnType<Record<string, number>, string, never>;
  video_ms: number;
  keyframe_count: number;
};

/** `submission_facts`: one submission's dashboard row, kept by triggers (migration 18). */
export type SubmissionFactsTable = {
  submission_id: number;
  status: string;
  annotator_id: number;
  task_id: number | null;
  created_at: Date;
  version: number;
  os: string | null;
  step_count: number | null;
  action_counts: Record<string, number> | null;
  entropy_bits: number | null;
  video_ms: number | null;
  keyframe_count: number | null;
};

/** `verdict_facts`: one verdict's dashboard row, kept by triggers (migration 18). */
export type VerdictFactsTable = {
  verdict_id: number;
  submission_id: number;
  reviewer_id: number;
  verdict: string;
  grade: string | null;
  reason: string;
  turnaround_s: number;
  annotator_id: number | null;
  task_id: number | null;
  created_at: Date | null;
  os: string | null;
};

/** `action_kinds`: every action kind a version summary has counted (migration 18). */
export type ActionKindsTable = { kind: string };

/** `qa_reviews`: an accepted submission drawn for a second review (migration 17). */
export type QaReviewsTable = {
  id: Generated<number>;
  submission_id: number;
  version: number;
  first_reviewer_id: number;
  first_verdict: 'accept' | 'reject' | 'changes';
  queued_at: CreatedAt;
  lease_expires_at: ColumnType<Date | null, never, Date | RawBuilder<Date> | null>;
  reviewer_id: ColumnType<number | null, never, number>;
  verdict: ColumnType<
    'accept' | 'reject' | 'changes' | null,
    never,
    'accept' | 'reject' | 'changes'
  >;
  grade: ColumnType<'excellent' | 'good' | 'ok' | null, never, 'excellent' | 'good' | 'ok' | null>;
  feedback: ColumnType<string, never, string>;
  at: ColumnType<Date | null, never, RawBuilder<Date>>;
  settled_status: ColumnType<'accepted' | 'rejected' | null, never, 'accepted' | 'rejected'>;
  settled_by: ColumnType<number | null, never, number>;
  settled_at: ColumnType<Date | null, never, RawBuilder<Date>>;
  note: ColumnType<string, never, string>;
};

/** Every hub table, for Kysely. */
export type HubTables = {
  hub_schema: HubSchemaTable;
  users: UsersTable;
  user_roles: UserRolesTable;
  dataset_builds: DatasetBuildsTable;
  dataset_build_items: DatasetBuildItemsTable;
  api_tokens: ApiTokensTable;
  audit_log: AuditLogTable;
  hub_sessions: HubSessionsTable;
  submissions: SubmissionsTable;
  submission_versions: SubmissionVersionsTable;
  review_leases: ReviewLeasesTable;
  verdicts: VerdictsTable;
  tasks: TasksTable;
  task_claims: TaskClaimsTable;
  task_reports: TaskReportsTable;
  hub_settings: HubSettingsTable;
  version_stats: VersionStatsTable;
  qa_reviews: QaReviewsTable;
  submission_facts: SubmissionFactsTable;
  action_kinds: ActionKindsTable;
  verdict_facts: VerdictFactsTable;
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
