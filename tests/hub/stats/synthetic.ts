// 200 synthetic submissions with known OS, length, action mix, verdicts and dates for the
// dashboard's tests: synthesize() makes them, load() writes them to a hub database, expected()
// computes every figure from them in TypeScript (independently of the SQL).
import { sql } from 'kysely';
import {
  insertVersionStats,
  STEP_BIN,
  STEP_BIN_LAST,
  type HubRootDb,
  type HubStats,
  type StatsFilter,
} from '../../../src/hub/db';

export const KINDS = ['click', 'write', 'hotkey', 'scroll', 'drag', 'doubleClick'];
export const OSES = ['linux', 'win32', 'darwin'];
export const DAY = 86_400_000;
export const T0 = Date.UTC(2026, 10, 2, 9); // a Monday

export type Verdict = {
  version: number;
  verdict: 'accept' | 'reject' | 'changes';
  grade: string | null;
  feedback: string;
  reviewer: string;
  afterMs: number;
};
export type Synthetic = {
  annotator: string;
  status: 'accepted' | 'rejected' | 'changes' | 'submitted';
  createdMs: number;
  taskIdx: number | null;
  versions: { os: string; actions: Record<string, number>; videoMs: number; keyframes: number }[];
  verdicts: Verdict[];
};

// a small deterministic generator (mulberry32)
export function rng(seed: number) {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const TASKS = [
  { instruction: 'Rename a file', domain: 'os', app: 'files', tags: ['files', 'easy'] },
  { instruction: 'Send an email', domain: 'office', app: 'thunderbird', tags: ['mail'] },
  { instruction: 'Book a flight', domain: 'web', app: 'firefox', tags: ['travel', 'easy'] },
];
export const ANNOTATORS = ['ann-a', 'ann-b', 'ann-c', 'ann-d', 'ann-e'];
export const REVIEWERS = ['rev-x', 'rev-y'];
export const REASONS = ['Blurry video', 'wrong task\nmore detail', 'Missing steps', ''];

export function synthesize(n: number): Synthetic[] {
  const r = rng(28);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  const version = () => {
    const actions: Record<string, number> = {};
    const len = Math.floor(r() * 70); // 0..69 steps: every bin incl. the open last one
    for (let i = 0; i < len; i++) {
      const k = r() < 0.5 ? 'click' : pick(KINDS);
      actions[k] = (actions[k] ?? 0) + 1;
    }
    return { os: pick(OSES), actions, videoMs: Math.floor(r() * 600_000), keyframes: len };
  };
  return Array.from({ length: n }, (_, i) => {
    const status = pick(['accepted', 'accepted', 'rejected', 'changes', 'submitted'] as const);
    const twice = status === 'accepted' && r() < 0.3;
    const versions = twice ? [version(), version()] : [version()];
    const verdicts: Verdict[] = [];
    const v = (version: number, verdict: Verdict['verdict']) =>
      verdicts.push({
        version,
        verdict,
        grade: verdict === 'accept' ? pick(['excellent', 'good', 'ok']) : null,
        feedback: verdict === 'accept' ? 'fine' : pick(REASONS),
        reviewer: pick(REVIEWERS),
        afterMs: Math.floor(r() * 3 * DAY),
      });
    if (twice) {
      v(1, 'changes');
    }
    if (status !== 'submitted') {
      v(
        versions.length,
        status === 'accepted' ? 'accept' : status === 'rejected' ? 'reject' : 'changes',
      );
    }
    return {
      annotator: pick(ANNOTATORS),
      status,
      createdMs: T0 + Math.floor(r() * 21 * DAY) + i,
      taskIdx: r() < 0.7 ? Math.floor(r() * TASKS.length) : null,
      versions,
      verdicts,
    };
  });
}

export async function load(db: HubRootDb, data: Synthetic[], tag: string): Promise<void> {
  const userIds = new Map<string, number>();
  for (const name of [...ANNOTATORS, ...REVIEWERS]) {
    const { rows } = await sql<{ id: number }>`
      INSERT INTO users (name, password_hash) VALUES (${name + tag}, '$argon2id$test-not-a-hash') RETURNING id`.execute(
      db,
    );
    userIds.set(name, Number(rows[0]!.id));
  }
  const taskIds: number[] = [];
  for (const t of TASKS) {
    const { rows } = await sql<{ id: number }>`
      INSERT INTO tasks (instruction, instruction_key, domain, app, platform, target, tags)
      VALUES (${t.instruction + tag}, ${(t.instruction + tag).toLowerCase()}, ${t.domain},
              ${t.app}, 'any', 100, ${JSON.stringify(t.tags)}::jsonb)
      RETURNING id`.execute(db);
    taskIds.push(Number(rows[0]!.id));
  }
  for (const [i, s] of data.entries()) {
    const created = new Date(s.createdMs);
    const { rows } = await sql<{ id: number }>`
      INSERT INTO submissions (annotator_id, recording_id, task, status, current_version,
                               waiting_since, created_at, task_id)
      VALUES (${userIds.get(s.annotator)!}, ${`rec-${i}`}, 'a task', ${s.status},
              ${s.versions.length}, ${s.status === 'submitted' ? created : null}, ${created},
              ${s.taskIdx === null ? null : taskIds[s.taskIdx]!})
      RETURNING id`.execute(db);
    const id = Number(rows[0]!.id);
    for (const [j, v] of s.versions.entries()) {
      await sql`
        INSERT INTO submission_versions (submission_id, version, manifest_sha256, object_prefix,
                                         submitted_at)
        VALUES (${id}, ${j + 1}, ${String(j).repeat(64)}, 'p', ${new Date(s.createdMs + j * DAY)})
      `.execute(db);
      await insertVersionStats(db, id, j + 1, {
        os: v.os,
        stepCount: Object.values(v.actions).reduce((x, y) => x + y, 0),
        actionCounts: v.actions,
        videoMs: v.videoMs,
        keyframeCount: v.keyframes,
      });
    }
    for (const v of s.verdicts) {
      await sql`
        INSERT INTO verdicts (submission_id, version, reviewer_id, verdict, grade, feedback, at)
        VALUES (${id}, ${v.version}, ${userIds.get(v.reviewer)!}, ${v.verdict}, ${v.grade},
                ${v.feedback}, ${new Date(s.createdMs + (v.version - 1) * DAY + v.afterMs)})
      `.execute(db);
    }
  }
}

// the same figures, in TypeScript, from the synthetic data
export function expected(data: Synthetic[], f: StatsFilter, tag: string) {
  const kept = data.filter((s) => {
    const cur = s.versions.at(-1)!;
    return (
      (f.fromMs === undefined || s.createdMs >= f.fromMs) &&
      (f.toMs === undefined || s.createdMs < f.toMs) &&
      (f.os === undefined || cur.os === f.os) &&
      (f.annotator === undefined || s.annotator + tag === f.annotator) &&
      (f.tag === undefined || (s.taskIdx !== null && TASKS[s.taskIdx]!.tags.includes(f.tag)))
    );
  });
  const acc = kept.filter((s) => s.status === 'accepted');
  const cur = acc.map((s) => s.versions.at(-1)!);
  const len = (a: Record<string, number>) => Object.values(a).reduce((x, y) => x + y, 0);
  const countBy = (keys: string[]) => {
    const m: Record<string, number> = {};
    for (const k of keys) {
      m[k] = (m[k] ?? 0) + 1;
    }
    return m;
  };
  const sorted = (m: Record<string, number>) =>
    Object.entries(m)
      .map(([key, count]) => ({ key, count }))
      .sort((a, b) => b.count - a.count || (a.key < b.key ? -1 : 1));
  const actions: Record<string, number> = {};
  for (const v of cur) {
    for (const [k, n] of Object.entries(v.actions)) {
      actions[k] = (actions[k] ?? 0) + n;
    }
  }
  const entropies = cur
    .filter((v) => len(v.actions) > 0)
    .map((v) => {
      const t = len(v.actions);
      return -Object.values(v.actions).reduce((e, n) => e + (n / t) * Math.log2(n / t), 0);
    });
  const lastBin = STEP_BIN_LAST / STEP_BIN;
  const histogram = Array.from({ length: lastBin + 1 }, (_, bin) => ({
    from: bin * STEP_BIN,
    to: bin === lastBin ? null : (bin + 1) * STEP_BIN,
    count: cur.filter((v) => Math.min(Math.floor(len(v.actions) / STEP_BIN), lastBin) === bin)
      .length,
  }));
  const verdicts = kept.flatMap((s) => s.verdicts.map((v) => ({ s, v })));
  const turns = verdicts.map(({ v }) => v.afterMs / 1000).sort((a, b) => a - b);
  const median =
    turns.length === 0
      ? null
      : turns.length % 2
        ? turns[(turns.length - 1) / 2]!
        : (turns[turns.length / 2 - 1]! + turns[turns.length / 2]!) / 2;
  const reasonCounts: Record<string, { verdict: string; reason: string; count: number }> = {};
  for (const { v } of verdicts.filter(({ v }) => v.verdict !== 'accept')) {
    const reason = v.feedback.split('\n')[0]!.trim().toLowerCase() || '(none)';
    const k = `${v.verdict}\u0000${reason}`;
    (reasonCounts[k] ??= { verdict: v.verdict, reason, count: 0 }).count += 1;
  }
  const byUser = [...new Set(kept.map((s) => s.annotator))].sort();
  const isoWeek = (ms: number) => {
    const d = new Date(ms);
    const day = (d.getUTCDay() + 6) % 7;
    const thursday = new Date(
      Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() - day + 3),
    );
    // ISO 8601: the week of its Thursday, counted from that year's first Thursday's week
    const jan1 = Date.UTC(thursday.getUTCFullYear(), 0, 1);
    const week = 1 + Math.floor((thursday.getTime() - jan1) / DAY / 7);
    return `${thursday.getUTCFullYear()}-W${String(week).padStart(2, '0')}`;
  };
  const perKey = (keyOf: (s: Synthetic) => string) => {
    const m = new Map<string, { user: string; k: string; submitted: number }>();
    for (const s of kept) {
      const k = `${keyOf(s)}|${s.annotator}`;
      const e = m.get(k) ?? { user: s.annotator + tag, k: keyOf(s), submitted: 0 };
      e.submitted += 1;
      m.set(k, e);
    }
    return [...m.values()].sort((a, b) =>
      a.k < b.k ? -1 : a.k > b.k ? 1 : a.user < b.user ? -1 : 1,
    );
  };
  const tasksCounted = countBy(acc.filter((s) => s.taskIdx !== null).map((s) => String(s.taskIdx)));
  return {
    accepted: {
      total: acc.length,
      byOs: countBy(cur.map((v) => v.os)),
      byDomain: sorted(
        countBy(acc.map((s) => (s.taskIdx === null ? 'none' : TASKS[s.taskIdx]!.domain))),
      ),
      byApp: sorted(countBy(acc.map((s) => (s.taskIdx === null ? 'none' : TASKS[s.taskIdx]!.app)))),
      byTask: Object.entries(tasksCounted)
        // ties in task id order (the tasks were inserted in TASKS' order)
        .sort(([ia, a], [ib, b]) => b - a || Number(ia) - Number(ib))
        .map(([i, count]) => ({ instruction: TASKS[Number(i)]!.instruction + tag, count })),
    },
    steps: {
      mean: cur.length ? cur.reduce((x, v) => x + len(v.actions), 0) / cur.length : null,
      histogram,
    },
    actions: {
      counts: actions,
      meanEntropyBits: entropies.length
        ? entropies.reduce((x, y) => x + y, 0) / entropies.length
        : null,
    },
    videoHours: cur.reduce((x, v) => x + v.videoMs, 0) / 3_600_000,
    keyframes: cur.reduce((x, v) => x + v.keyframes, 0),
    annotators: byUser.map((u) => {
      const mine = kept.filter((s) => s.annotator === u);
      const a = mine.filter((s) => s.status === 'accepted').length;
      const r = mine.filter((s) => s.status === 'rejected').length;
      return {
        user: u + tag,
        submitted: mine.length,
        accepted: a,
        rejected: r,
        changes: mine.filter((s) => s.status === 'changes').length,
        acceptanceRate: a + r ? a / (a + r) : null,
      };
    }),
    perDay: perKey((s) => new Date(s.createdMs).toISOString().slice(0, 10)).map((e) => ({
      user: e.user,
      day: e.k,
      submitted: e.submitted,
    })),
    perWeek: perKey((s) => isoWeek(s.createdMs)).map((e) => ({
      user: e.user,
      week: e.k,
      submitted: e.submitted,
    })),
    grades: countBy(verdicts.filter(({ v }) => v.grade).map(({ v }) => v.grade!)),
    turnaround: {
      count: turns.length,
      meanSeconds: turns.length ? turns.reduce((x, y) => x + y, 0) / turns.length : null,
      medianSeconds: median,
    },
    reasons: Object.values(reasonCounts).sort(
      (a, b) =>
        b.count - a.count ||
        (a.verdict < b.verdict ? -1 : a.verdict > b.verdict ? 1 : a.reason < b.reason ? -1 : 1),
    ),
    reviewers: REVIEWERS.map((r) => {
      const mine = verdicts.filter(({ v }) => v.reviewer === r).map(({ v }) => v.verdict);
      return {
        reviewer: r + tag,
        verdicts: mine.length,
        accept: mine.filter((x) => x === 'accept').length,
        reject: mine.filter((x) => x === 'reject').length,
        changes: mine.filter((x) => x === 'changes').length,
      };
    }).filter((r) => r.verdicts > 0),
  };
}

