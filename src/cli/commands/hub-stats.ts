// `cua-annotator hub stats`: the admin dashboard's figures (docs/team-mode.md §18) read straight
// from the hub's database (--data DIR of a stopped hub, or --database URL beside a running
// one), as text, as JSON, and as SVG + CSV + Vega-Lite files with --svg DIR.
import { hubStats, openHubDb } from '../../hub/db';
import { writeDashboardSvgs } from '../../hub/dashboard/svg';
import type { HubStats, StatsFilter } from '../../shared/contract/hub-stats';
import { parseCommandArgs, UsageError } from '../args';
import { errLine, out } from '../output';
import { targetOf } from './hub-user';

/** `hub stats --help`. */
export const STATS_HELP = `Usage: cua-annotator hub stats (--data DIR | --database URL) [--from DATE] [--to DATE]
                               [--os linux|win32|darwin] [--annotator NAME] [--tag TAG]
                               [--svg DIR] [--json]

The admin dashboard's figures (docs/team-mode.md §18): accepted trajectories by OS, domain, app
and task; steps per trajectory (histogram, mean beside AgentNet's 18.6); action types and their
entropy; video hours; keyframes; per annotator submitted/accepted/acceptance rate, per day and
week; grades; review turnaround; reasons of rejects and changes; reviewer workload.
With --data the hub must be stopped (it holds the folder); a running hub shows the same on its
Dashboard page (admins).

Options:
  --from DATE        submissions registered on or after DATE (YYYY-MM-DD or ISO 8601, UTC)
  --to DATE          … and before DATE
  --os OS            only recordings made on this OS
  --annotator NAME   only this annotator's submissions
  --tag TAG          only submissions of tasks with this tag
  --svg DIR          also write every figure as DIR/NAME.svg, NAME.csv and NAME.vl.json
  --json             print every figure as one JSON object
  -h, --help         show this help`;

function dateMs(text: string | undefined, flag: string): number | undefined {
  if (text === undefined) {
    return undefined;
  }
  const ms = Date.parse(/^\d{4}-\d{2}-\d{2}$/.test(text) ? `${text}T00:00:00Z` : text);
  if (!Number.isFinite(ms) || ms < 0) {
    throw new UsageError(`${flag} must be a date like 2026-12-01 (got "${text}")`);
  }
  return ms;
}

function printText(s: HubStats): void {
  const fmt = (x: number | null, d = 1) => (x === null ? '–' : x.toFixed(d));
  out(`accepted trajectories  ${s.accepted.total}`);
  for (const [os, n] of Object.entries(s.accepted.byOs)) {
    out(`  ${os.padEnd(20)} ${n}`);
  }
  out(`steps per trajectory   mean ${fmt(s.steps.mean)} (AgentNet ${s.steps.agentnetMean})`);
  out(
    `action types           ${
      Object.entries(s.actions.counts)
        .map(([k, n]) => `${k} ${n}`)
        .join(', ') || '–'
    }`,
  );
  out(`action entropy         ${fmt(s.actions.meanEntropyBits, 2)} bits per trajectory (mean)`);
  out(`video                  ${s.video.hours.toFixed(2)} h`);
  out(`keyframes              ${s.keyframes.count}`);
  out(
    `review turnaround      median ${fmt(s.team.turnaround.medianSeconds === null ? null : s.team.turnaround.medianSeconds / 3600)} h over ${s.team.turnaround.count} verdicts`,
  );
  out('annotator             submitted  accepted  rejected  changes  acceptance');
  for (const a of s.team.annotators) {
    out(
      `${a.user.padEnd(20)} ${[a.submitted, a.accepted, a.rejected, a.changes].map((n) => String(n).padStart(9)).join(' ')}  ${a.acceptanceRate === null ? '–' : `${Math.round(a.acceptanceRate * 100)}%`}`,
    );
  }
}

/** Runs `hub stats`. */
export async function runHubStats(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, {
    data: { type: 'string' },
    database: { type: 'string' },
    from: { type: 'string' },
    to: { type: 'string' },
    os: { type: 'string' },
    annotator: { type: 'string' },
    tag: { type: 'string' },
    svg: { type: 'string' },
    json: { type: 'boolean' },
  });
  if (values.help) {
    out(STATS_HELP);
    return 0;
  }
  if (positionals.length) {
    throw new UsageError(`hub stats takes no arguments (got "${positionals[0] ?? ''}")`);
  }
  const filter: StatsFilter = {};
  const fromMs = dateMs(values.from, '--from');
  const toMs = dateMs(values.to, '--to');
  if (fromMs !== undefined) {
    filter.fromMs = fromMs;
  }
  if (toMs !== undefined) {
    filter.toMs = toMs;
  }
  if (values.os) {
    filter.os = values.os;
  }
  if (values.annotator) {
    filter.annotator = values.annotator;
  }
  if (values.tag) {
    filter.tag = values.tag;
  }
  const hub = await openHubDb(targetOf(values), {
    holder: 'cua-annotator hub stats',
    create: false,
  });
  let stats: HubStats;
  try {
    stats = await hubStats(hub.db, filter);
  } finally {
    await hub.close();
  }
  if (values.svg) {
    const names = await writeDashboardSvgs(stats, values.svg);
    errLine(`wrote ${names.length} figures (SVG, CSV, Vega-Lite) to ${values.svg}`);
  }
  if (values.json) {
    out(JSON.stringify(stats));
  } else {
    printText(stats);
  }
  return 0;
}
