// The team hub's shared vocabulary (docs/team-mode.md): roles and account-name rules, the hub's
// HTTP methods as valibot schemas and the one role table, for the hub, its CLI, the team client
// and (later) the pages.
import * as v from 'valibot';
import { boolField, finiteField, got, idField, integer, obj, oneOf, text } from './fields';
import { HubStatsSchema, StatsFilterSchema } from './hub-stats';
import {
  TASK_DESCRIPTION_MAX,
  TASK_FILE_FORMATS,
  TASK_INSTRUCTION_MAX,
  TASK_NAME_MAX,
  TASK_PLATFORMS,
  TASK_STATUSES,
  TASK_TAGS_MAX,
  TASK_TARGET_MAX,
  TASK_URL_MAX,
} from '../tasks-file';

/** Roles a hub account can hold; a person may hold several. */
export const HUB_ROLES = ['annotator', 'reviewer', 'admin'] as const;

/** One of {@link HUB_ROLES}. */
export type HubRole = (typeof HUB_ROLES)[number];

/** True when `value` names a hub role. */
export function isHubRole(value: unknown): value is HubRole {
  return typeof value === 'string' && (HUB_ROLES as readonly string[]).includes(value);
}

/** Longest account name, in characters. */
export const HUB_USER_NAME_MAX = 64;

// lower-case letters, digits, '.', '_', '-'; starts with a letter or digit: safe in URLs, file
// names and log lines, and one spelling per person (no case twins)
const USER_NAME_PATTERN = /^[a-z0-9][a-z0-9._-]*$/;

/** Why `name` cannot name a hub account, or null when it can. */
export function userNameProblem(name: string): string | null {
  if (!name) {
    return 'an account name cannot be empty';
  }
  if (name.length > HUB_USER_NAME_MAX) {
    return `an account name has at most ${HUB_USER_NAME_MAX} characters (got ${name.length})`;
  }
  if (!USER_NAME_PATTERN.test(name)) {
    return (
      `"${name}" is not an account name: use lower-case letters, digits, '.', '_' and '-', ` +
      'starting with a letter or digit'
    );
  }
  return null;
}

// ---- the hub's HTTP API (docs/team-mode.md §12) ----------------------------------------------
// Every method is `POST /api/<method>` with a JSON body, answered with the Result envelope of the
// local contract ({ ok: true, value } | { ok: false, error: { code, message, fix? } }). Inputs and
// outputs are valibot schemas, checked by the hub (input) and by the team client (output).

/** Longest password accepted, characters (argon2 hashes any length; this bounds the work). */
export const HUB_PASSWORD_MAX = 256;
/** Shortest new password accepted at a password change, characters. */
export const HUB_PASSWORD_MIN = 12;

const userNameField = v.pipe(
  text(HUB_USER_NAME_MAX, 1),
  v.check((s) => userNameProblem(s) === null, 'must be an account name (a-z, 0-9, ".", "_", "-")'),
);
const passwordField = text(HUB_PASSWORD_MAX, 1);
const roleField = oneOf(HUB_ROLES);
const rolesField = v.pipe(
  v.array(roleField, got('must be a list of roles')),
  v.minLength(1, 'must name at least one role'),
);
const tokenNameField = v.pipe(
  text(100, 1),
  // eslint-disable-next-line no-control-regex -- a name shown in lists: no control characters
  v.regex(/^[^\u0000-\u001f\u007f]*$/, got('must not contain control characters')),
);
const tokenIdField = integer(1);
const msField = v.number();
const nullableMs = v.nullable(v.number());
const empty = obj({});

/** The signed-in account as the hub reports it. */
export const HubMeSchema = v.strictObject({
  user: v.string(),
  roles: v.array(roleField),
  /** True while the account's one-time password is in force: change it first. */
  mustChangePassword: v.boolean(),
  /** How this request was signed in. */
  via: v.picklist(['session', 'token']),
});
export type HubMe = v.InferOutput<typeof HubMeSchema>;

/** An account in the Team list. */
export const HubUserSchema = v.strictObject({
  user: v.string(),
  roles: v.array(roleField),
  mustChangePassword: v.boolean(),
  createdAtMs: msField,
  removedAtMs: nullableMs,
});

/** An API token as its owner's list shows it (never the token itself). */
export const HubTokenSchema = v.strictObject({
  id: v.number(),
  name: v.string(),
  createdAtMs: msField,
  lastUsedAtMs: nullableMs,
  revokedAtMs: nullableMs,
});

