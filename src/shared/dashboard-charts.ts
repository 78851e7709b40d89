// The admin dashboard's charts (docs/team-mode.md §18, QA §19): one Vega-Lite spec per figure, built
// from the `stats:get` answer by this one module for the Dashboard page (vega-embed) and for
// `hub stats --svg` (vega in Node, no canvas), plus each figure as a table (rows) and as CSV.
// Pure: plain data in, plain JSON out.
import type { HubStats } from './contract/hub-stats';

/** A figure: its name (file stem), title, table and Vega-Lite spec. */
export type DashboardFigure = {
  name: string;
  title: string;
  columns: string[];
  rows: (string | number | null)[][];
  spec: Record<string, unknown>;
};

const SCHEMA = 'https://vega.github.io/schema/vega-lite/v6.json';
const WIDTH = 420;

function bar(
  title: string,
  values: Record<string, unknown>[],
  x: string,
  y: string,
  options: { xType?: 'nominal' | 'ordinal'; sort?: boolean; color?: string } = {},
): Record<string, unknown> {
  return {
    $schema: SCHEMA,
    title,
    width: WIDTH,
    height: 220,
    data: { values },
    mark: { type: 'bar', tooltip: true },
    encoding: {
      x: {
        field: x,
        type: options.xType ?? 'nominal',
        sort: options.sort ? '-y' : null,
        axis: { labelAngle: -30 },
      },
      y: { field: y, type: 'quantitative' },
      ...(options.color ? { color: { field: options.color, type: 'nominal' } } : {}),
    },
  };
}

/** CSV of a figure (RFC 4180 quoting). */
export function figureCsv(f: Pick<DashboardFigure, 'columns' | 'rows'>): string {
  const cell = (v: string | number | null) => {
    const s = v === null ? '' : String(v);
    return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
  };
  return [f.columns, ...f.rows].map((r) => r.map(cell).join(',')).join('\r\n') + '\r\n';
}

/** Every figure of `stats`, in the dashboard's order. */
export function dashboardFigures(stats: HubStats): DashboardFigure[] {
  const byOs = Object.entries(stats.accepted.byOs).map(([os, count]) => ({ os, count }));
  const hist = stats.steps.histogram.map((b) => ({
    steps: b.to === null ? `${b.from}+` : `${b.from}–${b.to - 1}`,
    count: b.count,
  }));
  const actions = Object.entries(stats.actions.counts).map(([action, count]) => ({
    action,
    count,
  }));
  const domains = stats.accepted.byDomain.map((d) => ({ domain: d.key, count: d.count }));
  const apps = stats.accepted.byApp.map((d) => ({ app: d.key, count: d.count }));
  const annotators = stats.team.annotators.map((a) => ({
    user: a.user,
    submitted: a.submitted,
    accepted: a.accepted,
  }));
  const perDay = stats.team.perDay.map((d) => ({ ...d }));
  const reviewers = stats.team.reviewers.map((r) => ({
    reviewer: r.reviewer,
    verdicts: r.verdicts,
  }));
  const qa = [
    { review: 'agreed', count: stats.qa.agreed },
    { review: 'disagreed', count: stats.qa.reviewed - stats.qa.agreed },
    { review: 'waiting', count: stats.qa.sampled - stats.qa.reviewed },
  ];
  const qaRate =
    stats.qa.agreementRate === null
      ? 'no second reviews yet'
      : `agreement ${(stats.qa.agreementRate * 100).toFixed(1)}% of ${stats.qa.reviewed}`;
  const mean = stats.steps.mean === null ? 'no accepted trajectories' : stats.steps.mean.toFixed(1);
  const histSpec = bar(
    `Steps per accepted trajectory (mean ${mean}; AgentNet ${stats.steps.agentnetMean})`,
    hist,
    'steps',
    'count',
    { xType: 'ordinal' },
  );
  return [
    {
      name: 'accepted-by-os',
      title: `Accepted trajectories by OS (${stats.accepted.total} in all)`,
      columns: ['os', 'count'],
      rows: byOs.map((r) => [r.os, r.count]),
      spec: bar('Accepted trajectories by OS', byOs, 'os', 'count', { sort: true }),
    },
    {
      name: 'steps-histogram',
      title: `Steps per accepted trajectory (mean ${mean}; AgentNet ${stats.steps.agentnetMean})`,
      columns: ['steps', 'count'],
      rows: hist.map((r) => [r.steps, r.count]),
      spec: histSpec,
    },
    {
      name: 'action-mix',
      title: `Action types (mean entropy ${
        stats.actions.meanEntropyBits === null ? '–' : stats.actions.meanEntropyBits.toFixed(2)
      } bits per trajectory)`,
      columns: ['action', 'count'],
      rows: actions.map((r) => [r.action, r.count]),
      spec: bar('Action types', actions, 'action', 'count', { sort: true }),
    },
    {
      name: 'accepted-by-domain',
      title: 'Accepted trajectories by domain',
      columns: ['domain', 'count'],
      rows: domains.map((r) => [r.domain, r.count]),
      spec: bar('Accepted trajectories by domain', domains, 'domain', 'count', { sort: true }),
    },
    {
      name: 'accepted-by-app',
      title: 'Accepted trajectories by app or website',
      columns: ['app', 'count'],
      rows: apps.map((r) => [r.app, r.count]),
      spec: bar('Accepted trajectories by app or website', apps, 'app', 'count', { sort: true }),
    },
    {
      name: 'annotators',
      title: 'Submissions per annotator',
      columns: ['user', 'submitted', 'accepted', 'rejected', 'changes', 'acceptance rate'],
      rows: stats.team.annotators.map((a) => [
        a.user,
        a.submitted,
        a.accepted,
        a.rejected,
        a.changes,
        a.acceptanceRate === null ? null : Math.round(a.acceptanceRate * 1000) / 1000,
      ]),
      spec: bar('Submitted per annotator', annotators, 'user', 'submitted'),
    },
    {
      name: 'submissions-per-day',
      title: 'Submissions per annotator per day',
      columns: ['day', 'user', 'submitted'],
      rows: perDay.map((d) => [d.day, d.user, d.submitted]),
      spec: bar('Submissions per day', perDay, 'day', 'submitted', {
        xType: 'ordinal',
        color: 'user',
      }),
    },
    {
      name: 'reviewers',
      title: 'Reviewer workload (verdicts)',
      columns: ['reviewer', 'verdicts', 'accept', 'reject', 'changes'],
      rows: stats.team.reviewers.map((r) => [
        r.reviewer,
        r.verdicts,
        r.accept,
        r.reject,
        r.changes,
      ]),
      spec: bar('Verdicts per reviewer', reviewers, 'reviewer', 'verdicts'),
    },
    {
      name: 'reasons',
      title: 'Reasons of rejects and changes (feedback’s first line)',
      columns: ['verdict', 'reason', 'count'],
      rows: stats.team.reasons.map((r) => [r.verdict, r.reason, r.count]),
      spec: bar(
        'Reasons of rejects and changes',
        stats.team.reasons.map((r) => ({ reason: r.reason, verdict: r.verdict, count: r.count })),
        'reason',
        'count',
        { color: 'verdict', sort: true },
      ),
    },
    {
      name: 'qa-agreement',
      title: `QA second reviews (${qaRate}; ${stats.qa.unsettled} to settle)`,
      columns: ['review', 'count'],
      rows: qa.map((r) => [r.review, r.count]),
      spec: bar('QA second reviews', qa, 'review', 'count'),
    },
  ];
}
