// Tasks, their claims and infeasible reports, and the hub's settings: the SQL of the task hub
// (docs/team-mode.md §16). Every function takes the db (or a transaction) first; the rules (who
// may claim what, when a task closes) live in src/hub/tasks/tasks.ts, one transaction each.
import { sql } from 'kysely';
import type { TaskInput } from '../../../shared/tasks-file';
import type { ClaimEndReason, HubDb, TaskPlatform, TaskStatus } from '../schema';

/** A task as the lists show it, with its counts and live claims. */
export type TaskRecord = {
  id: number;
  instruction: string;
  description: string;
  domain: string;
  app: string;
  url: string;
  platform: TaskPlatform;
  target: number;
  status: TaskStatus;
  tags: string[];
  /** Submissions recorded for it that are not rejected. */
  recorded: number;
  accepted: number;
  /** Who holds a live claim on it, oldest claim first. */
  claimedBy: string[];
  /** Infeasible reports since it was last opened. */
  reports: number;
  /** When the asking account's live claim on it ends (epoch ms), or null. */
  myClaimExpiresAtMs: number | null;
  createdAtMs: number;
  updatedAtMs: number;
};

/** A new task's columns: a task of a file with its duplicate key. */
export type NewTask = TaskInput & { instructionKey: string };

/** Which tasks to list. */
export type TaskFilter = {
  /** Only these statuses (default every one). */
  statuses?: readonly TaskStatus[];
  /** Only tasks for these platforms (default every one). */
  platforms?: readonly TaskPlatform[];
  /** Only these ids. */
  ids?: readonly number[];
  /** The asking account (for myClaimExpiresAtMs). */
  userId: number;
  limit: number;
};

// pg_advisory_xact_lock class of one annotator's claims (with the user id as second key)
const CLAIMER_LOCK_CLASS = 2_741_031;

/** Serialises one person's claims until the end of the transaction, so the per-person limit
 * holds under claims sent at once; other people are not held up. */
export async function lockClaimer(db: HubDb, userId: number): Promise<void> {
  await sql`SELECT pg_advisory_xact_lock(${sql.lit(CLAIMER_LOCK_CLASS)}, ${userId}::int)`.execute(
    db,
  );
}

/** Of these instruction keys, those a task already has. */
export async function existingInstructionKeys(
  db: HubDb,
  keys: readonly string[],
): Promise<Set<string>> {
  const found = new Set<string>();
  // in slices: a statement's parameters are limited (65,535)
  for (let i = 0; i < keys.length; i += 5_000) {
    const slice = keys.slice(i, i + 5_000);
    const rows = await db
      .selectFrom('tasks')
      .select('instruction_key')
      .where('instruction_key', 'in', slice)
      .execute();
    for (const r of rows) {
      found.add(r.instruction_key);
    }
  }
  return found;
}

/** Inserts tasks whose instruction key is new; returns the ids by key of those inserted (a key
 * taken meanwhile by another import is left out: a duplicate). */
export async function insertTasks(
  db: HubDb,
  tasks: readonly NewTask[],
): Promise<Map<string, number>> {
  const inserted = new Map<string, number>();
  for (let i = 0; i < tasks.length; i += 1_000) {
    const slice = tasks.slice(i, i + 1_000);
    if (!slice.length) {
      continue;
    }
    const rows = await db
      .insertInto('tasks')
      .values(
        slice.map((t) => ({
          instruction: t.instruction,
          instruction_key: t.instructionKey,
          description: t.description,
          domain: t.domain,
          app: t.app,
          url: t.url,
          platform: t.platform,
          target: t.target,
          tags: JSON.stringify(t.tags),
        })),
      )
      .onConflict((oc) => oc.column('instruction_key').doNothing())
      .returning(['id', 'instruction_key'])
      .execute();
    for (const r of rows) {
      inserted.set(r.instruction_key, r.id);
    }
  }
  return inserted;
}