/** One audit-log entry. */
export const HubAuditEntrySchema = v.strictObject({
  id: v.number(),
  atMs: msField,
  actor: v.string(),
  action: v.string(),
  target: v.nullable(v.string()),
  client: v.string(),
  details: v.record(v.string(), v.unknown()),
});

// ---- submissions and the review queue (docs/team-mode.md §9–§10, §13) ------------------------

/** Submission statuses (src/hub/review/queue.ts). */
export const HUB_SUBMISSION_STATUSES = [
  'draft',
  'submitted',
  'in-review',
  'accepted',
  'rejected',
  'changes',
  // waiting for its intake job; failed it: back to the annotator (docs/jobs.md §H)
  'intake',
  'intake-failed',
] as const;
/** The verdicts a reviewer may give. */
export const HUB_VERDICTS = ['accept', 'reject', 'changes'] as const;
/** The grades of a verdict. */
export const HUB_GRADES = ['excellent', 'good', 'ok'] as const;
/** Longest manifest text a submit may send, characters (inside the hub's 256 KiB body). */
export const HUB_MANIFEST_MAX = 200_000;
/** Longest feedback text, characters. */
export const HUB_FEEDBACK_MAX = 20_000;

const statusField = v.picklist(HUB_SUBMISSION_STATUSES);
const gradeField = v.nullable(v.picklist(HUB_GRADES));
const summaryField = v.record(v.string(), v.unknown());
const sha256Field = v.pipe(v.string(), v.regex(/^[0-9a-f]{64}$/, 'must be a SHA-256 (hex)'));

/** A request the app makes straight to the object store (a presigned URL). */
export const HubPresignedSchema = v.strictObject({
  method: v.picklist(['PUT', 'GET']),
  url: v.string(),
  headers: v.record(v.string(), v.string()),
  expiresAtMs: msField,
});
export type HubPresigned = v.InferOutput<typeof HubPresignedSchema>;

/** One file of a bundle with the presigned request that moves it. */
export const HubTransferSchema = v.strictObject({
  path: v.string(),
  sizeBytes: v.number(),
  request: HubPresignedSchema,
});
export type HubTransfer = v.InferOutput<typeof HubTransferSchema>;

/** A version's intake (docs/jobs.md §H): why it went back to its annotator, if it did. */
export const HubIntakeSchema = v.strictObject({
  status: v.picklist(['pending', 'passed', 'failed']),
  reasons: v.array(v.strictObject({ code: v.string(), message: v.string(), fix: v.string() })),
});
export type HubIntake = v.InferOutput<typeof HubIntakeSchema>;

/** A submission as its annotator sees it (`sync`). */
export const HubMySubmissionSchema = v.strictObject({
  id: v.number(),
  recording: v.string(),
  task: v.string(),
  /** The hub task it was recorded for, or null. */
  taskId: v.nullable(v.number()),
  version: v.number(),
  status: statusField,
  grade: gradeField,
  feedback: v.nullable(v.string()),
  reviewer: v.nullable(v.string()),
  /** The version the latest verdict was given on. */
  verdictVersion: v.nullable(v.number()),
  updatedAtMs: msField,
  /** The current version's intake; null when none ran (a hub without a job runner). */
  intake: v.optional(v.nullable(HubIntakeSchema)),
});
export type HubMySubmission = v.InferOutput<typeof HubMySubmissionSchema>;

/** A verdict with the reviewer's edit log. */
export const HubVerdictSchema = v.strictObject({
  version: v.number(),
  reviewer: v.string(),
  verdict: v.picklist(HUB_VERDICTS),
  grade: gradeField,
  feedback: v.string(),
  editLog: v.array(v.unknown()),
  atMs: msField,
});

/** A submission in the admin's list, with every verdict. */
export const HubSubmissionSchema = v.strictObject({
  id: v.number(),
  recording: v.string(),
  annotator: v.string(),
  task: v.string(),
  taskId: v.nullable(v.number()),
  version: v.number(),
  status: statusField,
  updatedAtMs: msField,
  verdicts: v.array(HubVerdictSchema),
});
export type HubSubmission = v.InferOutput<typeof HubSubmissionSchema>;

