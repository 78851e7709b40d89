// What each hub method does, once the request passed the guards and the role table
// (server.ts). One handler per method of src/shared/contract/hub.ts; the record's type makes a
// method without a handler a compile error. docs/team-mode.md §12.
import type { HubInput, HubMethod, HubOutput } from '../../shared/contract/hub';
import { AppError } from '../../shared/errors';
import { addUser, listUsers, removeUser, resetPassword, setRoles } from '../accounts/accounts';
import { changePassword, checkPassword, createSession, endSession } from '../auth/sessions';
import { createApiToken, revokeApiToken } from '../auth/tokens';
import {
  listAllSubmissions,
  listAudit,
  listUserTokens,
  listVerdicts,
  listReports,
  listTasks,
  listVersions,
  tasksOfSubmissions,
  writeAudit,
  type AuditActor,
  type HubRootDb,
  type UserWithRoles,
} from '../db';
import { listForAnnotator, leaseNext, reassign, recordVerdict } from '../review/queue';
import { planUpload, registerUploaded } from '../review/submit';
import { readQaSettings, settleQa, writeQaSettings } from '../review/qa';
import { statsGetMethod } from './stats-methods';
import {
  afterVerdict,
  claimTask,
  getTask,
  importTasks,
  linkSubmissionToTask,
  platformsFor,
  readTaskSettings,
  releaseTask,
  reportInfeasible,
  requireTask,
  setTaskOpen,
  updateTask,
  writeTaskSettings,
} from '../tasks/tasks';
import type { HubObjectStore } from '../storage';
import { MANIFEST_NAME, parseManifest } from '../../services/upload/manifest';
import type { LoginLimiter } from './rate-limit';
import { DATASET_HANDLERS } from './dataset-methods';
import { cotSettingsMethod, enqueueCotOnAccept } from './cot-methods';
import { jobKeys } from '../jobs/queues';
import type { JobEngine } from '../jobs/engine';
import { reviewerQueue } from '../db/queries/review-queue';

/** The signed-in caller of a request. */
export type HubCallerInfo = {
  user: UserWithRoles;
  via: 'session' | 'token';
  /** The session's or the token's id. */
  credentialId: number;
};

/** What a handler gets besides its input. */
export type HubCallContext = {
  db: HubRootDb;
  /** Where submission bundles live; null on a hub started without one (account tests). */
  store: HubObjectStore | null;
  caller: HubCallerInfo | null;
  /** Who the audit log names for this request (an anonymous sign-in: the name tried). */
  actor: AuditActor;
  address: string;
  limiter: LoginLimiter;
  sessionTtlMs: number;
  /** Adds a response header (the session cookie). */
  setCookie: (cookie: string) => void;
  /** The cookie that starts (value) or ends (null) a session on this connection. */
  sessionCookie: (value: string | null, maxAgeSeconds: number) => string;
  /** The job layer (docs/jobs.md); absent on a hub started without it (account tests). */
  jobs?: Pick<JobEngine, 'enqueue' | 'counts' | 'dead' | 'retry' | 'find'>;
};

type Handler<M extends HubMethod> = (
  ctx: HubCallContext,
  input: HubInput<M>,
) => Promise<HubOutput<M>>;

function signedIn(ctx: HubCallContext): HubCallerInfo {
  if (!ctx.caller) {
    // the role table already refused anonymous callers; this guards a wrong table entry
    throw new AppError('UNAUTHORIZED', 'sign in first');
  }
  return ctx.caller;
}

function storeOf(ctx: HubCallContext): HubObjectStore {
  if (!ctx.store) {
    throw new AppError(
      'INVALID_STATE',
      'this hub has no object store for submissions',
      undefined,
      'Start the hub with --data DIR (its objects folder) or --storage s3://BUCKET/PREFIX.',
    );
  }
  return ctx.store;
}

function queueActor(ctx: HubCallContext) {
  const caller = signedIn(ctx);
  return { userId: caller.user.id, name: caller.user.name, client: ctx.actor.client };
}

