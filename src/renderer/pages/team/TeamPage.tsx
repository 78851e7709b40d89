// Team page (`#/team`): sign in to a team hub (with the one-time password changed on the first
// sign-in), who this library is signed in as and where the token is kept, My submissions (status,
// version, grade, feedback, reviewer; "changes" link to the recording and Resubmit; submits
// waiting for the hub), and the review queue ("Take the next one" opens it in the review page).
import { useEffect, useState } from 'react';
import { ErrorNotice } from '../../components/ErrorNotice';
import { useApiEvent } from '../../hooks/use-api-event';
import { useTeamStore } from '../../store/team';
import { BACK_TO_ANNOTATOR, pendingLabel, submissionStatusLabel } from './team-labels';
import './team.css';

// The sign-in form: hub address, name, password; then the new password for a one-time one.
function SignInForm() {
  const signIn = useTeamStore((s) => s.signInForm);
  const [url, setUrl] = useState('');
  const [user, setUser] = useState('');
  const [password, setPassword] = useState('');
  const [newPassword, setNewPassword] = useState('');
  const [repeat, setRepeat] = useState('');
  const actions = useTeamStore.getState();

  if (signIn.stage === 'new-password') {
    const mismatch = repeat !== '' && repeat !== newPassword;
    return (
      <form
        className="team-form"
        onSubmit={(e) => {
          e.preventDefault();
          if (!mismatch) {
            void actions.changePassword(newPassword);
          }
        }}
        data-testid="team-new-password-form"
      >
        <p role="status">
          {signIn.pending?.user} signed in with a one-time password. Choose your own password (at
          least 12 characters) to finish signing in.
        </p>
        <label>
          New password
          <input
            className="input"
            type="password"
            autoComplete="new-password"
            value={newPassword}
            onChange={(e) => setNewPassword(e.target.value)}
            data-testid="team-new-password"
          />
        </label>
        <label>
          New password again
          <input
            className="input"
            type="password"
            autoComplete="new-password"
            value={repeat}
            onChange={(e) => setRepeat(e.target.value)}
            data-testid="team-new-password-repeat"
          />
        </label>
        {mismatch && <p className="notice notice-warn">The two passwords differ.</p>}
        <div className="toolbar">
          <button
            type="submit"
            className="btn btn-primary"
            disabled={signIn.busy || newPassword.length < 12 || newPassword !== repeat}
            data-testid="team-change-password"
          >
            {signIn.busy ? 'Signing in…' : 'Change password and sign in'}
          </button>
          <button type="button" className="btn" onClick={() => actions.resetSignIn()}>
            Back
          </button>
        </div>
        {signIn.error && (
          <ErrorNotice error={signIn.error} title="Not signed in" testId="team-sign-in-error" />
        )}
      </form>
    );
  }
  return (
    <form
      className="team-form"
      onSubmit={(e) => {
        e.preventDefault();
        void actions.signIn({ url: url.trim(), user: user.trim(), password });
      }}
      data-testid="team-sign-in-form"
    >
      <h2>Sign in to a team</h2>
      <p className="muted">
        Your team’s admin gives you the hub’s address, your name and a one-time password.
      </p>
      <label>
        Hub address
        <input
          className="input"
          type="url"
          placeholder="https://hub.example.org"
          value={url}
          onChange={(e) => setUrl(e.target.value)}
          data-testid="team-url"
        />
      </label>
      <label>
        Name
        <input
          className="input"
          autoComplete="username"
          value={user}
          onChange={(e) => setUser(e.target.value)}
          data-testid="team-user"
        />
      </label>
      <label>
        Password
        <input
          className="input"
          type="password"
          autoComplete="current-password"
          value={password}
          onChange={(e) => setPassword(e.target.value)}
          data-testid="team-password"
        />
      </label>
      <button
        type="submit"
        className="btn btn-primary"
        disabled={signIn.busy || !url.trim() || !user.trim() || !password}
        data-testid="team-sign-in"
      >
        {signIn.busy ? 'Signing in…' : 'Sign in'}
      </button>
      {signIn.error && (
        <ErrorNotice error={signIn.error} title="Not signed in" testId="team-sign-in-error" />
      )}
    </form>
  );
}

