// The task hub (docs/team-mode.md §16): admins import tasks (a dry run first: per-line errors
// and duplicates, nothing written), annotators list the open tasks of their OS and claim one (a
// reservation that expires; a per-person and a per-task limit), report a task infeasible (enough
// reports set it aside for an admin), and a task closes itself once its target of accepted
// submissions is reached. Each operation is one transaction with its audit row; claims are
// correct under concurrency on PostgreSQL (the task row is locked, one person's claims are
// serialised) and on PGlite (one transaction at a time).
import { AppError } from '../../shared/errors';
import {
  instructionKey,
  parseTaskFile,
  type TaskFileError,
  type TaskFileFormat,
  type TaskInput,
  type TaskPlatform,
} from '../../shared/tasks-file';
import {
  clearReports,
  countAcceptedForTask,
  countTaskClaims,
  countUserClaims,
  endClaims,
  endExpiredClaims,
  existingInstructionKeys,
  findClaim,
  inTransaction,
  insertClaim,
  insertTasks,
  listTasks,
  lockClaimer,
  lockTask,
  readSettings,
  renewClaim,
  setSubmissionTask,
  setTaskStatus,
  taskOfSubmission,
  updateTaskFields,
  upsertReport,
  writeAudit,
  writeSetting,
  type AuditActor,
  type HubDb,
  type HubRootDb,
  type TaskRecord,
} from '../db';

/** Who acts: the account and the client it came through. */
export type TaskActor = { userId: number; name: string; client: string };

/** The task hub's settings (stored in hub_settings under `tasks.`). */
export type TaskSettings = {
  /** How many people may hold a claim on one task at once. */
  claimsPerTask: number;
  /** How many tasks one person may hold claims on at once. */
  claimsPerPerson: number;
  /** How long a claim lasts, minutes (claiming again renews it). */
  claimMinutes: number;
  /** Infeasible reports that set a task aside for an admin's review. */
  infeasibleReports: number;
};

/** The settings of a new hub. */
export const DEFAULT_TASK_SETTINGS: TaskSettings = {
  claimsPerTask: 1,
  claimsPerPerson: 3,
  claimMinutes: 120,
  infeasibleReports: 3,
};

const SETTING_LIMITS: Record<keyof TaskSettings, [number, number]> = {
  claimsPerTask: [1, 1000],
  claimsPerPerson: [1, 1000],
  claimMinutes: [1, 7 * 24 * 60],
  infeasibleReports: [1, 1000],
};

/** What an import did (or, on a dry run, would do). */
export type ImportReport = {
  dryRun: boolean;
  /** Tasks added (on a dry run: that would be added). */
  added: number;
  /** Lines refused as duplicates: of a task already on the hub or of an earlier line. */
  duplicates: number;
  duplicateLines: { line: number; of: number | null }[];
  errors: TaskFileError[];
  /** The ids given to the added tasks (empty on a dry run). */
  ids: number[];
};

/** What a claim did. */
export type ClaimResult = {
  claimed: boolean;
  task: TaskRecord;
  /** When the claim ends (epoch ms); null when not claimed. */
  expiresAtMs: number | null;
  /** Why not: the task is held by as many people as it takes. */
  reason: 'full' | null;
};

function auditOf(actor: TaskActor): AuditActor {
  return { actor: actor.name, actorUserId: actor.userId, client: actor.client };
}

function notFound(id: number): AppError {
  return new AppError(
    'NOT_FOUND',
    `no task ${id}`,
    { taskId: id },
    'List the tasks again (cua-annotator tasks): the id may be from another hub.',
  );
}

/** The task hub's settings (defaults for those never set). */
export async function readTaskSettings(db: HubDb): Promise<TaskSettings> {
  const stored = await readSettings(db, 'tasks.');
  const out = { ...DEFAULT_TASK_SETTINGS };
  for (const key of Object.keys(out) as (keyof TaskSettings)[]) {
    const v = stored.get(`tasks.${key}`);
    if (typeof v === 'number' && Number.isInteger(v)) {
      out[key] = v;
    }
  }
  return out;
}

