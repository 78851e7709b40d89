// The admin dashboard's figures as the hub answers them (`stats:get`, docs/team-mode.md §18):
// the filters and every figure, one schema for the hub, the CLI (`hub stats --json`) and the
// Dashboard page. The figures themselves are SQL in src/hub/db/queries/stats.ts.
import * as v from 'valibot';
import { integer, obj, text } from './fields';

/** AgentNet's mean trajectory length (steps), shown beside ours. */
export const AGENTNET_MEAN_STEPS = 18.6;
/** The steps histogram's bin width and its last (open) bin's start. */
export const STEP_BIN = 5;
export const STEP_BIN_LAST = 60;

/** What the figures are restricted to; every field optional. */
export const StatsFilterSchema = obj({
  /** Registered at or after (epoch ms). */
  fromMs: v.optional(integer(0)),
  /** Registered before (epoch ms). */
  toMs: v.optional(integer(0)),
  /** The recording's OS (`linux`, `win32`, `darwin`). */
  os: v.optional(text(40, 1)),
  /** The annotator's account name. */
  annotator: v.optional(text(200, 1)),
  /** A tag of the submission's task. */
  tag: v.optional(text(200, 1)),
});
/** The dashboard's filters. */
export type StatsFilter = v.InferOutput<typeof StatsFilterSchema>;

const n = v.number();
const nn = v.nullable(v.number());
const s = v.string();
const count = v.strictObject({ key: s, count: n });
const counts = v.record(v.string(), v.number());

/** Every figure of the dashboard. */
export const HubStatsSchema = v.strictObject({
  filter: v.strictObject({
    fromMs: v.optional(n),
    toMs: v.optional(n),
    os: v.optional(s),
    annotator: v.optional(s),
    tag: v.optional(s),
  }),
  accepted: v.strictObject({
    total: n,
    byOs: counts,
    byDomain: v.array(count),
    byApp: v.array(count),
    byTask: v.array(v.strictObject({ taskId: n, instruction: s, count: n })),
  }),
  steps: v.strictObject({
    mean: nn,
    agentnetMean: n,
    /** Bins [from, to); the last bin (to null) is `from` and above. */
    histogram: v.array(v.strictObject({ from: n, to: nn, count: n })),
  }),
  actions: v.strictObject({
    /** Steps by kind over accepted trajectories. */
    counts,
    /** Mean over accepted trajectories of the Shannon entropy (bits) of their action kinds. */
    meanEntropyBits: nn,
  }),
  video: v.strictObject({ hours: n }),
  keyframes: v.strictObject({ count: n }),
  team: v.strictObject({
    annotators: v.array(
      v.strictObject({
        user: s,
        submitted: n,
        accepted: n,
        rejected: n,
        changes: n,
        /** accepted / (accepted + rejected); null before any final verdict. */
        acceptanceRate: nn,
      }),
    ),
    perDay: v.array(v.strictObject({ user: s, day: s, submitted: n })),
    perWeek: v.array(v.strictObject({ user: s, week: s, submitted: n })),
    grades: counts,
    /** Seconds from a version's registration to its verdict. */
    turnaround: v.strictObject({ count: n, meanSeconds: nn, medianSeconds: nn }),
    /** Reject/changes feedback grouped by verdict and its first line (lower-cased). */
    reasons: v.array(v.strictObject({ verdict: s, reason: s, count: n })),
    reviewers: v.array(
      v.strictObject({ reviewer: s, verdicts: n, accept: n, reject: n, changes: n }),
    ),
  }),
  /** QA sampling (docs/team-mode.md §19): accepted submissions reviewed a second time. */
  qa: v.strictObject({
    /** Drawn for a second review. */
    sampled: n,
    /** Of those, second reviews given. */
    reviewed: n,
    /** Of those, the second verdict equal to the first. */
    agreed: n,
    /** agreed / reviewed; null before any second review. */
    agreementRate: nn,
    /** Disagreements an admin has not settled. */
    unsettled: n,
    /** Every disagreement, newest first (at most 500). */
    disagreements: v.array(
      v.strictObject({
        submissionId: n,
        recording: s,
        annotator: s,
        version: n,
        firstReviewer: s,
        firstVerdict: s,
        secondReviewer: s,
        secondVerdict: s,
        secondGrade: v.nullable(s),
        secondFeedback: s,
        atMs: n,
        /** The admin's decision (`qa:settle`), or null while it waits. */
        settledStatus: v.nullable(s),
      }),
    ),
  }),
});
/** Every figure of the dashboard. */
export type HubStats = v.InferOutput<typeof HubStatsSchema>;
