// The local contract of the team client (docs/team-mode.md §14): what the desktop app and the
// `serve` UI call to sign in to a hub, submit recordings, follow their review and review others'
// recordings. The handlers run the team services (src/services/team), which speak the hub's own
// API (hub.ts) over HTTP; the hub's token never crosses this contract.
import * as v from 'valibot';
import {
  HUB_FEEDBACK_MAX,
  HUB_GRADES,
  HUB_VERDICTS,
  HubMySubmissionSchema,
  HubTaskSchema,
} from './hub';
import { TASK_PLATFORMS } from '../tasks-file';
import { idField, idList, integer, obj, oneOf, text } from './fields';

/** Most recordings one `team:submit` takes. */
const MAX_TEAM_SUBMIT_IDS = 100;

const errorDto = v.strictObject({
  code: v.string(),
  message: v.string(),
  fix: v.optional(v.string()),
});
/** A coded error as the team pages show it (message and what to do). */
export type TeamErrorDto = v.InferOutput<typeof errorDto>;

/** A submit the hub could not take yet: retried in the background (`waiting`), or refused on
 * a retry for a reason retrying cannot fix (`failed`: resubmit or cancel). */
export const TeamPendingDtoSchema = v.strictObject({
  recording: v.string(),
  url: v.string(),
  queuedAtMs: v.number(),
  attempts: v.number(),
  nextAttemptAtMs: v.nullable(v.number()),
  state: v.picklist(['waiting', 'failed']),
  lastError: errorDto,
});
/** A pending submit. */
export type TeamPendingDto = v.InferOutput<typeof TeamPendingDtoSchema>;

/** A submission this library holds for review (taken with `team:review-next`). */
export const TeamHeldReviewDtoSchema = v.strictObject({
  recording: v.string(),
  submission: v.number(),
  annotator: v.string(),
  version: v.number(),
  leaseExpiresAtMs: v.number(),
});
/** A submission held for review. */
export type TeamHeldReviewDto = v.InferOutput<typeof TeamHeldReviewDtoSchema>;

/** Who this library is signed in as, the hub, and what waits locally. */
export const TeamStatusDtoSchema = v.strictObject({
  signedIn: v.boolean(),
  url: v.nullable(v.string()),
  user: v.nullable(v.string()),
  /** The account's roles as the hub reports them (empty when it could not be asked). */
  roles: v.array(v.string()),
  /** Where this host keeps the token (the OS keychain, or a file readable by you only). */
  tokenPlace: v.string(),
  /** Whether the hub answered just now; its error (with the fix) when not. */
  hub: v.strictObject({ reachable: v.boolean(), error: v.nullable(errorDto) }),
  pending: v.array(TeamPendingDtoSchema),
  reviews: v.array(TeamHeldReviewDtoSchema),
});
/** The `team:status` answer. */
export type TeamStatusDto = v.InferOutput<typeof TeamStatusDtoSchema>;

const signInResult = v.strictObject({
  /** True when the account still has its one-time password: nothing was stored; call
   * `team:change-password` with a new one. */
  mustChangePassword: v.boolean(),
  url: v.string(),
  user: v.string(),
  roles: v.array(v.string()),
});

/** One recording's outcome of `team:submit`. */
export const TeamSubmitOutcomeSchema = v.strictObject({
  recording: v.string(),
  /** `submitted`: the hub registered it; `queued`: the hub could not be reached, kept and
   * retried in the background; `failed`: refused (see error). */
  state: v.picklist(['submitted', 'queued', 'failed']),
  submission: v.nullable(v.number()),
  version: v.nullable(v.number()),
  status: v.nullable(v.string()),
  error: v.nullable(errorDto),
});
/** One recording's outcome of `team:submit`. */
export type TeamSubmitOutcome = v.InferOutput<typeof TeamSubmitOutcomeSchema>;