/** Changes some settings (an admin); returns all of them. */
export async function writeTaskSettings(
  db: HubRootDb,
  actor: TaskActor,
  change: Partial<TaskSettings>,
): Promise<TaskSettings> {
  for (const [key, value] of Object.entries(change) as [keyof TaskSettings, number][]) {
    const [min, max] = SETTING_LIMITS[key];
    if (!Number.isInteger(value) || value < min || value > max) {
      throw new AppError(
        'INVALID_PAYLOAD',
        `${key} must be a whole number from ${min} to ${max} (got ${value})`,
        { key, value },
        `Give ${key} from ${min} to ${max}.`,
      );
    }
  }
  return await inTransaction(db, async (trx) => {
    for (const [key, value] of Object.entries(change)) {
      await writeSetting(trx, `tasks.${key}`, value);
    }
    await writeAudit(trx, {
      ...auditOf(actor),
      action: 'tasks.settings',
      target: null,
      details: change,
    });
    return await readTaskSettings(trx);
  });
}

/** Imports a task file (JSONL or CSV). A dry run parses it, checks every line and finds the
 * duplicates (by {@link instructionKey}: of a task on the hub or of an earlier line) and writes
 * nothing. Without dryRun the good lines are added in one transaction with one audit row and the
 * duplicates left out; a file with bad lines writes nothing (HUB_TASK_FILE_INVALID naming them)
 * unless `confirm` says to add the good lines anyway (the caller saw the dry run). */
export async function importTasks(
  db: HubRootDb,
  actor: TaskActor,
  input: { text: string; format: TaskFileFormat; dryRun: boolean; confirm?: boolean },
): Promise<ImportReport> {
  const parsed = parseTaskFile(input.text, input.format);
  if (!input.dryRun && parsed.errors.length && !input.confirm) {
    const shown = parsed.errors.slice(0, 1000);
    throw new AppError(
      'HUB_TASK_FILE_INVALID',
      `${parsed.errors.length} line(s) of the task file are not tasks (first: line ` +
        `${parsed.errors[0]!.line}: ${parsed.errors[0]!.message}); nothing was imported`,
      { errors: shown, moreErrors: parsed.errors.length - shown.length, tasks: parsed.rows.length },
      'Fix the lines named and import again, or add the good lines only: preview with ' +
        '--dry-run, then import with --confirm.',
    );
  }
  const plan = async (trx: HubDb) => {
    const existing = await existingInstructionKeys(
      trx,
      parsed.rows.map((r) => instructionKey(r.task.instruction)),
    );
    const firstLine = new Map<string, number>();
    const fresh: { line: number; key: string; task: TaskInput }[] = [];
    const duplicateLines: ImportReport['duplicateLines'] = [];
    for (const r of parsed.rows) {
      const key = instructionKey(r.task.instruction);
      if (existing.has(key)) {
        duplicateLines.push({ line: r.line, of: null });
      } else if (firstLine.has(key)) {
        duplicateLines.push({ line: r.line, of: firstLine.get(key)! });
      } else {
        firstLine.set(key, r.line);
        fresh.push({ line: r.line, key, task: r.task });
      }
    }
    return { fresh, duplicateLines };
  };
  const report = (
    fresh: unknown[],
    duplicateLines: ImportReport['duplicateLines'],
    ids: number[],
  ): ImportReport => ({
    dryRun: input.dryRun,
    added: input.dryRun ? fresh.length : ids.length,
    duplicates: duplicateLines.length,
    duplicateLines,
    errors: parsed.errors,
    ids,
  });
  if (input.dryRun) {
    const { fresh, duplicateLines } = await plan(db);
    return report(fresh, duplicateLines, []);
  }
  return await inTransaction(db, async (trx) => {
    const { fresh, duplicateLines } = await plan(trx);
    const inserted = await insertTasks(
      trx,
      fresh.map((f) => ({ ...f.task, instructionKey: f.key })),
    );
    // a key another import took between the check and the insert is a duplicate too
    for (const f of fresh) {
      if (!inserted.has(f.key)) {
        duplicateLines.push({ line: f.line, of: null });
      }
    }
    duplicateLines.sort((a, b) => a.line - b.line);
    const ids = fresh.flatMap((f) => inserted.get(f.key) ?? []);
    await writeAudit(trx, {
      ...auditOf(actor),
      action: 'tasks.import',
      target: null,
      details: {
        format: input.format,
        added: ids.length,
        duplicates: duplicateLines.length,
        errors: parsed.errors.length,
        firstId: ids[0] ?? null,
        lastId: ids.at(-1) ?? null,
      },
    });
    return report(fresh, duplicateLines, ids);
  });
}

