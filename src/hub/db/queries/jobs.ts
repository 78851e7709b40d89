// The SQL of the jobs' results (migration 14, docs/jobs.md §H): a version's intake and
// computed keyframes, and dataset builds with their items. Every function takes the db (or a
// transaction) first.
import { sql } from 'kysely';
import type { DatasetBuildStatus, HubDb, IntakeStatus, SubmissionStatus } from '../schema';

/** A submission version as a job sees it. */
export type JobVersionRecord = {
  submissionId: number;
  version: number;
  annotator: string;
  recordingId: string;
  /** The submission's status and current version now. */
  status: SubmissionStatus;
  currentVersion: number;
  manifestSha256: string;
  objectPrefix: string;
  submittedAtMs: number;
  intakeStatus: IntakeStatus | null;
  intakeResult: Record<string, unknown> | null;
  keyframes: Record<string, unknown> | null;
};

/** The version `version` of submission `submissionId` with what jobs need, if any. */
export async function findJobVersion(
  db: HubDb,
  submissionId: number,
  version: number,
): Promise<JobVersionRecord | undefined> {
  const row = await db
    .selectFrom('submission_versions as v')
    .innerJoin('submissions as s', 's.id', 'v.submission_id')
    .innerJoin('users as u', 'u.id', 's.annotator_id')
    .select([
      'v.submission_id',
      'v.version',
      'u.name as annotator',
      's.recording_id',
      's.status',
      's.current_version',
      'v.manifest_sha256',
      'v.object_prefix',
      'v.submitted_at',
      'v.intake_status',
      'v.intake_result',
      'v.keyframes',
    ])
    .where('v.submission_id', '=', submissionId)
    .where('v.version', '=', version)
    .executeTakeFirst();
  return row
    ? {
        submissionId: row.submission_id,
        version: row.version,
        annotator: row.annotator,
        recordingId: row.recording_id,
        status: row.status,
        currentVersion: row.current_version,
        manifestSha256: row.manifest_sha256,
        objectPrefix: row.object_prefix,
        submittedAtMs: row.submitted_at.getTime(),
        intakeStatus: row.intake_status,
        intakeResult: row.intake_result,
        keyframes: row.keyframes,
      }
    : undefined;
}

/** Stores a version's intake outcome (once: a version whose intake is decided keeps it) and moves
 * the submission on if this is its current version waiting for intake: passed → `submitted`
 * (joins the review queue now), failed → `intake-failed` (back to the annotator). Returns
 * whether this call decided it and the submission's status after. */
export async function recordIntake(
  db: HubDb,
  input: {
    submissionId: number;
    version: number;
    status: 'passed' | 'failed';
    result: Record<string, unknown>;
  },
): Promise<{ decided: boolean; status: SubmissionStatus | null }> {
  const res = await db
    .updateTable('submission_versions')
    .set({
      intake_status: input.status,
      intake_result: JSON.stringify(input.result),
      intake_at: sql<Date>`now()`,
    })
    .where('submission_id', '=', input.submissionId)
    .where('version', '=', input.version)
    .where((eb) => eb.or([eb('intake_status', 'is', null), eb('intake_status', '=', 'pending')]))
    .executeTakeFirst();
  const decided = res.numUpdatedRows > 0n;
  if (decided) {
    const next: SubmissionStatus = input.status === 'passed' ? 'submitted' : 'intake-failed';
    await db
      .updateTable('submissions')
      .set({
        status: next,
        waiting_since: next === 'submitted' ? sql<Date>`now()` : null,
        updated_at: sql<Date>`now()`,
      })
      .where('id', '=', input.submissionId)
      .where('current_version', '=', input.version)
      .where('status', '=', 'intake')
      .execute();
  }
  const after = await db
    .selectFrom('submissions')
    .select('status')
    .where('id', '=', input.submissionId)
    .executeTakeFirst();
  return { decided, status: after?.status ?? null };
}

/** Records the keyframes computed on the hub for a version. */
export async function recordVersionKeyframes(
  db: HubDb,
  input: { submissionId: number; version: number; keyframes: Record<string, unknown> },
): Promise<void> {
  await db
    .updateTable('submission_versions')
    .set({ keyframes: JSON.stringify(input.keyframes) })
    .where('submission_id', '=', input.submissionId)
    .where('version', '=', input.version)
    .execute();
}

/** The intake outcome of each submission's current version (for the annotator's list). */
export async function currentIntakes(
  db: HubDb,
  submissionIds: readonly number[],
): Promise<Map<number, { status: IntakeStatus | null; result: Record<string, unknown> | null }>> {
  if (!submissionIds.length) {
    return new Map();
  }
  const rows = await db
    .selectFrom('submission_versions as v')
    .innerJoin('submissions as s', (j) =>
      j.onRef('s.id', '=', 'v.submission_id').onRef('s.current_version', '=', 'v.version'),
    )
    .select(['v.submission_id', 'v.intake_status', 'v.intake_result'])
    .where('v.submission_id', 'in', [...submissionIds])
    .execute();
  return new Map(
    rows.map((r) => [r.submission_id, { status: r.intake_status, result: r.intake_result }]),
  );
}