// hubStats' answer in the shape of expected() (floats rounded to 9 digits)
export function actual(s: HubStats) {
  const r9 = (x: number | null) => (x === null ? null : Math.round(x * 1e9) / 1e9);
  return {
    accepted: {
      ...s.accepted,
      byTask: s.accepted.byTask.map(({ instruction, count }) => ({ instruction, count })),
    },
    steps: { mean: r9(s.steps.mean), histogram: s.steps.histogram },
    actions: { counts: s.actions.counts, meanEntropyBits: r9(s.actions.meanEntropyBits) },
    videoHours: r9(s.video.hours),
    keyframes: s.keyframes.count,
    annotators: s.team.annotators,
    perDay: s.team.perDay,
    perWeek: s.team.perWeek,
    grades: s.team.grades,
    turnaround: {
      count: s.team.turnaround.count,
      meanSeconds: r9(s.team.turnaround.meanSeconds),
      medianSeconds: r9(s.team.turnaround.medianSeconds),
    },
    reasons: s.team.reasons,
    reviewers: s.team.reviewers,
  };
}

export function rounded(e: ReturnType<typeof expected>) {
  const r9 = (x: number | null) => (x === null ? null : Math.round(x * 1e9) / 1e9);
  return {
    ...e,
    steps: { ...e.steps, mean: r9(e.steps.mean) },
    actions: { ...e.actions, meanEntropyBits: r9(e.actions.meanEntropyBits) },
    videoHours: r9(e.videoHours),
    turnaround: {
      count: e.turnaround.count,
      meanSeconds: r9(e.turnaround.meanSeconds),
      medianSeconds: r9(e.turnaround.medianSeconds),
    },
  };
}