const hubUrlField = v.pipe(text(2000, 1), v.regex(/^https?:\/\//, 'must start with http(s)://'));
const userField = text(64, 1);
const passwordField = text(256, 1);
const newPasswordField = text(256, 12);

/** The team methods (spread into the contract's METHOD_SCHEMAS). */
export const TEAM_METHOD_SCHEMAS = {
  /** Who this library is signed in as, whether the hub answers, pending submits, held reviews. */
  'team:status': { input: obj({}), output: TeamStatusDtoSchema },
  /** Signs in with a password; stores an API token where the host keeps it (unless the account
   * has a one-time password: then `mustChangePassword` and nothing stored). */
  'team:sign-in': {
    input: obj({ url: hubUrlField, user: userField, password: passwordField }),
    output: signInResult,
  },
  /** Signs in with the one-time password, changes it to `newPassword`, stores the token. */
  'team:change-password': {
    input: obj({
      url: hubUrlField,
      user: userField,
      password: passwordField,
      newPassword: newPasswordField,
    }),
    output: signInResult,
  },
  /** Revokes the token on the hub and forgets it here. */
  'team:sign-out': {
    input: obj({}),
    output: v.strictObject({ url: v.string(), user: v.string(), revoked: v.boolean() }),
  },
  /** Submits recordings; one the hub cannot take now is kept and retried (`queued`). */
  'team:submit': {
    input: obj({ ids: idList(MAX_TEAM_SUBMIT_IDS) }),
    output: v.strictObject({ submissions: v.array(TeamSubmitOutcomeSchema) }),
  },
  /** Forgets a pending submit (it is not sent). */
  'team:cancel-pending': {
    input: obj({ id: idField }),
    output: v.strictObject({ pending: v.array(TeamPendingDtoSchema) }),
  },
  /** The annotator's submissions on the hub (status, version, grade, feedback, reviewer) and the
   * local pending ones; the hub's error (not a throw) when it cannot be reached. */
  'team:submissions': {
    input: obj({}),
    output: v.strictObject({
      submissions: v.array(
        v.strictObject({ ...HubMySubmissionSchema.entries, isLocal: v.boolean() }),
      ),
      pending: v.array(TeamPendingDtoSchema),
      hubError: v.nullable(errorDto),
    }),
  },
  /** Takes the next waiting submission into this library for review (null: none waits). */
  'team:review-next': {
    input: obj({}),
    output: v.strictObject({
      submission: v.nullable(
        v.strictObject({
          id: v.number(),
          recording: v.string(),
          annotator: v.string(),
          task: v.string(),
          version: v.number(),
        }),
      ),
    }),
  },
  /** Sends the verdict on a recording held for review, with this library's edits since. */
  'team:verdict': {
    input: obj({
      recordingId: idField,
      verdict: oneOf(HUB_VERDICTS),
      grade: v.optional(v.nullable(oneOf(HUB_GRADES))),
      feedback: v.optional(text(HUB_FEEDBACK_MAX)),
    }),
    output: v.strictObject({
      submission: v.number(),
      recording: v.string(),
      version: v.number(),
      status: v.string(),
      edits: v.number(),
    }),
  },
  /** The hub's open tasks for this machine's OS (and those for any), fewest recordings first
   * (docs/team-mode.md §16); the hub's error (not a throw) when it cannot be reached. */
  'team:tasks': {
    input: obj({}),
    output: v.strictObject({
      platform: v.picklist(TASK_PLATFORMS),
      tasks: v.array(HubTaskSchema),
      hubError: v.nullable(errorDto),
    }),
  },
  /** Claims a hub task to record it (or renews this account's claim): its instruction, and
   * until when it is held; a task others hold is refused. */
  'team:claim-task': {
    input: obj({ id: integer(1) }),
    output: v.strictObject({
      id: v.number(),
      instruction: v.string(),
      description: v.string(),
      expiresAtMs: v.number(),
    }),
  },
} satisfies Record<string, { input: v.GenericSchema; output: v.GenericSchema }>;

/** The names of the team methods, for the contract's runtime list. */
export const TEAM_METHODS = [
  'team:status',
  'team:sign-in',
  'team:change-password',
  'team:sign-out',
  'team:submit',
  'team:cancel-pending',
  'team:submissions',
  'team:review-next',
  'team:verdict',
  'team:tasks',
  'team:claim-task',
] as const satisfies readonly (keyof typeof TEAM_METHOD_SCHEMAS)[];

/** The `team:changed` event: a pending submit went through or failed, a sign-in changed. */
export const TeamChangedDtoSchema = obj({
  reason: oneOf(['signed-in', 'signed-out', 'submitted', 'pending', 'verdict', 'review']),
  recording: v.optional(v.nullable(v.string())),
});