// ---- dataset builds ----------------------------------------------------------------------

/** What a build selects (docs/jobs.md §H). */
export type BuildFilters = {
  statuses: SubmissionStatus[];
  /** Versions submitted at or after (epoch ms). */
  sinceMs?: number;
  /** Versions submitted before (epoch ms). */
  untilMs?: number;
  /** Operating systems (the manifest's platform.os), any of. */
  os?: string[];
  /** Task tags, any of (needs the tasks table). */
  tags?: string[];
};

/** A candidate of a build: a submission's current version. */
export type BuildCandidate = {
  submissionId: number;
  version: number;
  objectPrefix: string;
  recordingId: string;
};

/** The current versions of the submissions matching the filters' statuses and dates, by
 * submission id (the build's merge order). OS and tags are applied by the caller. */
export async function listBuildCandidates(
  db: HubDb,
  filters: BuildFilters,
): Promise<BuildCandidate[]> {
  let q = db
    .selectFrom('submissions as s')
    .innerJoin('submission_versions as v', (j) =>
      j.onRef('v.submission_id', '=', 's.id').onRef('v.version', '=', 's.current_version'),
    )
    .select(['s.id', 'v.version', 'v.object_prefix', 's.recording_id'])
    .where('s.status', 'in', filters.statuses);
  if (filters.sinceMs !== undefined) {
    q = q.where('v.submitted_at', '>=', new Date(filters.sinceMs));
  }
  if (filters.untilMs !== undefined) {
    q = q.where('v.submitted_at', '<', new Date(filters.untilMs));
  }
  const rows = await q.orderBy('s.id').execute();
  return rows.map((r) => ({
    submissionId: r.id,
    version: r.version,
    objectPrefix: r.object_prefix,
    recordingId: r.recording_id,
  }));
}

/** A dataset build as read. */
export type BuildRecord = {
  id: number;
  status: DatasetBuildStatus;
  format: 'agentnet-raw' | 'agentnet-jsonl' | 'standardized';
  filters: Record<string, unknown>;
  destination: string;
  total: number;
  done: number;
  failed: number;
  manifestSha256: string | null;
  result: Record<string, unknown> | null;
  error: string | null;
  createdBy: string | null;
  createdAtMs: number;
  finishedAtMs: number | null;
};

function buildQuery(db: HubDb) {
  return db
    .selectFrom('dataset_builds as b')
    .leftJoin('users as u', 'u.id', 'b.created_by')
    .select([
      'b.id',
      'b.status',
      'b.format',
      'b.filters',
      'b.destination',
      'b.total',
      'b.done',
      'b.failed',
      'b.manifest_sha256',
      'b.result',
      'b.error',
      'u.name as created_by_name',
      'b.created_at',
      'b.finished_at',
    ]);
}

function toBuild(
  r: NonNullable<Awaited<ReturnType<ReturnType<typeof buildQuery>['executeTakeFirst']>>>,
): BuildRecord {
  return {
    id: r.id,
    status: r.status,
    format: r.format,
    filters: r.filters,
    destination: r.destination,
    total: r.total,
    done: r.done,
    failed: r.failed,
    manifestSha256: r.manifest_sha256,
    result: r.result,
    error: r.error,
    createdBy: r.created_by_name,
    createdAtMs: r.created_at.getTime(),
    finishedAtMs: r.finished_at ? r.finished_at.getTime() : null,
  };
}

