// The library page: filters, sort, offset/limit and the total, served by indexes (migration 2)
// so a page stays fast at 10,000 recordings. Values are bound, never concatenated.
import {
  RECORDING_PAGE_DEFAULT_LIMIT,
  RECORDING_PAGE_MAX_LIMIT,
  type RecordingQuery,
} from '../../shared/contract';
import type {
  RecordingSource,
  RecordingStatus,
  RecordingSummary,
  ReviewStatus,
} from '../../shared/domain';
import type { Db } from '../db';

/** One page of recordings plus the number matching the filters. */
export type RecordingPage = { total: number; items: RecordingSummary[] };

type PageRow = {
  id: string;
  task: string;
  status: string;
  review_status: string;
  source: string;
  os: string;
  created_at_ms: number;
  started_at: string | null;
  duration_ms: number | null;
  step_count: number;
  event_count: number;
};

// Each sort lists the columns of the index that serves it; `seq` (the rowid, implicitly last in
// every index) breaks ties so pages never overlap.
const SORT_COLUMNS: Record<NonNullable<RecordingQuery['sort']>, readonly string[]> = {
  created: ['r.created_at_ms'],
  task: ['r.task COLLATE NOCASE'],
  duration: ['r.duration_ms'],
  steps: ['r.step_count'],
  status: ['r.status', 'r.created_at_ms'],
};

function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** The WHERE clause and its parameters for the filters of `q`. */
export function recordingFilterSql(q: RecordingQuery): { where: string; params: unknown[] } {
  const clauses: string[] = [];
  const params: unknown[] = [];
  if (q.status !== undefined) {
    clauses.push('r.status = ?');
    params.push(q.status);
  }
  if (q.reviewStatus !== undefined) {
    clauses.push('r.review_status = ?');
    params.push(q.reviewStatus);
  }
  if (q.os !== undefined) {
    clauses.push('r.os = ?');
    params.push(q.os);
  }
  if (q.fromMs !== undefined) {
    clauses.push('r.created_at_ms >= ?');
    params.push(q.fromMs);
  }
  if (q.toMs !== undefined) {
    clauses.push('r.created_at_ms < ?');
    params.push(q.toMs);
  }
  const search = q.search?.trim();
  if (search) {
    const inner = `%${escapeLike(search)}%`;
    clauses.push(
      `(r.task LIKE ? ESCAPE '\\' OR r.description LIKE ? ESCAPE '\\' OR r.id LIKE ? ESCAPE '\\')`,
    );
    params.push(inner, inner, `${escapeLike(search)}%`);
  }
  return { where: clauses.length ? `WHERE ${clauses.join(' AND ')}` : '', params };
}

/** The SELECT of one page (exported for query-plan tests). */
export function recordingPageSql(q: RecordingQuery): { sql: string; params: unknown[] } {
  const { where, params } = recordingFilterSql(q);
  const sort = q.sort ?? 'created';
  const order = (q.order ?? (sort === 'created' ? 'desc' : 'asc')) === 'desc' ? 'DESC' : 'ASC';
  const orderBy = [...SORT_COLUMNS[sort], 'r.seq'].map((c) => `${c} ${order}`).join(', ');
  const limit = Math.min(
    Math.max(1, q.limit ?? RECORDING_PAGE_DEFAULT_LIMIT),
    RECORDING_PAGE_MAX_LIMIT,
  );
  // events.idx is dense 0..n-1 per recording (RawEvent.idx), so MAX + 1 is the count in O(log n)
  const sql = `SELECT r.id, r.task, r.status, r.review_status, r.source, r.os, r.created_at_ms,
      r.started_at, r.duration_ms, r.step_count,
      COALESCE((SELECT MAX(e.idx) + 1 FROM events e WHERE e.recording_seq = r.seq), 0) AS event_count
    FROM recordings r ${where} ORDER BY ${orderBy} LIMIT ? OFFSET ?`;
  return { sql, params: [...params, limit, Math.max(0, q.offset ?? 0)] };
}

/** One page of the library with the total matching the filters. */
export function queryRecordingPage(db: Db, q: RecordingQuery): RecordingPage {
  const { where, params } = recordingFilterSql(q);
  const total = (
    db.prepare(`SELECT COUNT(*) AS n FROM recordings r ${where}`).get(...params) as { n: number }
  ).n;
  const page = recordingPageSql(q);
  const rows = db.prepare(page.sql).all(...page.params) as PageRow[];
  return {
    total,
    items: rows.map((r) => ({
      id: r.id,
      task: r.task,
      status: r.status as RecordingStatus,
      reviewStatus: r.review_status as ReviewStatus,
      source: r.source as RecordingSource,
      os: r.os,
      createdAtMs: r.created_at_ms,
      recordedAt: r.started_at,
      durationMs: r.duration_ms,
      stepCount: r.step_count,
      eventCount: r.event_count,
    })),
  };
}