async function readText(body: AsyncIterable<Uint8Array>): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of body) {
    chunks.push(Buffer.from(c));
  }
  return Buffer.concat(chunks).toString('utf8');
}

function userDto(u: UserWithRoles) {
  return {
    user: u.name,
    roles: u.roles,
    mustChangePassword: u.mustChangePassword,
    createdAtMs: u.createdAtMs,
    removedAtMs: u.disabledAtMs,
  };
}

/** Every hub method's handler. */
export const HUB_HANDLERS: { [M in HubMethod]: Handler<M> } = {
  'auth:login': async (ctx, input) => {
    const limited = ctx.limiter.check(input.user, ctx.address);
    if (limited) {
      const retryAfterSeconds = Math.ceil(limited.retryAfterMs / 1000);
      throw new AppError(
        'RATE_LIMITED',
        limited.limit === 'account'
          ? `too many failed sign-ins for "${input.user}"; try again in ${retryAfterSeconds} s`
          : `too many failed sign-ins from ${ctx.address}; try again in ${retryAfterSeconds} s`,
        { retryAfterSeconds, limit: limited.limit },
        'Wait and try again; a forgotten password is replaced by an admin (hub user password).',
      );
    }
    let user: UserWithRoles;
    try {
      user = await checkPassword(ctx.db, input.user, input.password);
    } catch (e) {
      ctx.limiter.fail(input.user, ctx.address);
      await writeAudit(ctx.db, {
        ...ctx.actor,
        action: 'auth.login-failed',
        target: `user:${input.user}`,
      });
      throw e;
    }
    ctx.limiter.succeed(input.user);
    const actor = { ...ctx.actor, actor: user.name, actorUserId: user.id };
    const session = await createSession(ctx.db, { user, ttlMs: ctx.sessionTtlMs, by: actor });
    ctx.setCookie(ctx.sessionCookie(session.value, Math.floor(ctx.sessionTtlMs / 1000)));
    return {
      user: user.name,
      roles: user.roles,
      mustChangePassword: user.mustChangePassword,
      expiresAtMs: session.expiresAtMs,
    };
  },
  'auth:logout': async (ctx) => {
    const caller = signedIn(ctx);
    if (caller.via === 'session') {
      ctx.setCookie(ctx.sessionCookie(null, 0));
      return { revoked: await endSession(ctx.db, caller.credentialId, ctx.actor) };
    }
    return { revoked: await revokeApiToken(ctx.db, caller.credentialId, ctx.actor) };
  },
  'auth:whoami': (ctx) => {
    const caller = signedIn(ctx);
    return Promise.resolve({
      user: caller.user.name,
      roles: caller.user.roles,
      mustChangePassword: caller.user.mustChangePassword,
      via: caller.via,
    });
  },
  'auth:change-password': async (ctx, input) => {
    const caller = signedIn(ctx);
    await changePassword(ctx.db, {
      user: caller.user,
      current: input.current,
      next: input.next,
      keepSessionId: caller.via === 'session' ? caller.credentialId : undefined,
      by: ctx.actor,
    });
    return { user: caller.user.name };
  },
  'tokens:create': async (ctx, input) => {
    const caller = signedIn(ctx);
    const created = await createApiToken(ctx.db, {
      userId: caller.user.id,
      userName: caller.user.name,
      name: input.name,
      by: ctx.actor,
    });
    return { id: created.id, name: input.name, token: created.token };
  },
  'tokens:list': async (ctx) => {
    const caller = signedIn(ctx);
    return { tokens: await listUserTokens(ctx.db, caller.user.id) };
  },
  'tokens:revoke': async (ctx, input) => {
    const caller = signedIn(ctx);
    // one's own tokens only: another account's token is "not found", not "forbidden"
    const own = await listUserTokens(ctx.db, caller.user.id);
    if (!own.some((t) => t.id === input.id)) {
      throw new AppError(
        'NOT_FOUND',
        `you have no API token ${input.id}`,
        { id: input.id },
        'List your tokens with tokens:list.',
      );
    }
    return { id: input.id, revoked: await revokeApiToken(ctx.db, input.id, ctx.actor) };
  },
  'users:list': async (ctx, input) => ({
    users: (await listUsers(ctx.db, { includeRemoved: input.includeRemoved ?? false })).map(
      userDto,
    ),
  }),
  'users:add': async (ctx, input) =>
    await addUser(ctx.db, { name: input.user, roles: input.roles, by: ctx.actor }),
  'users:set-roles': async (ctx, input) =>
    await setRoles(ctx.db, { name: input.user, roles: input.roles, by: ctx.actor }),
  'users:reset-password': async (ctx, input) =>
    await resetPassword(ctx.db, { name: input.user, by: ctx.actor }),
  'users:remove': async (ctx, input) =>
    await removeUser(ctx.db, { name: input.user, by: ctx.actor }),
  'audit:list': async (ctx, input) => ({
    entries: (
      await listAudit(ctx.db, {
        limit: input.limit ?? 100,
        ...(input.actor !== undefined ? { actor: input.actor } : {}),
        ...(input.action !== undefined ? { action: input.action } : {}),
        ...(input.before !== undefined ? { beforeId: input.before } : {}),
      })
    ).map((e) => ({
      id: e.id,
      atMs: e.atMs,
      actor: e.actor,
      action: e.action,
      target: e.target,
      client: e.client,
      details: e.details,
    })),
  }),
  'submissions:plan-upload': async (ctx, input) => {
    const plan = await planUpload(storeOf(ctx), {
      annotator: queueActor(ctx),
      manifestText: input.manifest,
      ...(input.resend ? { resend: input.resend } : {}),
      ...(input.fresh ? { fresh: true } : {}),
    });
    return {
      recording: plan.recordingId,
      manifestSha256: plan.manifestSha256,
      uploads: plan.uploads,
    };
  },
  'submissions:register': async (ctx, input) => {
    if (input.taskId !== undefined) {
      await requireTask(ctx.db, input.taskId);
    }
    const r = await registerUploaded(ctx.db, storeOf(ctx), {
      annotator: queueActor(ctx),
      recordingId: input.recording,
      manifestSha256: input.manifestSha256,
      ...(input.checkSummary ? { checkSummary: input.checkSummary } : {}),
      ...(input.piiSummary ? { piiSummary: input.piiSummary } : {}),
      ...(input.manifest !== undefined ? { manifestText: input.manifest } : {}),
      // with a job layer every version is taken in (re-hash, PII scan, check) before review
      ...(ctx.jobs ? { awaitIntake: true } : {}),
    });
    if (ctx.jobs && r.status === 'intake') {
      // idempotent by key: a resubmission of the same bytes enqueues nothing new
      const job = { submissionId: r.submissionId, version: r.version };
      await ctx.jobs.enqueue('intake', job, { key: jobKeys.intake(r.submissionId, r.version) });
    }
    if (input.taskId !== undefined) {
      await linkSubmissionToTask(ctx.db, queueActor(ctx), {
        submissionId: r.submissionId,
        taskId: input.taskId,
      });
    }
    return {
      id: r.submissionId,
      recording: r.recordingId,
      version: r.version,
      status: r.status,
      isNew: r.isNew,
    };
  },
  'submissions:mine': async (ctx) => {
    const mine = await listForAnnotator(ctx.db, queueActor(ctx));
    const taskIds = await tasksOfSubmissions(
      ctx.db,
      mine.map((s) => s.id),
    );
    return {
      submissions: mine.map((s) => ({
        id: s.id,
        recording: s.recordingId,
        task: s.task,
        taskId: taskIds.get(s.id) ?? null,
        version: s.version,
        status: s.status,
        grade: s.grade,
        feedback: s.feedback,
        reviewer: s.reviewer,
        verdictVersion: s.verdictVersion,
        updatedAtMs: s.updatedAtMs,
        intake: s.intake,
      })),
    };
  },
  'submissions:list': async (ctx, input) => {
    const rows = await listAllSubmissions(ctx.db, { limit: input.limit ?? 100 });
    const taskIds = await tasksOfSubmissions(
      ctx.db,
      rows.map((s) => s.id),
    );
    const submissions = [];
    for (const s of rows) {
      const verdicts = await listVerdicts(ctx.db, s.id);
      submissions.push({
        id: s.id,
        recording: s.recordingId,
        annotator: s.annotator,
        task: s.task,
        taskId: taskIds.get(s.id) ?? null,
        version: s.version,
        status: s.status,
        updatedAtMs: s.updatedAtMs,
        verdicts: verdicts.map((v) => ({
          version: v.version,
          reviewer: v.reviewer,
          verdict: v.verdict,
          grade: v.grade,
          feedback: v.feedback,
          editLog: v.editLog,
          atMs: v.atMs,
        })),
      });
    }
    return { submissions };
  },
  'review:queue': async (ctx, input) => {
    const q = await reviewerQueue(ctx.db, queueActor(ctx).userId, {
      doneLimit: input.doneLimit ?? 50,
    });
    return {
      waiting: q.waiting,
      mine: q.held.map((l) => ({
        id: l.submissionId,
        recording: l.recordingId,
        annotator: l.annotator,
        task: l.task,
        version: l.version,
        leasedAtMs: l.leasedAtMs,
        leaseExpiresAtMs: l.expiresAtMs,
      })),
      done: q.done.map((d) => ({
        id: d.submissionId,
        recording: d.recordingId,
        annotator: d.annotator,
        task: d.task,
        version: d.version,
        verdict: d.verdict,
        grade: d.grade,
        feedback: d.feedback,
        atMs: d.atMs,
      })),
    };
  },
  'review:next': async (ctx, input) => {
    const leased = await leaseNext(ctx.db, queueActor(ctx), input.leaseMs);
    if (!leased) {
      return { submission: null };
    }
    const store = storeOf(ctx);
    const version = (await listVersions(ctx.db, leased.submissionId)).find(
      (x) => x.version === leased.version,
    );
    if (!version) {
      throw new AppError(
        'INTERNAL',
        `submission ${leased.submissionId} has no version ${leased.version}`,
      );
    }
    // the manifest was verified at registration; it names every file to hand out
    const manifestKey = `${version.objectPrefix}/${MANIFEST_NAME}`;
    const manifestText = await readText(await store.get(manifestKey));
    const manifest = parseManifest(manifestText, manifestKey);
    const files = [
      {
        path: MANIFEST_NAME,
        sizeBytes: Buffer.byteLength(manifestText),
        request: await store.presignGet(manifestKey),
      },
    ];
    for (const f of manifest.files) {
      files.push({
        path: f.path,
        sizeBytes: f.sizeBytes,
        request: await store.presignGet(`${version.objectPrefix}/${f.path}`),
      });
    }
    return {
      submission: {
        id: leased.submissionId,
        recording: leased.recordingId,
        annotator: leased.annotator,
        task: leased.task,
        version: leased.version,
        manifestSha256: version.manifestSha256,
        leaseExpiresAtMs: leased.expiresAtMs,
        isResumed: leased.isResumed,
        ...(leased.isQa ? { qa: true } : {}),
        files,
      },
    };
  },
  'review:verdict': async (ctx, input) => {
    const r = await recordVerdict(ctx.db, {
      reviewer: queueActor(ctx),
      submissionId: input.id,
      version: input.version,
      verdict: input.verdict,
      grade: input.grade ?? null,
      feedback: input.feedback ?? '',
      editLog: input.editLog ?? [],
    });
    if (r.qa) {
      // a second review (QA): the first verdict already did what an accept does
      return { id: r.submissionId, version: r.version, status: r.status, qa: true };
    }
    if (r.status === 'accepted') {
      // the task it was recorded for closes itself at its target
      await afterVerdict(ctx.db, queueActor(ctx), r.submissionId);
    }
    await enqueueCotOnAccept(ctx, r);
    return {
      id: r.submissionId,
      version: r.version,
      status: r.status,
      ...(r.sampled ? { sampled: true } : {}),
    };
  },
  'review:reassign': async (ctx, input) => {
    const r = await reassign(ctx.db, {
      admin: queueActor(ctx),
      submissionId: input.id,
      reviewerName: input.reviewer,
      ...(input.leaseMs ? { leaseMs: input.leaseMs } : {}),
    });
    return {
      id: r.submissionId,
      reviewer: input.reviewer,
      version: r.version,
      leaseExpiresAtMs: r.expiresAtMs,
    };
  },
  'jobs:status': async (ctx) => ({ queues: ctx.jobs ? await ctx.jobs.counts() : [] }),
  'jobs:dead': async (ctx, input) => ({
    jobs: ctx.jobs ? await ctx.jobs.dead({ limit: input.limit ?? 100 }) : [],
  }),
  'jobs:retry': async (ctx, input) => {
    if (!ctx.jobs) {
      throw new AppError('NOT_FOUND', `no job ${input.id}: this hub runs no jobs`, {
        id: input.id,
      });
    }
    const r = await ctx.jobs.retry(input.id);
    await writeAudit(ctx.db, {
      ...ctx.actor,
      action: 'job.retry',
      target: `job:${r.key}`,
      details: { id: r.id, queue: r.queue },
    });
    return r;
  },
  'tasks:import': async (ctx, input) =>
    await importTasks(ctx.db, queueActor(ctx), {
      text: input.text,
      format: input.format,
      dryRun: input.dryRun ?? false,
      confirm: input.confirm ?? false,
    }),
  'stats:get': statsGetMethod,
  'tasks:list': async (ctx, input) => {
    const status = input.status ?? 'open';
    const platforms = platformsFor(input.platform);
    return {
      tasks: await listTasks(ctx.db, {
        ...(status === 'all' ? {} : { statuses: [status] }),
        ...(platforms ? { platforms } : {}),
        userId: signedIn(ctx).user.id,
        limit: input.limit ?? 1000,
      }),
    };
  },
  'tasks:get': async (ctx, input) => ({
    task: await getTask(ctx.db, input.id, signedIn(ctx).user.id),
    reports: await listReports(ctx.db, input.id),
  }),
  'tasks:claim': async (ctx, input) => await claimTask(ctx.db, queueActor(ctx), input.id),
  'tasks:release': async (ctx, input) => ({
    id: input.id,
    released: await releaseTask(ctx.db, queueActor(ctx), input.id),
  }),
  'tasks:infeasible': async (ctx, input) =>
    await reportInfeasible(ctx.db, queueActor(ctx), { taskId: input.id, reason: input.reason }),
  'tasks:update': async (ctx, input) => {
    const { id, ...change } = input;
    return { task: await updateTask(ctx.db, queueActor(ctx), id, change) };
  },
  'tasks:close': async (ctx, input) => ({
    task: await setTaskOpen(ctx.db, queueActor(ctx), input.id, false),
  }),
  'tasks:reopen': async (ctx, input) => ({
    task: await setTaskOpen(ctx.db, queueActor(ctx), input.id, true),
  }),
  'tasks:settings': async (ctx, input) =>
    Object.keys(input).length
      ? await writeTaskSettings(ctx.db, queueActor(ctx), input)
      : await readTaskSettings(ctx.db),
  ...DATASET_HANDLERS,
  'cot:settings': cotSettingsMethod,
  'qa:settings': async (ctx, input) =>
    input.sampleShare === undefined
      ? await readQaSettings(ctx.db)
      : await writeQaSettings(ctx.db, queueActor(ctx), { sampleShare: input.sampleShare }),
  'qa:settle': async (ctx, input) => {
    const r = await settleQa(ctx.db, {
      admin: queueActor(ctx),
      submissionId: input.id,
      status: input.status,
      ...(input.note !== undefined ? { note: input.note } : {}),
    });
    return { id: r.submissionId, version: r.version, status: r.status };
  },
};