type TaskRow = {
  id: number;
  instruction: string;
  description: string;
  domain: string;
  app: string;
  url: string;
  platform: TaskPlatform;
  target: number;
  status: TaskStatus;
  tags: string[];
  recorded: number;
  accepted: number;
  claimed_by: string[] | null;
  reports: number;
  my_claim_expires_at: Date | null;
  created_at: Date;
  updated_at: Date;
};

/** Tasks matching `filter`, fewest recordings first (then fewest live claims, then oldest). */
export async function listTasks(db: HubDb, filter: TaskFilter): Promise<TaskRecord[]> {
  const where = [sql`true`];
  if (filter.statuses) {
    where.push(
      filter.statuses.length
        ? sql`t.status IN (${sql.join(filter.statuses.map((s) => sql`${s}`))})`
        : sql`false`,
    );
  }
  if (filter.platforms) {
    where.push(
      filter.platforms.length
        ? sql`t.platform IN (${sql.join(filter.platforms.map((p) => sql`${p}`))})`
        : sql`false`,
    );
  }
  if (filter.ids) {
    where.push(
      filter.ids.length ? sql`t.id IN (${sql.join(filter.ids.map((i) => sql`${i}`))})` : sql`false`,
    );
  }
  const { rows } = await sql<TaskRow>`
    SELECT t.id, t.instruction, t.description, t.domain, t.app, t.url, t.platform, t.target,
           t.status, t.tags, t.created_at, t.updated_at,
           (SELECT count(*) FROM submissions s
             WHERE s.task_id = t.id AND s.status <> 'rejected') AS recorded,
           (SELECT count(*) FROM submissions s
             WHERE s.task_id = t.id AND s.status = 'accepted') AS accepted,
           (SELECT json_agg(u.name ORDER BY c.claimed_at, c.id) FROM task_claims c
              JOIN users u ON u.id = c.user_id
             WHERE c.task_id = t.id AND c.ended_at IS NULL AND c.expires_at > now()) AS claimed_by,
           (SELECT count(*) FROM task_reports r
             WHERE r.task_id = t.id AND r.cleared_at IS NULL) AS reports,
           (SELECT c.expires_at FROM task_claims c
             WHERE c.task_id = t.id AND c.user_id = ${filter.userId} AND c.ended_at IS NULL
               AND c.expires_at > now()) AS my_claim_expires_at
      FROM tasks t
     WHERE ${sql.join(where, sql` AND `)}
     ORDER BY recorded, coalesce(json_array_length((
               SELECT json_agg(c.id) FROM task_claims c
                WHERE c.task_id = t.id AND c.ended_at IS NULL AND c.expires_at > now())), 0),
              t.id
     LIMIT ${filter.limit}`.execute(db);
  return rows.map((r) => ({
    id: r.id,
    instruction: r.instruction,
    description: r.description,
    domain: r.domain,
    app: r.app,
    url: r.url,
    platform: r.platform,
    target: r.target,
    status: r.status,
    tags: r.tags,
    recorded: Number(r.recorded),
    accepted: Number(r.accepted),
    claimedBy: r.claimed_by ?? [],
    reports: Number(r.reports),
    myClaimExpiresAtMs: r.my_claim_expires_at ? r.my_claim_expires_at.getTime() : null,
    createdAtMs: r.created_at.getTime(),
    updatedAtMs: r.updated_at.getTime(),
  }));
}

/** Locks the task row until the end of the transaction; its status and target, or undefined. */
export async function lockTask(
  db: HubDb,
  id: number,
): Promise<{ id: number; status: TaskStatus; target: number } | undefined> {
  return await db
    .selectFrom('tasks')
    .select(['id', 'status', 'target'])
    .where('id', '=', id)
    .forUpdate()
    .executeTakeFirst();
}

/** Ends the claims that expired (of one task, or of one person) as `expired`; how many. */
export async function endExpiredClaims(
  db: HubDb,
  scope: { taskId: number } | { userId: number },
): Promise<number> {
  let q = db
    .updateTable('task_claims')
    .set({ ended_at: sql<Date>`now()`, end_reason: 'expired' })
    .where('ended_at', 'is', null)
    .where('expires_at', '<=', sql<Date>`now()`);
  q =
    'taskId' in scope
      ? q.where('task_id', '=', scope.taskId)
      : q.where('user_id', '=', scope.userId);
  const res = await q.executeTakeFirst();
  return Number(res.numUpdatedRows);
}

