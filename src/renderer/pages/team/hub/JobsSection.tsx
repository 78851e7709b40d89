// The Dashboard's Jobs section (admins, docs/jobs.md §5): each job queue's depth (waiting,
// running, done, failed for good) and throughput (done per minute since the page opened), the dead-letter list with each job's error or a refused
// intake's reasons and a Retry button (jobs:retry), and the latest dataset builds with their
// progress. Read again every few seconds while the page is open, and on Refresh.
import { useEffect, useRef, useState } from 'react';
import type { HubDatasetBuild, HubDeadJob, HubJobQueue } from '../../../../shared/contract/hub';
import { shownError } from '../../../api/api-error';
import { ErrorNotice, type ShownError } from '../../../components/ErrorNotice';
import type { HubCall } from './TasksPage';

/** How often the section reads the queues again while shown. */
export const JOBS_REFRESH_MS = 5_000;

type Jobs = {
  queues: HubJobQueue[];
  dead: HubDeadJob[];
  builds: HubDatasetBuild[];
  /** Jobs done per minute since the first reading, by queue ('–' for the first 10 s). */
  rates: Record<string, string>;
};

const when = (ms: number) => new Date(ms).toISOString().replace('T', ' ').slice(0, 19);

function buildProgress(b: HubDatasetBuild): string {
  const of = b.submissions === 0 ? '' : ` of ${b.submissions}`;
  return `${b.done + b.failed}${of}${b.failed ? ` (${b.failed} left out)` : ''}`;
}

/** The section; `nonce` changes when the page's Refresh is pressed. */
export function JobsSection({ call, nonce }: { call: HubCall; nonce: number }) {
  const [jobs, setJobs] = useState<Jobs | null>(null);
  const [error, setError] = useState<ShownError | null>(null);
  const [tick, setTick] = useState(0);
  const [retrying, setRetrying] = useState<string | null>(null);
  // the first reading of each queue's done count: throughput since the page opened
  const first = useRef<{ atMs: number; done: Map<string, number> } | null>(null);

  useEffect(() => {
    const timer = setInterval(() => setTick((t) => t + 1), JOBS_REFRESH_MS);
    return () => clearInterval(timer);
  }, []);

  useEffect(() => {
    let live = true;
    const run = async () => {
      try {
        const [status, dead, builds] = await Promise.all([
          call('jobs:status', {}),
          call('jobs:dead', { limit: 50 }),
          call('dataset:list', { limit: 10 }),
        ]);
        if (live) {
          const now = Date.now();
          const f = (first.current ??= {
            atMs: now,
            done: new Map(status.queues.map((q) => [q.name, q.done])),
          });
          const minutes = (now - f.atMs) / 60_000;
          const rates = Object.fromEntries(
            status.queues.map((q) => [
              q.name,
              minutes < 10 / 60
                ? '–'
                : ((q.done - (f.done.get(q.name) ?? q.done)) / minutes).toFixed(1),
            ]),
          );
          setJobs({ queues: status.queues, dead: dead.jobs, builds: builds.builds, rates });
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
  }, [call, nonce, tick]);

  const retry = (id: string) => {
    const run = async () => {
      setRetrying(id);
      try {
        await call('jobs:retry', { id });
        setTick((t) => t + 1);
      } catch (e) {
        setError(shownError(e));
      } finally {
        setRetrying(null);
      }
    };
    void run();
  };

  return (
    <section className="hub-section" aria-labelledby="hub-jobs-title" data-testid="hub-jobs">
      <h2 id="hub-jobs-title">Jobs</h2>
      {error && <ErrorNotice error={error} title="Jobs not read" testId="hub-jobs-error" />}
      {jobs === null ? (
        !error && <p className="muted">Reading the queues…</p>
      ) : (
        <>
          <table className="hub-table" aria-label="Job queues">
            <thead>
              <tr>
                <th scope="col">queue</th>
                <th scope="col">waiting</th>
                <th scope="col">running</th>
                <th scope="col">done</th>
                <th scope="col">failed for good</th>
                <th scope="col">done per minute (since this page opened)</th>
              </tr>
            </thead>
            <tbody>
              {jobs.queues.map((q) => (
                <tr key={q.name} data-testid={`hub-jobs-queue-${q.name}`}>
                  <td>{q.name}</td>
                  <td data-testid="waiting">{q.waiting}</td>
                  <td data-testid="active">{q.active}</td>
                  <td data-testid="done">{q.done}</td>
                  <td data-testid="failed">{q.failed}</td>
                  <td data-testid="rate">{jobs.rates[q.name] ?? '–'}</td>
                </tr>
              ))}
            </tbody>
          </table>

          <h3>Dead letters</h3>
          {jobs.dead.length === 0 ? (
            <p className="muted" data-testid="hub-jobs-dead-none">
              No job has failed for good.
            </p>
          ) : (
            <table className="hub-table" aria-label="Dead letters">
              <thead>
                <tr>
                  <th scope="col">queue</th>
                  <th scope="col">job</th>
                  <th scope="col">why</th>
                  <th scope="col">attempts</th>
                  <th scope="col">failed at (UTC)</th>
                  <th scope="col" />
                </tr>
              </thead>
              <tbody>
                {jobs.dead.map((j) => (
                  <tr key={j.id} data-testid="hub-jobs-dead-row" data-key={j.key}>
                    <td>{j.queue}</td>
                    <td>{j.key}</td>
                    <td data-testid="hub-jobs-dead-why">
                      {j.code ? <code>{j.code}</code> : null} {j.error}
                      {j.reasons.length > 0 && (
                        <ul>
                          {j.reasons.map((r, i) => (
                            <li key={i}>
                              <code>{r.code}</code> {r.message}
                            </li>
                          ))}
                        </ul>
                      )}
                    </td>
                    <td data-testid="hub-jobs-dead-attempts">{j.attempts}</td>
                    <td>{when(j.failedAtMs)}</td>
                    <td>
                      <button
                        type="button"
                        className="btn btn-small"
                        disabled={retrying !== null}
                        onClick={() => retry(j.id)}
                        data-testid="hub-jobs-retry"
                      >
                        {retrying === j.id ? 'Retrying…' : 'Retry'}
                      </button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}

          <h3>Dataset builds</h3>
          {jobs.builds.length === 0 ? (
            <p className="muted">
              None yet: <code>cua-annotator dataset build --format F</code> starts one.
            </p>
          ) : (
            <table className="hub-table" aria-label="Dataset builds">
              <thead>
                <tr>
                  <th scope="col">build</th>
                  <th scope="col">status</th>
                  <th scope="col">format</th>
                  <th scope="col">submissions exported</th>
                  <th scope="col">started (UTC)</th>
                  <th scope="col">by</th>
                </tr>
              </thead>
              <tbody>
                {jobs.builds.map((b) => (
                  <tr key={b.build} data-testid={`hub-jobs-build-${b.build}`}>
                    <td>{b.build}</td>
                    <td data-testid="status">
                      {b.status}
                      {b.error ? ` — ${b.error}` : ''}
                    </td>
                    <td>{b.format}</td>
                    <td data-testid="progress">
                      <progress
                        max={Math.max(b.submissions, 1)}
                        value={b.status === 'done' ? Math.max(b.submissions, 1) : b.done + b.failed}
                      />{' '}
                      {buildProgress(b)}
                    </td>
                    <td>{when(b.createdAtMs)}</td>
                    <td>{b.createdBy ?? '–'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </>
      )}
    </section>
  );
}