/** Creates a build and its items (in the order given) in one go; returns its id. */
export async function insertBuild(
  db: HubDb,
  input: {
    createdBy: number | null;
    format: BuildRecord['format'];
    filters: Record<string, unknown>;
    destination: string;
    items: readonly { submissionId: number; version: number }[];
  },
): Promise<number> {
  const row = await db
    .insertInto('dataset_builds')
    .values({
      created_by: input.createdBy,
      format: input.format,
      filters: JSON.stringify(input.filters),
      destination: input.destination,
      total: input.items.length,
      status: input.items.length ? 'running' : 'merging',
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  // in chunks: one statement's parameters stay well below PostgreSQL's 65,535
  for (let i = 0; i < input.items.length; i += 5_000) {
    await db
      .insertInto('dataset_build_items')
      .values(
        input.items.slice(i, i + 5_000).map((it, k) => ({
          build_id: row.id,
          ordinal: i + k,
          submission_id: it.submissionId,
          version: it.version,
        })),
      )
      .execute();
  }
  return row.id;
}

/** The build `id`, if any. */
export async function findBuild(db: HubDb, id: number): Promise<BuildRecord | undefined> {
  const row = await buildQuery(db).where('b.id', '=', id).executeTakeFirst();
  return row ? toBuild(row) : undefined;
}

/** The latest builds first. */
export async function listBuilds(db: HubDb, options: { limit?: number } = {}) {
  const rows = await buildQuery(db)
    .orderBy('b.id', 'desc')
    .limit(options.limit ?? 100)
    .execute();
  return rows.map(toBuild);
}

/** A build's items in merge order. */
export async function listBuildItems(db: HubDb, buildId: number) {
  const rows = await db
    .selectFrom('dataset_build_items')
    .select(['ordinal', 'submission_id', 'version', 'status', 'result', 'error'])
    .where('build_id', '=', buildId)
    .orderBy('ordinal')
    .execute();
  return rows.map((r) => ({
    ordinal: r.ordinal,
    submissionId: r.submission_id,
    version: r.version,
    status: r.status,
    result: r.result,
    error: r.error,
  }));
}

/** Marks a build item done or failed (once: a second call for the same item changes nothing)
 * and counts it on the build. Returns the build's counts after, and whether this call counted. */
export async function finishBuildItem(
  db: HubDb,
  input: {
    buildId: number;
    submissionId: number;
    status: 'done' | 'failed';
    result?: Record<string, unknown>;
    error?: string;
  },
): Promise<{ counted: boolean; total: number; done: number; failed: number }> {
  const res = await db
    .updateTable('dataset_build_items')
    .set({
      status: input.status,
      ...(input.result ? { result: JSON.stringify(input.result) } : {}),
      error: input.error ?? null,
      finished_at: sql<Date>`now()`,
    })
    .where('build_id', '=', input.buildId)
    .where('submission_id', '=', input.submissionId)
    .where('status', '=', 'pending')
    .executeTakeFirst();
  const counted = res.numUpdatedRows > 0n;
  if (counted) {
    const column = input.status === 'done' ? 'done' : 'failed';
    await db
      .updateTable('dataset_builds')
      .set({ [column]: sql<number>`${sql.ref(column)} + 1` })
      .where('id', '=', input.buildId)
      .execute();
  }
  const b = await db
    .selectFrom('dataset_builds')
    .select(['total', 'done', 'failed'])
    .where('id', '=', input.buildId)
    .executeTakeFirstOrThrow();
  return { counted, ...b };
}

/** Sets a build's status; `done` and `failed` also set when it finished, the manifest's SHA-256
 * and the result or the error. */
export async function setBuildStatus(
  db: HubDb,
  id: number,
  status: DatasetBuildStatus,
  extra: { manifestSha256?: string; result?: Record<string, unknown>; error?: string } = {},
): Promise<void> {
  await db
    .updateTable('dataset_builds')
    .set({
      status,
      ...(status === 'done' || status === 'failed' ? { finished_at: sql<Date>`now()` } : {}),
      ...(extra.manifestSha256 ? { manifest_sha256: extra.manifestSha256 } : {}),
      ...(extra.result ? { result: JSON.stringify(extra.result) } : {}),
      ...(extra.error !== undefined ? { error: extra.error } : {}),
    })
    .where('id', '=', id)
    .execute();
}

/** Of the submissions `ids`, those recorded for a hub task carrying one of `tags` (migration 13's
 * tasks). */
export async function submissionsWithTaskTags(
  db: HubDb,
  ids: readonly number[],
  tags: readonly string[],
): Promise<Set<number>> {
  if (!ids.length || !tags.length) {
    return new Set();
  }
  const rows = await sql<{ id: number }>`
    SELECT s.id FROM submissions AS s JOIN tasks AS t ON t.id = s.task_id
    WHERE s.id = ANY(${[...ids]}::bigint[]) AND t.tags ?| ${[...tags]}::text[]`.execute(db);
  return new Set(rows.rows.map((r) => r.id));
}

/** Versions registered for an intake that has not recorded its outcome (oldest first): the hub
 * enqueues their intake again at start, so a version whose enqueue was lost (the hub stopped
 * between the registration and the enqueue) is still taken in (docs/jobs.md §4). */
export async function pendingIntakes(
  db: HubDb,
  limit = 10_000,
): Promise<{ submissionId: number; version: number }[]> {
  const rows = await db
    .selectFrom('submission_versions')
    .select(['submission_id', 'version'])
    .where('intake_status', '=', 'pending')
    .orderBy('submitted_at')
    .orderBy('submission_id')
    .limit(limit)
    .execute();
  return rows.map((r) => ({ submissionId: r.submission_id, version: r.version }));
}