// The annotator's submissions and the submits waiting for the hub.
function MySubmissions() {
  const list = useTeamStore((s) => s.submissions);
  const submits = useTeamStore((s) => s.submits);
  const actions = useTeamStore.getState();

  useEffect(() => {
    void useTeamStore.getState().loadSubmissions();
  }, []);

  return (
    <section className="panel" data-testid="team-submissions">
      <div className="page-head">
        <h2>My submissions</h2>
        <button
          type="button"
          className="btn btn-small"
          onClick={() => void actions.loadSubmissions()}
        >
          Refresh
        </button>
      </div>
      {list?.hubError && (
        <ErrorNotice
          error={{ ...list.hubError, fix: list.hubError.fix ?? null }}
          title="The hub did not answer; what is in your library is safe"
          testId="team-hub-error"
        />
      )}
      {list && list.pending.length > 0 && (
        <ul className="team-list" data-testid="team-pending">
          {list.pending.map((p) => (
            <li key={p.recording} data-testid={`team-pending-${p.recording}`}>
              <a href={`#/recording/${encodeURIComponent(p.recording)}`}>
                {p.recording.slice(0, 8)}
              </a>{' '}
              <strong>{pendingLabel(p)}</strong>{' '}
              <span className="muted">
                ({p.attempts} attempt{p.attempts === 1 ? '' : 's'})
              </span>
              <div className="muted">
                {p.lastError.message}
                {p.lastError.fix ? ` — ${p.lastError.fix}` : ''}
              </div>
              <button
                type="button"
                className="btn btn-small"
                onClick={() => void actions.submit([p.recording])}
              >
                Try now
              </button>{' '}
              <button
                type="button"
                className="btn btn-small btn-ghost"
                onClick={() => void actions.cancelPending(p.recording)}
              >
                Cancel
              </button>
            </li>
          ))}
        </ul>
      )}
      {list && list.submissions.length === 0 && !list.hubError && (
        <p className="muted">
          Nothing submitted yet: open a recording and press <strong>Submit to team</strong>.
        </p>
      )}
      {list && list.submissions.length > 0 && (
        <table className="team-table" data-testid="team-submissions-table">
          <thead>
            <tr>
              <th>Recording</th>
              <th>Version</th>
              <th>Status</th>
              <th>Grade</th>
              <th>Reviewer</th>
              <th>Feedback</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {list.submissions.map((s) => (
              <tr key={s.id} data-testid={`team-submission-${s.recording}`}>
                <td>
                  {s.isLocal ? (
                    <a href={`#/recording/${encodeURIComponent(s.recording)}`}>
                      {s.task || s.recording.slice(0, 8)}
                    </a>
                  ) : (
                    s.task || s.recording.slice(0, 8)
                  )}
                </td>
                <td data-testid="team-submission-version">{s.version}</td>
                <td data-testid="team-submission-status">{submissionStatusLabel(s.status)}</td>
                <td>{s.grade ?? ''}</td>
                <td>{s.reviewer ?? ''}</td>
                <td className="team-feedback-cell" data-testid="team-submission-feedback">
                  {s.feedback ?? ''}
                  {s.status === 'intake-failed' &&
                    s.intake?.reasons.map((r) => (
                      <div key={r.code}>
                        {r.message} — {r.fix}
                      </div>
                    ))}
                </td>
                <td>
                  {BACK_TO_ANNOTATOR.has(s.status) && s.isLocal && (
                    <>
                      <a href={`#/recording/${encodeURIComponent(s.recording)}`}>Fix</a>{' '}
                      <button
                        type="button"
                        className="btn btn-small"
                        disabled={submits[s.recording]?.phase === 'submitting'}
                        onClick={() => void actions.submit([s.recording])}
                        data-testid="team-resubmit"
                      >
                        Resubmit
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

// The review queue: take the next waiting submission; the ones this library holds.
function ReviewQueue() {
  const review = useTeamStore((s) => s.review);
  const held = useTeamStore((s) => s.status?.reviews ?? []);
  return (
    <section className="panel" data-testid="team-review-queue">
      <h2>Review queue</h2>
      <p className="muted">
        The hub hands you the oldest waiting submission; it comes into this library and opens in the
        review page, where you fix steps and give your verdict.
      </p>
      <button
        type="button"
        className="btn btn-primary"
        disabled={review.busy}
        onClick={() => {
          void (async () => {
            const id = await useTeamStore.getState().takeNext();
            if (id) {
              window.location.hash = `#/recording/${encodeURIComponent(id)}`;
            }
          })();
        }}
        data-testid="team-take-next"
      >
        {review.busy ? 'Taking it…' : 'Take the next one'}
      </button>
      {review.taken && review.taken.submission === null && (
        <p role="status" data-testid="team-queue-empty">
          Nothing waits for review.
        </p>
      )}
      {review.error && (
        <ErrorNotice error={review.error} title="Nothing taken" testId="team-review-error" />
      )}
      {held.length > 0 && (
        <ul className="team-list" data-testid="team-held">
          {held.map((r) => (
            <li key={r.recording}>
              <a href={`#/recording/${encodeURIComponent(r.recording)}`}>
                {r.recording.slice(0, 8)}
              </a>{' '}
              by {r.annotator}, version {r.version} — yours until{' '}
              {new Date(r.leaseExpiresAtMs).toLocaleTimeString()}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

// The Team page.
export function TeamPage() {
  const status = useTeamStore((s) => s.status);
  const statusError = useTeamStore((s) => s.statusError);
  const statusLoad = useTeamStore((s) => s.statusLoad);
  const actions = useTeamStore.getState();

  useEffect(() => {
    void useTeamStore.getState().loadStatus();
  }, []);
  useApiEvent('team:changed', (event) => useTeamStore.getState().onChanged(event));

  const roles = status?.roles ?? [];
  return (
    <div className="page team-page" data-testid="team-page">
      <header className="page-head">
        <div>
          <h1>Team</h1>
          <p className="muted">
            Submit recordings to your team’s hub, see reviewers’ verdicts, review others’ work.
          </p>
        </div>
      </header>
      {statusError && <ErrorNotice error={statusError} testId="team-status-error" />}
      {status === null && statusLoad !== 'ready' && <div className="loading">Loading…</div>}
      {status !== null && !status.signedIn && (
        <>
          {status.hub.error && (
            <ErrorNotice
              error={{ ...status.hub.error, fix: status.hub.error.fix ?? null }}
              title="The stored sign-in cannot be used"
              testId="team-store-error"
            />
          )}
          <SignInForm />
          <p className="muted">
            Not signed in: recordings stay in your library, and everything else works as usual. The
            token is kept in {status.tokenPlace}.
          </p>
        </>
      )}
      {status?.signedIn && (
        <>
          <section className="panel" data-testid="team-account">
            <p>
              Signed in as <strong data-testid="team-who">{status.user}</strong> at{' '}
              <span className="mono" data-testid="team-hub-url">
                {status.url}
              </span>
              {roles.length > 0 && <> ({roles.join(', ')})</>}
            </p>
            <p className="muted">The token is kept in {status.tokenPlace}.</p>
            {status.hub.error && (
              <ErrorNotice
                error={{ ...status.hub.error, fix: status.hub.error.fix ?? null }}
                title="The hub does not answer; your library keeps working"
                testId="team-hub-status-error"
              />
            )}
            <button
              type="button"
              className="btn"
              onClick={() => void actions.signOut()}
              data-testid="team-sign-out"
            >
              Sign out
            </button>
          </section>
          {(roles.includes('annotator') || roles.length === 0) && <MySubmissions />}
          {roles.includes('reviewer') && <ReviewQueue />}
        </>
      )}
    </div>
  );
}
