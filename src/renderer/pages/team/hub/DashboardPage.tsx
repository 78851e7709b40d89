// Dashboard (admins, docs/team-mode.md §18): the dataset and the team in figures — accepted
// trajectories by OS, steps per trajectory beside AgentNet's 18.6, action types, video hours,
// keyframes, per-annotator counts, turnaround, reasons, reviewer workload — filtered by date,
// OS, annotator and task tag. Each figure is a Vega-Lite chart (vega-embed, SVG), a table and
// a CSV download; the specs come from src/shared/dashboard-charts.ts like `hub stats --svg`.
// QA sampling (§19): the agreement rate and the disagreements, each settled here (qa:settle),
// and the share of accepted submissions reviewed twice (qa:settings). Jobs (docs/jobs.md §5): the
// queues, the dead-letter list with Retry, the dataset builds' progress (JobsSection.tsx).
import { memo, useCallback, useDeferredValue, useEffect, useMemo, useRef, useState } from 'react';
import type { HubStats, StatsFilter } from '../../../../shared/contract/hub-stats';
import {
  dashboardFigures,
  figureCsv,
  type DashboardFigure,
} from '../../../../shared/dashboard-charts';
import { shownError } from '../../../api/api-error';
import { ErrorNotice, type ShownError } from '../../../components/ErrorNotice';
import { JobsSection } from './JobsSection';
import type { HubCall } from './TasksPage';

/** Props of {@link DashboardPage}. */
export type DashboardPageProps = { call: HubCall };

type Form = { from: string; to: string; os: string; annotator: string; tag: string };
const EMPTY: Form = { from: '', to: '', os: '', annotator: '', tag: '' };

function filterOf(f: Form): StatsFilter {
  const filter: StatsFilter = {};
  if (f.from) {
    filter.fromMs = Date.parse(`${f.from}T00:00:00Z`);
  }
  // the "to" day is included: before the next day's midnight (UTC)
  if (f.to) {
    filter.toMs = Date.parse(`${f.to}T00:00:00Z`) + 86_400_000;
  }
  if (f.os) {
    filter.os = f.os;
  }
  if (f.annotator.trim()) {
    filter.annotator = f.annotator.trim();
  }
  if (f.tag.trim()) {
    filter.tag = f.tag.trim();
  }
  return filter;
}

function Chart({ spec, title }: { spec: Record<string, unknown>; title: string }) {
  const el = useRef<HTMLDivElement>(null);
  useEffect(() => {
    let finalize: (() => void) | undefined;
    let cancelled = false;
    const draw = async () => {
      const [{ default: embed }, { expressionInterpreter }] = await Promise.all([
        import('vega-embed'),
        import('vega-interpreter'),
      ]);
      if (cancelled || !el.current) {
        return;
      }
      // The pages' Content-Security-Policy allows no eval: Vega's expressions are interpreted
      // from their syntax tree (vega-interpreter) instead of compiled with new Function.
      const result = await embed(el.current, spec, {
        renderer: 'svg',
        actions: false,
        ast: true,
        expr: expressionInterpreter,
      });
      finalize = () => result.finalize();
      if (cancelled) {
        finalize();
      }
    };
    draw().catch((e: unknown) => {
      // the table and CSV below still hold the figure; say why the chart is missing
      if (!cancelled && el.current) {
        el.current.textContent = `The chart could not be drawn (${e instanceof Error ? e.message : String(e)}); the table below has its numbers.`;
      }
    });
    return () => {
      cancelled = true;
      finalize?.();
    };
  }, [spec]);
  return <div ref={el} className="hub-chart" role="img" aria-label={title} />;
}

/** Rows a figure's table shows before "Show all" (per day × annotator is 9,000 rows over 180
 * days and 50 people; the CSV always has every row). */
export const TABLE_ROWS = 100;