/** The platforms whose tasks suit an annotator on `platform` (their own and `any`). */
export function platformsFor(platform: TaskPlatform | undefined): TaskPlatform[] | undefined {
  return platform && platform !== 'any' ? [platform, 'any'] : undefined;
}

async function mustGetTask(db: HubDb, id: number, userId: number): Promise<TaskRecord> {
  const [task] = await listTasks(db, { ids: [id], userId, limit: 1 });
  if (!task) {
    throw notFound(id);
  }
  return task;
}

/** Reads one task as `userId` sees it. */
export async function getTask(db: HubDb, id: number, userId: number): Promise<TaskRecord> {
  return await mustGetTask(db, id, userId);
}

// closes a task whose accepted submissions reached its target (inside the caller's transaction,
// with the task row locked); true when it closed it
async function closeIfDone(
  trx: HubDb,
  actor: TaskActor,
  task: { id: number; status: string; target: number },
): Promise<boolean> {
  if (task.status !== 'open') {
    return false;
  }
  const accepted = await countAcceptedForTask(trx, task.id);
  if (accepted < task.target) {
    return false;
  }
  await setTaskStatus(trx, task.id, 'closed');
  const ended = await endClaims(trx, { taskId: task.id, reason: 'closed' });
  await writeAudit(trx, {
    ...auditOf(actor),
    action: 'task.target-reached',
    target: `task:${task.id}`,
    details: { accepted, target: task.target, claimsEnded: ended },
  });
  return true;
}

/** Claims a task for `actor` (or renews their claim on it). A task held by as many people as
 * the per-task limit answers claimed: false; a person at their own limit is refused
 * (HUB_TASK_CLAIM_LIMIT: release one first); a task not open is INVALID_STATE. Expired claims
 * are ended first, so their tasks are claimable again. */
