// My submissions (annotators): every submission of the signed-in annotator with its status and
// the latest verdict's grade, feedback and reviewer (`submissions:mine`, docs/team-mode.md §15),
// and above them their own counts by status and acceptance rate (issue 28 item 5).
import { useEffect } from 'react';
import { ErrorNotice } from '../../../components/ErrorNotice';
import { formatDateTime } from '../../../lib/time';
import { hubSelectors, SUBMISSION_STATUS_LABELS, useHubStore } from '../../../store/hub';

// The page.
export function MySubmissionsPage() {
  const mine = useHubStore((s) => s.mine);
  const { loadMine } = useHubStore.getState();
  useEffect(() => {
    void loadMine();
  }, [loadMine]);
  const rows = mine.data ?? [];
  const summary = hubSelectors.mySummary(rows);

  return (
    <main className="page hub-page" data-testid="hub-submissions">
      <header className="page-head">
        <div>
          <h1>My submissions</h1>
          <p className="muted" data-testid="hub-submissions-count">
            {mine.status === 'loading' && !mine.data
              ? 'Loading…'
              : `${rows.length} submission${rows.length === 1 ? '' : 's'}`}
          </p>
        </div>
        <button type="button" className="btn" onClick={() => void loadMine()}>
          Refresh
        </button>
      </header>
      {mine.error && <ErrorNotice error={mine.error} testId="hub-submissions-error" />}
      {rows.length > 0 && (
        <section className="hub-section hub-kpis" aria-label="My counts">
          {Object.entries(summary.byStatus).map(([status, n]) => (
            <div className="hub-kpi" key={status}>
              <div className="muted">{SUBMISSION_STATUS_LABELS[status] ?? status}</div>
              <strong data-testid={`hub-my-count-${status}`}>{n}</strong>
            </div>
          ))}
          <div className="hub-kpi">
            <div className="muted">Acceptance rate (accepted of accepted + rejected)</div>
            <strong data-testid="hub-my-acceptance">
              {summary.acceptanceRate === null
                ? '–'
                : `${(summary.acceptanceRate * 100).toFixed(0)}%`}
            </strong>
          </div>
        </section>
      )}
      {mine.status === 'ready' && rows.length === 0 && (
        <p className="muted">
          Nothing submitted yet. Submit a recording from the app, or with{' '}
          <code>cua-annotator submit ID</code> after <code>cua-annotator login</code>.
        </p>
      )}
      {rows.length > 0 && (
        <table className="hub-table" aria-label="My submissions">
          <thead>
            <tr>
              <th scope="col">Recording</th>
              <th scope="col">Task</th>
              <th scope="col">Version</th>
              <th scope="col">Status</th>
              <th scope="col">Grade</th>
              <th scope="col">Feedback</th>
              <th scope="col">Reviewer</th>
              <th scope="col">Updated</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((s) => (
              <tr key={s.id} data-testid={`hub-submission-${s.recording}`}>
                <td className="mono">{s.recording}</td>
                <td>{s.task}</td>
                <td data-testid="hub-submission-version">{s.version}</td>
                <td>
                  <span
                    className={`chip hub-status-${s.status}`}
                    data-testid="hub-submission-status"
                  >
                    {SUBMISSION_STATUS_LABELS[s.status] ?? s.status}
                  </span>
                </td>
                <td data-testid="hub-submission-grade">{s.grade ?? '—'}</td>
                <td className="hub-feedback" data-testid="hub-submission-feedback">
                  {s.feedback
                    ? s.verdictVersion !== null && s.verdictVersion !== s.version
                      ? `(on version ${s.verdictVersion}) ${s.feedback}`
                      : s.feedback
                    : s.intake?.status === 'failed'
                      ? null
                      : '—'}
                  {s.intake?.status === 'failed' && (
                    <ul className="hub-intake-reasons" data-testid="hub-submission-intake">
                      {s.intake.reasons.map((r, i) => (
                        <li key={i}>
                          <code>{r.code}</code> {r.message} <strong>Fix:</strong> {r.fix}
                        </li>
                      ))}
                    </ul>
                  )}
                </td>
                <td data-testid="hub-submission-reviewer">{s.reviewer ?? '—'}</td>
                <td>{formatDateTime(s.updatedAtMs)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {rows.some((s) => s.intake?.status === 'failed') && (
        <p className="muted">
          “Failed the hub’s checks”: the hub checked the version before any reviewer saw it and
          refused it for the reasons shown; fix them in your library and submit again.
        </p>
      )}
      {rows.some((s) => s.status === 'changes') && (
        <p className="muted">
          “Changes requested”: fix the recording in your library, then submit it again — it becomes
          the next version of the same submission.
        </p>
      )}
    </main>
  );
}