/** A submission leased to the calling reviewer, with presigned downloads of its files. */
export const HubLeasedSchema = v.strictObject({
  id: v.number(),
  recording: v.string(),
  annotator: v.string(),
  task: v.string(),
  version: v.number(),
  manifestSha256: v.string(),
  leaseExpiresAtMs: msField,
  /** The reviewer already held it (asked again after a crash). */
  isResumed: v.boolean(),
  /** True on a second review (QA sampling, docs/team-mode.md §19): the submission was accepted
   * by another reviewer; this verdict is compared with theirs and changes no status. */
  qa: v.optional(v.boolean()),
  /** manifest.json first, then every file it lists. */
  files: v.array(HubTransferSchema),
});
export type HubLeased = v.InferOutput<typeof HubLeasedSchema>;

/** The review queue as one reviewer sees it (`review:queue`, the Review queue page). */
export const HubReviewQueueSchema = v.strictObject({
  waiting: v.strictObject({
    /** Submissions a reviewer could be given now (waiting, or leased with the lease expired). */
    total: v.number(),
    /** Of those, the caller's own (as an annotator): they go to other reviewers. */
    own: v.number(),
    /** When the oldest of them joined the queue. */
    oldestSinceMs: nullableMs,
    /** Second reviews (QA sampling) the caller could be given once no first review waits. */
    qa: v.optional(v.number()),
  }),
  /** The leases the caller holds (live), soonest expiry first. */
  mine: v.array(
    v.strictObject({
      id: v.number(),
      recording: v.string(),
      annotator: v.string(),
      task: v.string(),
      version: v.number(),
      leasedAtMs: msField,
      leaseExpiresAtMs: msField,
    }),
  ),
  /** The verdicts the caller gave, newest first. */
  done: v.array(
    v.strictObject({
      id: v.number(),
      recording: v.string(),
      annotator: v.string(),
      task: v.string(),
      version: v.number(),
      verdict: v.picklist(HUB_VERDICTS),
      grade: gradeField,
      feedback: v.string(),
      atMs: msField,
    }),
  ),
});
export type HubReviewQueue = v.InferOutput<typeof HubReviewQueueSchema>;

// ---- tasks (docs/team-mode.md §16) ------------------------------------------------------

/** Largest task file `tasks:import` takes, bytes of JSON body (the hub's limit for it). */
export const HUB_TASKS_IMPORT_MAX_BYTES = 8 * 1024 * 1024;

/** A task as the lists show it. */
export const HubTaskSchema = v.strictObject({
  id: v.number(),
  instruction: v.string(),
  description: v.string(),
  domain: v.string(),
  app: v.string(),
  url: v.string(),
  platform: v.picklist(TASK_PLATFORMS),
  target: v.number(),
  status: v.picklist(TASK_STATUSES),
  tags: v.array(v.string()),
  /** Submissions recorded for it that are not rejected. */
  recorded: v.number(),
  accepted: v.number(),
  /** Who holds a live claim on it. */
  claimedBy: v.array(v.string()),
  /** Infeasible reports since it was last opened. */
  reports: v.number(),
  /** When the caller's own claim on it ends, or null. */
  myClaimExpiresAtMs: nullableMs,
  createdAtMs: msField,
  updatedAtMs: msField,
});
export type HubTask = v.InferOutput<typeof HubTaskSchema>;

const taskIdField = integer(1);
const taskOut = v.strictObject({ task: HubTaskSchema });
const taskSettingsSchema = v.strictObject({
  claimsPerTask: v.number(),
  claimsPerPerson: v.number(),
  claimMinutes: v.number(),
  infeasibleReports: v.number(),
});

/** One job queue's counts (docs/jobs.md): waiting (created or waiting for a retry), active,
 * done, failed (for good: the dead-letter list). */
export const HubJobQueueSchema = v.strictObject({
  name: v.string(),
  waiting: v.number(),
  active: v.number(),
  done: v.number(),
  failed: v.number(),
});
export type HubJobQueue = v.InferOutput<typeof HubJobQueueSchema>;

/** A job failed for good, with its last error. */
export const HubDeadJobSchema = v.strictObject({
  id: v.string(),
  queue: v.string(),
  key: v.string(),
  payload: v.unknown(),
  error: v.string(),
  code: v.nullable(v.string()),
  /** A refused job's reasons (a failed intake's codes and messages); empty otherwise. */
  reasons: v.array(v.strictObject({ code: v.string(), message: v.string() })),
  attempts: v.number(),
  failedAtMs: msField,
});
export type HubDeadJob = v.InferOutput<typeof HubDeadJobSchema>;