/** Live claims on a task (call after endExpiredClaims). */
export async function countTaskClaims(db: HubDb, taskId: number): Promise<number> {
  const row = await db
    .selectFrom('task_claims')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('task_id', '=', taskId)
    .where('ended_at', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** A person's live claims (call after endExpiredClaims). */
export async function countUserClaims(db: HubDb, userId: number): Promise<number> {
  const row = await db
    .selectFrom('task_claims')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('user_id', '=', userId)
    .where('ended_at', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** A person's open claim on a task: its id and end, or undefined. */
export async function findClaim(
  db: HubDb,
  taskId: number,
  userId: number,
): Promise<{ id: number; expiresAtMs: number } | undefined> {
  const row = await db
    .selectFrom('task_claims')
    .select(['id', 'expires_at'])
    .where('task_id', '=', taskId)
    .where('user_id', '=', userId)
    .where('ended_at', 'is', null)
    .executeTakeFirst();
  return row ? { id: row.id, expiresAtMs: row.expires_at.getTime() } : undefined;
}

/** Opens a claim of `claimMs` (by the database clock); returns when it ends (epoch ms). */
export async function insertClaim(
  db: HubDb,
  input: { taskId: number; userId: number; claimMs: number },
): Promise<number> {
  const row = await db
    .insertInto('task_claims')
    .values({
      task_id: input.taskId,
      user_id: input.userId,
      expires_at: sql<Date>`now() + make_interval(secs => ${input.claimMs / 1000})`,
    })
    .returning('expires_at')
    .executeTakeFirstOrThrow();
  return row.expires_at.getTime();
}

/** Moves an open claim's end to `claimMs` from now; returns the new end (epoch ms). */
export async function renewClaim(db: HubDb, claimId: number, claimMs: number): Promise<number> {
  const row = await db
    .updateTable('task_claims')
    .set({ expires_at: sql<Date>`now() + make_interval(secs => ${claimMs / 1000})` })
    .where('id', '=', claimId)
    .returning('expires_at')
    .executeTakeFirstOrThrow();
  return row.expires_at.getTime();
}

/** Ends the open claims on a task (of one person, or everyone's); how many. */
export async function endClaims(
  db: HubDb,
  input: { taskId: number; userId?: number; reason: ClaimEndReason },
): Promise<number> {
  let q = db
    .updateTable('task_claims')
    .set({ ended_at: sql<Date>`now()`, end_reason: input.reason })
    .where('task_id', '=', input.taskId)
    .where('ended_at', 'is', null);
  if (input.userId !== undefined) {
    q = q.where('user_id', '=', input.userId);
  }
  const res = await q.executeTakeFirst();
  return Number(res.numUpdatedRows);
}

/** Records (or renews) a person's infeasible report; returns the task's live report count. */
export async function upsertReport(
  db: HubDb,
  input: { taskId: number; userId: number; reason: string },
): Promise<number> {
  await db
    .insertInto('task_reports')
    .values({ task_id: input.taskId, user_id: input.userId, reason: input.reason })
    .onConflict((oc) =>
      oc.columns(['task_id', 'user_id']).doUpdateSet({
        reason: input.reason,
        at: sql<Date>`now()`,
        cleared_at: null,
      } as never),
    )
    .execute();
  const row = await db
    .selectFrom('task_reports')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('task_id', '=', input.taskId)
    .where('cleared_at', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Clears a task's reports (it was reopened): they no longer count toward closing it. */
export async function clearReports(db: HubDb, taskId: number): Promise<void> {
  await db
    .updateTable('task_reports')
    .set({ cleared_at: sql<Date>`now()` })
    .where('task_id', '=', taskId)
    .where('cleared_at', 'is', null)
    .execute();
}

/** The open reports of a task: who and why. */
export async function listReports(
  db: HubDb,
  taskId: number,
): Promise<{ user: string; reason: string; atMs: number }[]> {
  const rows = await db
    .selectFrom('task_reports as r')
    .innerJoin('users as u', 'u.id', 'r.user_id')
    .select(['u.name', 'r.reason', 'r.at'])
    .where('r.task_id', '=', taskId)
    .where('r.cleared_at', 'is', null)
    .orderBy('r.at')
    .execute();
  return rows.map((r) => ({ user: r.name, reason: r.reason, atMs: r.at.getTime() }));
}

/** Sets a task's status. */
export async function setTaskStatus(db: HubDb, id: number, status: TaskStatus): Promise<void> {
  await db
    .updateTable('tasks')
    .set({ status, updated_at: sql<Date>`now()` })
    .where('id', '=', id)
    .execute();
}

/** Changes a task's fields (those given). */
export async function updateTaskFields(
  db: HubDb,
  id: number,
  fields: Partial<Omit<NewTask, 'instructionKey'>> & { instructionKey?: string },
): Promise<void> {
  await db
    .updateTable('tasks')
    .set({
      ...(fields.instruction !== undefined ? { instruction: fields.instruction } : {}),
      ...(fields.instructionKey !== undefined ? { instruction_key: fields.instructionKey } : {}),
      ...(fields.description !== undefined ? { description: fields.description } : {}),
      ...(fields.domain !== undefined ? { domain: fields.domain } : {}),
      ...(fields.app !== undefined ? { app: fields.app } : {}),
      ...(fields.url !== undefined ? { url: fields.url } : {}),
      ...(fields.platform !== undefined ? { platform: fields.platform } : {}),
      ...(fields.target !== undefined ? { target: fields.target } : {}),
      ...(fields.tags !== undefined ? { tags: JSON.stringify(fields.tags) } : {}),
      updated_at: sql<Date>`now()`,
    })
    .where('id', '=', id)
    .execute();
}

/** Accepted submissions recorded for a task. */
export async function countAcceptedForTask(db: HubDb, taskId: number): Promise<number> {
  const row = await db
    .selectFrom('submissions')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('task_id', '=', taskId)
    .where('status', '=', 'accepted')
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Links a submission to a task. */
export async function setSubmissionTask(
  db: HubDb,
  submissionId: number,
  taskId: number,
): Promise<void> {
  await db
    .updateTable('submissions')
    .set({ task_id: taskId })
    .where('id', '=', submissionId)
    .execute();
}

/** The task a submission was recorded for, or null. */
export async function taskOfSubmission(db: HubDb, submissionId: number): Promise<number | null> {
  const row = await db
    .selectFrom('submissions')
    .select('task_id')
    .where('id', '=', submissionId)
    .executeTakeFirst();
  return row?.task_id ?? null;
}

/** Every stored setting whose key starts with `prefix`. */
export async function readSettings(db: HubDb, prefix: string): Promise<Map<string, unknown>> {
  const rows = await db
    .selectFrom('hub_settings')
    .select(['key', 'value'])
    .where('key', 'like', `${prefix}%`)
    .execute();
  return new Map(rows.map((r) => [r.key, r.value]));
}

/** Stores one setting. */
export async function writeSetting(db: HubDb, key: string, value: unknown): Promise<void> {
  const text = JSON.stringify(value);
  await db
    .insertInto('hub_settings')
    .values({ key, value: text })
    .onConflict((oc) => oc.column('key').doUpdateSet({ value: text, updated_at: sql<Date>`now()` }))
    .execute();
}

/** The task of each of these submissions (those linked to one). */
export async function tasksOfSubmissions(
  db: HubDb,
  submissionIds: readonly number[],
): Promise<Map<number, number>> {
  if (!submissionIds.length) {
    return new Map();
  }
  const rows = await db
    .selectFrom('submissions')
    .select(['id', 'task_id'])
    .where('id', 'in', submissionIds)
    .where('task_id', 'is not', null)
    .execute();
  return new Map(rows.map((r) => [r.id, r.task_id!]));
}