export async function claimTask(
  db: HubRootDb,
  actor: TaskActor,
  taskId: number,
): Promise<ClaimResult> {
  return await inTransaction(db, async (trx) => {
    const settings = await readTaskSettings(trx);
    // lock order: the person, then the task (every claim takes them in this order)
    await lockClaimer(trx, actor.userId);
    const locked = await lockTask(trx, taskId);
    if (!locked) {
      throw notFound(taskId);
    }
    await closeIfDone(trx, actor, locked);
    const task = await mustGetTask(trx, taskId, actor.userId);
    if (task.status !== 'open') {
      throw new AppError(
        'INVALID_STATE',
        `task ${taskId} is ${task.status}: it cannot be claimed`,
        { taskId, status: task.status },
        task.status === 'closed'
          ? 'Pick another task (cua-annotator tasks): this one has all the recordings it needs.'
          : 'Pick another task: this one waits for an admin to decide whether it can be done.',
      );
    }
    await endExpiredClaims(trx, { taskId });
    await endExpiredClaims(trx, { userId: actor.userId });
    const mine = await findClaim(trx, taskId, actor.userId);
    const claimMs = settings.claimMinutes * 60_000;
    if (mine) {
      const expiresAtMs = await renewClaim(trx, mine.id, claimMs);
      await writeAudit(trx, {
        ...auditOf(actor),
        action: 'task.claim-renew',
        target: `task:${taskId}`,
        details: { expiresAtMs },
      });
      return {
        claimed: true,
        task: await mustGetTask(trx, taskId, actor.userId),
        expiresAtMs,
        reason: null,
      };
    }
    const held = await countUserClaims(trx, actor.userId);
    if (held >= settings.claimsPerPerson) {
      throw new AppError(
        'HUB_TASK_CLAIM_LIMIT',
        `${actor.name} already holds ${held} task claim(s), the most one person may hold ` +
          `(${settings.claimsPerPerson})`,
        { held, limit: settings.claimsPerPerson },
        'Record and submit a task you hold, or release one (cua-annotator tasks release ID).',
      );
    }
    if ((await countTaskClaims(trx, taskId)) >= settings.claimsPerTask) {
      return { claimed: false, task, expiresAtMs: null, reason: 'full' };
    }
    const expiresAtMs = await insertClaim(trx, { taskId, userId: actor.userId, claimMs });
    await writeAudit(trx, {
      ...auditOf(actor),
      action: 'task.claim',
      target: `task:${taskId}`,
      details: { expiresAtMs },
    });
    return {
      claimed: true,
      task: await mustGetTask(trx, taskId, actor.userId),
      expiresAtMs,
      reason: null,
    };
  });
}

/** Gives a claim back; false when the person held none on that task. */
export async function releaseTask(
  db: HubRootDb,
  actor: TaskActor,
  taskId: number,
): Promise<boolean> {
  return await inTransaction(db, async (trx) => {
    if (!(await lockTask(trx, taskId))) {
      throw notFound(taskId);
    }
    const ended = await endClaims(trx, { taskId, userId: actor.userId, reason: 'released' });
    if (ended) {
      await writeAudit(trx, {
        ...auditOf(actor),
        action: 'task.release',
        target: `task:${taskId}`,
      });
    }
    return ended > 0;
  });
}

/** Reports a task as infeasible (one report per person; again: the reason is replaced). The
 * reporter's claim ends. Once the open reports reach the `infeasibleReports` setting the task
 * becomes `infeasible`, out of the annotators' lists until an admin reopens or closes it. */
export async function reportInfeasible(
  db: HubRootDb,
  actor: TaskActor,
  input: { taskId: number; reason: string },
): Promise<{ task: TaskRecord; reports: number; setAside: boolean }> {
  const reason = input.reason.trim();
  if (!reason) {
    throw new AppError(
      'INVALID_PAYLOAD',
      'say why the task cannot be done',
      undefined,
      'Give --reason TEXT: what stops it (the site is gone, the app is not on this OS, …).',
    );
  }
  return await inTransaction(db, async (trx) => {
    const settings = await readTaskSettings(trx);
    const locked = await lockTask(trx, input.taskId);
    if (!locked) {
      throw notFound(input.taskId);
    }
    const reports = await upsertReport(trx, {
      taskId: input.taskId,
      userId: actor.userId,
      reason,
    });
    await endClaims(trx, { taskId: input.taskId, userId: actor.userId, reason: 'infeasible' });
    const setAside = locked.status === 'open' && reports >= settings.infeasibleReports;
    if (setAside) {
      await setTaskStatus(trx, input.taskId, 'infeasible');
      await endClaims(trx, { taskId: input.taskId, reason: 'infeasible' });
    }
    await writeAudit(trx, {
      ...auditOf(actor),
      action: 'task.infeasible',
      target: `task:${input.taskId}`,
      details: { reason, reports, setAside },
    });
    return { task: await mustGetTask(trx, input.taskId, actor.userId), reports, setAside };
  });
}