/** Where a dataset build stands. */
export const HUB_BUILD_STATUSES = ['queued', 'running', 'merging', 'done', 'failed'] as const;
/** The export formats a dataset is built in (as `export --format`). */
export const HUB_DATASET_FORMATS = ['agentnet-raw', 'agentnet-jsonl', 'standardized'] as const;

/** A dataset build (`dataset build|status|list`, docs/jobs.md §H). */
export const HubDatasetBuildSchema = v.strictObject({
  build: v.number(),
  status: v.picklist(HUB_BUILD_STATUSES),
  format: v.picklist(HUB_DATASET_FORMATS),
  filters: v.record(v.string(), v.unknown()),
  /** Submissions it takes, and how many are exported (done) or left out (failed). */
  submissions: v.number(),
  done: v.number(),
  failed: v.number(),
  /** SHA-256 of the dataset's manifest.json once merged, else null. */
  manifest: v.nullable(v.string()),
  /** Where the dataset is in the hub's store. */
  prefix: v.string(),
  error: v.nullable(v.string()),
  createdBy: v.nullable(v.string()),
  createdAtMs: msField,
  finishedAtMs: v.nullable(msField),
});
export type HubDatasetBuild = v.InferOutput<typeof HubDatasetBuildSchema>;

/** Every hub method: its input and output schema. */
export const HUB_METHOD_SCHEMAS = {
  'auth:login': {
    input: obj({ user: userNameField, password: passwordField }),
    output: v.strictObject({
      user: v.string(),
      roles: v.array(roleField),
      mustChangePassword: v.boolean(),
      /** When the session ends (epoch ms). */
      expiresAtMs: msField,
    }),
  },
  'auth:logout': { input: empty, output: v.strictObject({ revoked: v.boolean() }) },
  'auth:whoami': { input: empty, output: HubMeSchema },
  'auth:change-password': {
    input: obj({
      current: passwordField,
      next: v.pipe(
        text(HUB_PASSWORD_MAX, HUB_PASSWORD_MIN),
        v.check((s) => s.trim() === s, 'must not start or end with spaces'),
      ),
    }),
    output: v.strictObject({ user: v.string() }),
  },
  'tokens:create': {
    input: obj({ name: tokenNameField }),
    output: v.strictObject({ id: v.number(), name: v.string(), token: v.string() }),
  },
  'tokens:list': { input: empty, output: v.strictObject({ tokens: v.array(HubTokenSchema) }) },
  'tokens:revoke': {
    input: obj({ id: tokenIdField }),
    output: v.strictObject({ id: v.number(), revoked: v.boolean() }),
  },
  'users:list': {
    input: obj({ includeRemoved: v.optional(boolField) }),
    output: v.strictObject({ users: v.array(HubUserSchema) }),
  },
  'users:add': {
    input: obj({ user: userNameField, roles: rolesField }),
    output: v.strictObject({ user: v.string(), roles: v.array(roleField), password: v.string() }),
  },
  'users:set-roles': {
    input: obj({ user: userNameField, roles: rolesField }),
    output: v.strictObject({
      user: v.string(),
      roles: v.array(roleField),
      before: v.array(roleField),
    }),
  },
  'users:reset-password': {
    input: obj({ user: userNameField }),
    output: v.strictObject({ user: v.string(), password: v.string() }),
  },
  'users:remove': {
    input: obj({ user: userNameField }),
    output: v.strictObject({ user: v.string(), tokensRevoked: v.number() }),
  },
  'audit:list': {
    input: obj({
      limit: v.optional(integer(1, 1000)),
      // the actor's name exactly; an action exactly, or its domain (`token`: token.*)
      actor: v.optional(text(200, 1)),
      action: v.optional(text(100, 1)),
      // the next page: entries older than this id (the last id of the page before)
      before: v.optional(integer(1)),
    }),
    output: v.strictObject({ entries: v.array(HubAuditEntrySchema) }),
  },
  'submissions:plan-upload': {
    input: obj({
      manifest: text(HUB_MANIFEST_MAX, 1),
      resend: v.optional(v.pipe(v.array(text(1024, 1)), v.maxLength(10_000))),
      /** The app made this manifest just now (not a resumed submit): nothing of the bundle can
       * be in the store yet, so the hub does not list it (every file gets a URL). */
      fresh: v.optional(v.boolean()),
    }),
    output: v.strictObject({
      recording: v.string(),
      manifestSha256: v.string(),
      uploads: v.array(HubTransferSchema),
    }),
  },
  'submissions:register': {
    input: obj({
      recording: idField,
      manifestSha256: sha256Field,
      /** The manifest's text as planned: with a job layer the hub then need not read the stored
       * one back when its size and MD5 (the store's listing) match this text's. */
      manifest: v.optional(text(HUB_MANIFEST_MAX, 1)),
      checkSummary: v.optional(summaryField),
      piiSummary: v.optional(summaryField),
      /** The hub task the recording was made for (tasks:claim). */
      taskId: v.optional(integer(1)),
    }),
    output: v.strictObject({
      id: v.number(),
      recording: v.string(),
      version: v.number(),
      status: statusField,
      isNew: v.boolean(),
    }),
  },
  'submissions:mine': {
    input: empty,
    output: v.strictObject({ submissions: v.array(HubMySubmissionSchema) }),
  },
  'submissions:list': {
    input: obj({ limit: v.optional(integer(1, 1000)) }),
    output: v.strictObject({ submissions: v.array(HubSubmissionSchema) }),
  },
  'review:queue': {
    input: obj({ doneLimit: v.optional(integer(1, 500)) }),
    output: HubReviewQueueSchema,
  },
  'review:next': {
    input: obj({ leaseMs: v.optional(integer(1, 24 * 60 * 60_000)) }),
    output: v.strictObject({ submission: v.nullable(HubLeasedSchema) }),
  },
  'review:verdict': {
    input: obj({
      id: integer(1),
      version: integer(1),
      verdict: oneOf(HUB_VERDICTS),
      grade: v.optional(v.nullable(oneOf(HUB_GRADES))),
      feedback: v.optional(text(HUB_FEEDBACK_MAX)),
      editLog: v.optional(v.pipe(v.array(v.unknown()), v.maxLength(10_000))),
    }),
    output: v.strictObject({
      id: v.number(),
      version: v.number(),
      status: statusField,
      /** True when the verdict was a second review (QA): the status did not change. */
      qa: v.optional(v.boolean()),
      /** True when an accept drew the submission for a second review. */
      sampled: v.optional(v.boolean()),
    }),
  },
  'review:reassign': {
    input: obj({
      id: integer(1),
      reviewer: userNameField,
      leaseMs: v.optional(integer(1, 24 * 60 * 60_000)),
    }),
    output: v.strictObject({
      id: v.number(),
      reviewer: v.string(),
      version: v.number(),
      leaseExpiresAtMs: msField,
    }),
  },
  'jobs:status': {
    input: empty,
    output: v.strictObject({ queues: v.array(HubJobQueueSchema) }),
  },
  'jobs:dead': {
    input: obj({ limit: v.optional(integer(1, 1000)) }),
    output: v.strictObject({ jobs: v.array(HubDeadJobSchema) }),
  },
  'jobs:retry': {
    input: obj({ id: v.pipe(v.string(), v.uuid('must be a job id from jobs:dead')) }),
    output: v.strictObject({ id: v.string(), queue: v.string(), key: v.string() }),
  },
  'dataset:build': {
    input: obj({
      format: oneOf(HUB_DATASET_FORMATS),
      statuses: v.optional(v.pipe(v.array(oneOf(HUB_SUBMISSION_STATUSES)), v.minLength(1))),
      sinceMs: v.optional(integer(0)),
      untilMs: v.optional(integer(0)),
      os: v.optional(v.pipe(v.array(text(32, 1)), v.maxLength(10))),
      tags: v.optional(v.pipe(v.array(text(200, 1)), v.maxLength(100))),
    }),
    output: HubDatasetBuildSchema,
  },
  'dataset:status': {
    input: obj({ id: integer(1), files: v.optional(boolField) }),
    output: v.strictObject({
      build: HubDatasetBuildSchema,
      /** With `files`, once done: presigned downloads of the dataset, manifest.json first. */
      files: v.array(HubTransferSchema),
    }),
  },
  'dataset:list': {
    input: obj({ limit: v.optional(integer(1, 1000)) }),
    output: v.strictObject({ builds: v.array(HubDatasetBuildSchema) }),
  },
  // the admin dashboard's figures (docs/team-mode.md §18)
  'stats:get': { input: StatsFilterSchema, output: HubStatsSchema },
  'tasks:import': {
    input: obj({
      text: text(HUB_TASKS_IMPORT_MAX_BYTES),
      format: oneOf(TASK_FILE_FORMATS),
      dryRun: v.optional(boolField),
      /** Add the good lines although some lines are bad (after a dry run showed them);
       * without it a file with bad lines writes nothing (HUB_TASK_FILE_INVALID). */
      confirm: v.optional(boolField),
    }),
    output: v.strictObject({
      dryRun: v.boolean(),
      added: v.number(),
      duplicates: v.number(),
      /** Each duplicate line, and the earlier line it repeats (null: a task on the hub). */
      duplicateLines: v.array(v.strictObject({ line: v.number(), of: v.nullable(v.number()) })),
      errors: v.array(v.strictObject({ line: v.number(), message: v.string() })),
      ids: v.array(v.number()),
    }),
  },
  'tasks:list': {
    input: obj({
      /** Only tasks for this platform (and those for any). */
      platform: v.optional(oneOf(TASK_PLATFORMS)),
      /** Default open. */
      status: v.optional(oneOf([...TASK_STATUSES, 'all'])),
      limit: v.optional(integer(1, 10_000)),
    }),
    output: v.strictObject({ tasks: v.array(HubTaskSchema) }),
  },
  'tasks:get': {
    input: obj({ id: taskIdField }),
    output: v.strictObject({
      task: HubTaskSchema,
      reports: v.array(v.strictObject({ user: v.string(), reason: v.string(), atMs: msField })),
    }),
  },
  'tasks:claim': {
    input: obj({ id: taskIdField }),
    output: v.strictObject({
      claimed: v.boolean(),
      task: HubTaskSchema,
      expiresAtMs: nullableMs,
      /** Why not claimed: as many people hold it as it takes. */
      reason: v.nullable(v.picklist(['full'])),
    }),
  },
  'tasks:release': {
    input: obj({ id: taskIdField }),
    output: v.strictObject({ id: v.number(), released: v.boolean() }),
  },
  'tasks:infeasible': {
    input: obj({ id: taskIdField, reason: text(5000, 1) }),
    output: v.strictObject({ task: HubTaskSchema, reports: v.number(), setAside: v.boolean() }),
  },
  'tasks:update': {
    input: obj({
      id: taskIdField,
      instruction: v.optional(text(TASK_INSTRUCTION_MAX, 1)),
      description: v.optional(text(TASK_DESCRIPTION_MAX)),
      domain: v.optional(text(TASK_NAME_MAX)),
      app: v.optional(text(TASK_NAME_MAX)),
      url: v.optional(text(TASK_URL_MAX)),
      platform: v.optional(oneOf(TASK_PLATFORMS)),
      target: v.optional(integer(1, TASK_TARGET_MAX)),
      tags: v.optional(v.pipe(v.array(text(TASK_NAME_MAX, 1)), v.maxLength(TASK_TAGS_MAX))),
    }),
    output: taskOut,
  },
  'tasks:close': { input: obj({ id: taskIdField }), output: taskOut },
  'tasks:reopen': { input: obj({ id: taskIdField }), output: taskOut },
  'tasks:settings': {
    input: obj({
      claimsPerTask: v.optional(integer(1, 1000)),
      claimsPerPerson: v.optional(integer(1, 1000)),
      claimMinutes: v.optional(integer(1, 7 * 24 * 60)),
      infeasibleReports: v.optional(integer(1, 1000)),
    }),
    output: taskSettingsSchema,
  },
  // the hub's CoT job on accepted submissions (docs/cot.md "In team mode"); no API key here:
  // the workers read it from their environment
  'cot:settings': {
    input: obj({
      enabled: v.optional(v.boolean()),
      baseUrl: v.optional(v.pipe(v.string(), v.url(), v.maxLength(2000))),
      model: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(200))),
      maxCostPerTrajectory: v.optional(v.nullable(v.pipe(v.number(), v.minValue(0)))),
      pricePerMillion: v.optional(
        v.nullable(
          v.strictObject({
            input: v.pipe(v.number(), v.minValue(0)),
            output: v.pipe(v.number(), v.minValue(0)),
          }),
        ),
      ),
    }),
    output: v.strictObject({
      enabled: v.boolean(),
      baseUrl: v.string(),
      model: v.string(),
      maxCostPerTrajectory: v.nullable(v.number()),
      pricePerMillion: v.nullable(v.strictObject({ input: v.number(), output: v.number() })),
    }),
  },
  // QA sampling (docs/team-mode.md §19): the share of accepted submissions reviewed twice, and
  // an admin's decision on a disagreement
  'qa:settings': {
    input: obj({ sampleShare: v.optional(v.pipe(finiteField, v.minValue(0), v.maxValue(1))) }),
    output: v.strictObject({ sampleShare: v.number() }),
  },
  'qa:settle': {
    input: obj({
      id: integer(1),
      status: oneOf(['accepted', 'rejected']),
      note: v.optional(text(HUB_FEEDBACK_MAX)),
    }),
    output: v.strictObject({ id: v.number(), version: v.number(), status: statusField }),
  },
} as const;

