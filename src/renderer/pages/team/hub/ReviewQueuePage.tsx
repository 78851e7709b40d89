// Review queue (reviewers): how many submissions wait (and second reviews for QA, §19), the
// leases I hold with their expiry, and what I decided (`review:queue`, docs/team-mode.md §15).
// Reviewing itself happens in the app or through the CLI, where the recording is pulled into the
// reviewer's own library.
import { useEffect } from 'react';
import { ErrorNotice } from '../../../components/ErrorNotice';
import { useNow } from '../../../hooks/use-now';
import { formatDateTime, formatDurationMs } from '../../../lib/time';
import { useHubStore } from '../../../store/hub';

// The page.
export function ReviewQueuePage() {
  const queue = useHubStore((s) => s.queue);
  const { loadQueue } = useHubStore.getState();
  useEffect(() => {
    void loadQueue();
  }, [loadQueue]);
  const q = queue.data;
  const now = useNow((q?.mine.length ?? 0) > 0, 1000);
  const forMe = q ? q.waiting.total - q.waiting.own : 0;

  return (
    <main className="page hub-page" data-testid="hub-review">
      <header className="page-head">
        <div>
          <h1>Review queue</h1>
          <p className="muted">Waiting submissions, the ones you hold, and your verdicts.</p>
        </div>
        <button type="button" className="btn" onClick={() => void loadQueue()}>
          Refresh
        </button>
      </header>
      {queue.error && <ErrorNotice error={queue.error} testId="hub-review-error" />}
      {q && (
        <>
          <section aria-labelledby="hub-waiting-title" className="hub-section">
            <h2 id="hub-waiting-title">Waiting</h2>
            <p data-testid="hub-review-waiting">
              <strong data-testid="hub-review-waiting-count">{forMe}</strong>{' '}
              {forMe === 1 ? 'submission waits' : 'submissions wait'} for a reviewer
              {q.waiting.own > 0 && ` (and ${q.waiting.own} of your own, for someone else)`}
              {q.waiting.oldestSinceMs !== null &&
                `; the oldest since ${formatDateTime(q.waiting.oldestSinceMs)}`}
              .
            </p>
            {(q.waiting.qa ?? 0) > 0 && (
              <p data-testid="hub-review-qa">
                <strong data-testid="hub-review-qa-count">{q.waiting.qa}</strong>
                {q.waiting.qa === 1
                  ? ' accepted submission waits for a second review (QA sampling); '
                  : ' accepted submissions wait for a second review (QA sampling); '}
                <code>review next</code> hands them out once no first review waits.
              </p>
            )}
            <p className="muted">
              To review the next one, take it in the desktop app’s review queue, or run{' '}
              <code>cua-annotator review next</code>: it is leased to you and pulled into your
              library; review it there and send your verdict with{' '}
              <code>cua-annotator review verdict ID accept|reject|changes</code>.
            </p>
          </section>
          <section aria-labelledby="hub-mine-title" className="hub-section">
            <h2 id="hub-mine-title">Leased to me ({q.mine.length})</h2>
            {q.mine.length === 0 ? (
              <p className="muted" data-testid="hub-review-mine-empty">
                You hold no submission.
              </p>
            ) : (
              <table className="hub-table" aria-label="Leased to me">
                <thead>
                  <tr>
                    <th scope="col">Recording</th>
                    <th scope="col">Annotator</th>
                    <th scope="col">Task</th>
                    <th scope="col">Version</th>
                    <th scope="col">Lease ends</th>
                  </tr>
                </thead>
                <tbody>
                  {q.mine.map((l) => (
                    <tr key={l.id} data-testid={`hub-lease-${l.recording}`}>
                      <td className="mono">{l.recording}</td>
                      <td>{l.annotator}</td>
                      <td>{l.task}</td>
                      <td>{l.version}</td>
                      <td data-testid="hub-lease-expiry">
                        {formatDateTime(l.leaseExpiresAtMs)} (in{' '}
                        {formatDurationMs(Math.max(0, l.leaseExpiresAtMs - now))})
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
            {q.mine.length > 0 && (
              <p className="muted">
                Review it in the app (or the library <code>review next</code> pulled it into) and
                send the verdict before the lease ends; after that it goes back to the queue.
              </p>
            )}
          </section>
          <section aria-labelledby="hub-done-title" className="hub-section">
            <h2 id="hub-done-title">Decided by me ({q.done.length})</h2>
            {q.done.length === 0 ? (
              <p className="muted" data-testid="hub-review-done-empty">
                No verdicts yet.
              </p>
            ) : (
              <table className="hub-table" aria-label="Decided by me">
                <thead>
                  <tr>
                    <th scope="col">Recording</th>
                    <th scope="col">Annotator</th>
                    <th scope="col">Version</th>
                    <th scope="col">Verdict</th>
                    <th scope="col">Grade</th>
                    <th scope="col">Feedback</th>
                    <th scope="col">When</th>
                  </tr>
                </thead>
                <tbody>
                  {q.done.map((d) => (
                    <tr key={`${d.id}-${d.version}`} data-testid={`hub-done-${d.recording}`}>
                      <td className="mono">{d.recording}</td>
                      <td>{d.annotator}</td>
                      <td>{d.version}</td>
                      <td data-testid="hub-done-verdict">{d.verdict}</td>
                      <td>{d.grade ?? '—'}</td>
                      <td className="hub-feedback">{d.feedback || '—'}</td>
                      <td>{formatDateTime(d.atMs)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
          </section>
        </>
      )}
    </main>
  );
}