/** An admin changes a task's fields (a new instruction must not duplicate another task's). */
export async function updateTask(
  db: HubRootDb,
  actor: TaskActor,
  taskId: number,
  change: Partial<TaskInput>,
): Promise<TaskRecord> {
  return await inTransaction(db, async (trx) => {
    const locked = await lockTask(trx, taskId);
    if (!locked) {
      throw notFound(taskId);
    }
    const key = change.instruction !== undefined ? instructionKey(change.instruction) : undefined;
    if (key !== undefined) {
      const before = await mustGetTask(trx, taskId, actor.userId);
      if (
        instructionKey(before.instruction) !== key &&
        (await existingInstructionKeys(trx, [key])).size
      ) {
        throw new AppError(
          'INVALID_STATE',
          `another task has the instruction "${change.instruction}"`,
          { taskId },
          'Edit that task instead, or word this one differently.',
        );
      }
    }
    await updateTaskFields(trx, taskId, {
      ...change,
      ...(key !== undefined ? { instructionKey: key } : {}),
    });
    await writeAudit(trx, {
      ...auditOf(actor),
      action: 'task.update',
      target: `task:${taskId}`,
      details: change,
    });
    // a lower target may be reached already
    await closeIfDone(trx, actor, { ...locked, target: change.target ?? locked.target });
    return await mustGetTask(trx, taskId, actor.userId);
  });
}

/** An admin closes (no more recordings) or reopens a task. Closing ends its claims; reopening
 * clears its infeasible reports. */
export async function setTaskOpen(
  db: HubRootDb,
  actor: TaskActor,
  taskId: number,
  open: boolean,
): Promise<TaskRecord> {
  return await inTransaction(db, async (trx) => {
    const locked = await lockTask(trx, taskId);
    if (!locked) {
      throw notFound(taskId);
    }
    if (open) {
      await setTaskStatus(trx, taskId, 'open');
      await clearReports(trx, taskId);
    } else {
      await setTaskStatus(trx, taskId, 'closed');
      await endClaims(trx, { taskId, reason: 'closed' });
    }
    await writeAudit(trx, {
      ...auditOf(actor),
      action: open ? 'task.reopen' : 'task.close',
      target: `task:${taskId}`,
      details: { before: locked.status },
    });
    return await mustGetTask(trx, taskId, actor.userId);
  });
}

/** Links a registered submission to the task it was recorded for, and ends the annotator's
 * claim on it (the work is in). Idempotent: a rerun of submit links it again. */
export async function linkSubmissionToTask(
  db: HubRootDb,
  actor: TaskActor,
  input: { submissionId: number; taskId: number },
): Promise<void> {
  await inTransaction(db, async (trx) => {
    if (!(await lockTask(trx, input.taskId))) {
      throw notFound(input.taskId);
    }
    if ((await taskOfSubmission(trx, input.submissionId)) === input.taskId) {
      return;
    }
    await setSubmissionTask(trx, input.submissionId, input.taskId);
    await endClaims(trx, { taskId: input.taskId, userId: actor.userId, reason: 'submitted' });
    await writeAudit(trx, {
      ...auditOf(actor),
      action: 'task.submission',
      target: `task:${input.taskId}`,
      details: { submissionId: input.submissionId },
    });
  });
}

/** Throws NOT_FOUND unless the task exists (before a submission is sent for it). */
export async function requireTask(db: HubDb, taskId: number): Promise<void> {
  if (!(await lockTask(db, taskId))) {
    throw notFound(taskId);
  }
}

/** After a verdict: closes the submission's task if its accepted submissions reached the
 * target. */
export async function afterVerdict(
  db: HubRootDb,
  actor: TaskActor,
  submissionId: number,
): Promise<void> {
  const taskId = await taskOfSubmission(db, submissionId);
  if (taskId === null) {
    return;
  }
  await inTransaction(db, async (trx) => {
    const locked = await lockTask(trx, taskId);
    if (locked) {
      await closeIfDone(trx, actor, locked);
    }
  });
}