/** A hub method name (`domain:verb`). */
export type HubMethod = keyof typeof HUB_METHOD_SCHEMAS;
/** Every hub method name. */
export const HUB_METHODS = Object.keys(HUB_METHOD_SCHEMAS) as HubMethod[];
/** The input a hub method takes. */
export type HubInput<M extends HubMethod> = v.InferOutput<(typeof HUB_METHOD_SCHEMAS)[M]['input']>;
/** The value a hub method answers with. */
export type HubOutput<M extends HubMethod> = v.InferOutput<
  (typeof HUB_METHOD_SCHEMAS)[M]['output']
>;

/** True when `name` is a hub method. */
export function isHubMethod(name: string): name is HubMethod {
  return Object.prototype.hasOwnProperty.call(HUB_METHOD_SCHEMAS, name);
}

/** Who may call a method: anyone (signing in), any signed-in account, or these roles. */
export type HubRule = 'public' | 'any-signed-in' | readonly HubRole[];

/**
 * The one authorisation table: every hub method → who may call it. The hub checks it on every
 * request before the method runs; tests/hub/http/authorization.test.ts walks every method × role.
 * Methods on the caller's own things (their sessions, tokens, password) are any-signed-in.
 */
export const HUB_ROLE_TABLE: Readonly<Record<HubMethod, HubRule>> = {
  'auth:login': 'public',
  'auth:logout': 'any-signed-in',
  'auth:whoami': 'any-signed-in',
  'auth:change-password': 'any-signed-in',
  'tokens:create': 'any-signed-in',
  'tokens:list': 'any-signed-in',
  'tokens:revoke': 'any-signed-in',
  'users:list': ['admin'],
  'users:add': ['admin'],
  'users:set-roles': ['admin'],
  'users:reset-password': ['admin'],
  'users:remove': ['admin'],
  'audit:list': ['admin'],
  'submissions:plan-upload': ['annotator'],
  'submissions:register': ['annotator'],
  'submissions:mine': ['annotator'],
  'submissions:list': ['admin'],
  'review:queue': ['reviewer'],
  'review:next': ['reviewer'],
  'review:verdict': ['reviewer'],
  'review:reassign': ['admin'],
  'jobs:status': ['admin'],
  'jobs:dead': ['admin'],
  'jobs:retry': ['admin'],
  'dataset:build': ['admin'],
  'dataset:status': ['admin'],
  'dataset:list': ['admin'],
  'stats:get': ['admin'],
  'tasks:import': ['admin'],
  'tasks:list': 'any-signed-in',
  'tasks:get': 'any-signed-in',
  'tasks:claim': ['annotator'],
  'tasks:release': ['annotator'],
  'tasks:infeasible': ['annotator'],
  'tasks:update': ['admin'],
  'tasks:close': ['admin'],
  'tasks:reopen': ['admin'],
  'tasks:settings': ['admin'],
  'cot:settings': ['admin'],
  'qa:settings': ['admin'],
  'qa:settle': ['admin'],
};

/** The methods a session signed in with a one-time password may call before changing it. */
export const HUB_BEFORE_PASSWORD_CHANGE: readonly HubMethod[] = [
  'auth:change-password',
  'auth:logout',
  'auth:whoami',
];

// ---- the hub's web pages (docs/team-mode.md §15) ---------------------------------------------

/** The `<meta>` the hub adds to the renderer's index.html: the page then knows it is served by
 * a hub (its API, its session cookie) and shows only the team pages. */
export const HUB_PAGE_META = { name: 'cua-annotator-host', content: 'hub' } as const;