function Figure({ f }: { f: DashboardFigure }) {
  const [all, setAll] = useState(false);
  const href = useMemo(
    () => `data:text/csv;charset=utf-8,${encodeURIComponent(figureCsv(f))}`,
    [f],
  );
  const rows = all ? f.rows : f.rows.slice(0, TABLE_ROWS);
  return (
    <section
      className="hub-section"
      aria-labelledby={`fig-${f.name}`}
      data-testid={`hub-fig-${f.name}`}
    >
      <h2 id={`fig-${f.name}`}>{f.title}</h2>
      {f.rows.length > 0 && <Chart spec={f.spec} title={f.title} />}
      {f.rows.length === 0 ? (
        <p className="muted">Nothing yet.</p>
      ) : (
        // open by default: the numbers are read (and copied) as often as the chart is looked at
        <details open>
          <summary>Table</summary>
          <table className="hub-table" aria-label={f.title}>
            <thead>
              <tr>
                {f.columns.map((c) => (
                  <th key={c} scope="col">
                    {c}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {rows.map((r, i) => (
                <tr key={i}>
                  {r.map((v, j) => (
                    <td key={j}>{v ?? '–'}</td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
          {rows.length < f.rows.length && (
            <button
              type="button"
              className="btn btn-small"
              onClick={() => setAll(true)}
              data-testid={`hub-fig-${f.name}-all`}
            >
              Show all {f.rows.length} rows
            </button>
          )}
        </details>
      )}
      <a className="btn btn-small" href={href} download={`${f.name}.csv`}>
        Download CSV
      </a>
    </section>
  );
}

type Disagreement = HubStats['qa']['disagreements'][number];

function Disagreements({
  rows,
  onSettle,
}: {
  rows: Disagreement[];
  onSettle: (id: number, status: 'accepted' | 'rejected') => void;
}) {
  return (
    <section className="hub-section" aria-labelledby="qa-disagreements" data-testid="hub-qa">
      <h2 id="qa-disagreements">QA disagreements</h2>
      {rows.length === 0 ? (
        <p className="muted">None: every second review agreed with the first (or none yet).</p>
      ) : (
        <table className="hub-table" aria-label="QA disagreements">
          <thead>
            <tr>
              {[
                'submission',
                'annotator',
                'first review',
                'second review',
                'feedback',
                'settled',
              ].map((c) => (
                <th key={c} scope="col">
                  {c}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {rows.map((d) => (
              <tr key={d.submissionId} data-testid={`hub-qa-${d.submissionId}`}>
                <td>
                  {d.submissionId} ({d.recording} v{d.version})
                </td>
                <td>{d.annotator}</td>
                <td>
                  {d.firstVerdict} by {d.firstReviewer}
                </td>
                <td>
                  {d.secondVerdict} by {d.secondReviewer}
                </td>
                <td>{d.secondFeedback || '–'}</td>
                <td>
                  {d.settledStatus ?? (
                    <>
                      <button
                        type="button"
                        className="btn btn-small"
                        onClick={() => onSettle(d.submissionId, 'accepted')}
                        data-testid={`hub-qa-accept-${d.submissionId}`}
                      >
                        Keep accepted
                      </button>{' '}
                      <button
                        type="button"
                        className="btn btn-small"
                        onClick={() => onSettle(d.submissionId, 'rejected')}
                        data-testid={`hub-qa-reject-${d.submissionId}`}
                      >
                        Reject
                      </button>
                    </>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

// the QA share: read on mount, changed with Save (qa:settings, admins)
function QaShare({ call, onError }: { call: HubCall; onError: (e: unknown) => void }) {
  const [share, setShare] = useState<number | null>(null);
  const [draft, setDraft] = useState('');
  useEffect(() => {
    let live = true;
    const run = async () => {
      try {
        const got = await call('qa:settings', {});
        if (live) {
          setShare(got.sampleShare);
          setDraft(String(got.sampleShare));
        }
      } catch (e) {
        if (live) {
          onError(e);
        }
      }
    };
    void run();
    return () => {
      live = false;
    };
  }, [call, onError]);
  const save = () => {
    const run = async () => {
      try {
        const got = await call('qa:settings', { sampleShare: Number(draft) });
        setShare(got.sampleShare);
      } catch (e) {
        onError(e);
      }
    };
    void run();
  };
  return (
    <form
      className="hub-filters"
      aria-label="QA sampling"
      onSubmit={(e) => {
        e.preventDefault();
        save();
      }}
    >
      <label>
        Share of accepted submissions reviewed twice (0–1){' '}
        <input
          type="number"
          min={0}
          max={1}
          step="any"
          value={draft}
          onChange={(e) => setDraft(e.target.value)}
          data-testid="hub-qa-share"
        />
      </label>
      <button type="submit" className="btn btn-small" data-testid="hub-qa-share-save">
        Save
      </button>
      <span className="muted" data-testid="hub-qa-share-current">
        {share === null ? '' : `now ${share}`}
      </span>
    </form>
  );
}

// Every figure: drawn from the deferred answer, so the headline numbers above paint first and the
// figures (thousands of table rows, 15 charts) render after, without holding the page.
const Figures = memo(function Figures({ stats }: { stats: HubStats }) {
  const figures = useMemo(() => dashboardFigures(stats), [stats]);
  return figures.map((f) => <Figure key={f.name} f={f} />);
});

function Kpi({ label, value, id }: { label: string; value: string; id: string }) {
  return (
    <div className="hub-kpi">
      <div className="muted">{label}</div>
      <strong data-testid={`hub-dash-${id}`}>{value}</strong>
    </div>
  );
}

// The unfiltered figures asked for before the page mounts (main.tsx, when the hub page opens on
// #/dashboard): the answer travels while the session is checked, instead of after it.
let prefetched: Promise<HubStats> | null = null;

/** Starts the unfiltered stats:get now; the Dashboard's first load takes its answer (a refused
 * one — not signed in, not an admin — is asked again, so the page says why). */
export function prefetchDashboard(call: HubCall): void {
  const answer = call('stats:get', {});
  answer.catch(() => undefined);
  prefetched = answer;
}

async function firstOrFresh(call: HubCall, filter: StatsFilter): Promise<HubStats> {
  const pending = Object.keys(filter).length === 0 ? prefetched : null;
  prefetched = null;
  if (pending) {
    try {
      return await pending;
    } catch {
      // asked again below: the page shows that answer's error
    }
  }
  return await call('stats:get', filter);
}

// The page.
export function DashboardPage({ call }: DashboardPageProps) {
  const [form, setForm] = useState<Form>(EMPTY);
  const [stats, setStats] = useState<HubStats | null>(null);
  const [error, setError] = useState<ShownError | null>(null);
  // a new filter or Refresh loads again; an answer to an older request is dropped
  const [nonce, setNonce] = useState(0);
  useEffect(() => {
    let live = true;
    const run = async () => {
      try {
        const got = await firstOrFresh(call, filterOf(form));
        if (live) {
          setStats(got);
          setError(null);
        }
      } catch (e) {
        if (live) {
          setError(shownError(e));
        }
      }
    };
    void run();
    return () => {
      live = false;
    };
  }, [form, call, nonce]);
  const set = (k: keyof Form) => (e: { target: { value: string } }) =>
    setForm((f) => ({ ...f, [k]: e.target.value }));
  const fmt = (x: number | null, d = 1) => (x === null ? '–' : x.toFixed(d));
  const showError = useCallback((e: unknown) => setError(shownError(e)), []);
  const shownFigures = useDeferredValue(stats);
  const settle = (id: number, status: 'accepted' | 'rejected') => {
    const run = async () => {
      try {
        await call('qa:settle', { id, status });
        setNonce((n) => n + 1);
      } catch (e) {
        setError(shownError(e));
      }
    };
    void run();
  };

  return (
    <main className="page hub-page" data-testid="hub-dashboard">
      <header className="page-head">
        <div>
          <h1>Dashboard</h1>
          <p className="muted">The dataset and the team, from the hub’s database.</p>
        </div>
        <button type="button" className="btn" onClick={() => setNonce((n) => n + 1)}>
          Refresh
        </button>
      </header>
      <form className="hub-filters" aria-label="Filters" onSubmit={(e) => e.preventDefault()}>
        <label>
          From{' '}
          <input type="date" value={form.from} onChange={set('from')} data-testid="hub-dash-from" />
        </label>
        <label>
          To <input type="date" value={form.to} onChange={set('to')} data-testid="hub-dash-to" />
        </label>
        <label>
          OS{' '}
          <select value={form.os} onChange={set('os')} data-testid="hub-dash-os">
            <option value="">any</option>
            <option value="linux">Linux</option>
            <option value="win32">Windows</option>
            <option value="darwin">macOS</option>
          </select>
        </label>
        <label>
          Annotator{' '}
          <input
            value={form.annotator}
            onChange={set('annotator')}
            data-testid="hub-dash-annotator"
          />
        </label>
        <label>
          Task tag <input value={form.tag} onChange={set('tag')} data-testid="hub-dash-tag" />
        </label>
        <button type="button" className="btn btn-small" onClick={() => setForm(EMPTY)}>
          Clear
        </button>
      </form>
      {error && <ErrorNotice error={error} testId="hub-dash-error" />}
      {stats && (
        <>
          <section className="hub-section hub-kpis" aria-label="Totals">
            <Kpi label="Accepted trajectories" value={String(stats.accepted.total)} id="accepted" />
            <Kpi
              label={`Mean steps (AgentNet ${stats.steps.agentnetMean})`}
              value={fmt(stats.steps.mean)}
              id="mean-steps"
            />
            <Kpi
              label="Action entropy (bits)"
              value={fmt(stats.actions.meanEntropyBits, 2)}
              id="entropy"
            />
            <Kpi label="Video hours" value={stats.video.hours.toFixed(2)} id="video-hours" />
            <Kpi label="Keyframes" value={String(stats.keyframes.count)} id="keyframes" />
            <Kpi
              label="Median review turnaround (h)"
              value={fmt(
                stats.team.turnaround.medianSeconds === null
                  ? null
                  : stats.team.turnaround.medianSeconds / 3600,
              )}
              id="turnaround"
            />
            <Kpi
              label={`QA agreement (${stats.qa.reviewed} second reviews)`}
              value={
                stats.qa.agreementRate === null
                  ? '–'
                  : `${(stats.qa.agreementRate * 100).toFixed(1)}%`
              }
              id="qa-agreement"
            />
          </section>
          {shownFigures ? (
            <Figures stats={shownFigures} />
          ) : (
            <p className="muted" data-testid="hub-dash-drawing">
              Drawing the figures…
            </p>
          )}
          <Disagreements rows={stats.qa.disagreements} onSettle={settle} />
          <QaShare call={call} onError={showError} />
        </>
      )}
      <JobsSection call={call} nonce={nonce} />
    </main>
  );
}
