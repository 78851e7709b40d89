// Sign in to the hub serving this page (name + password), then the forced change of a one-time
// password; a rate-limited sign-in shows how long to wait (docs/team-mode.md §15).
import { useState, type FormEvent } from 'react';
import { ErrorNotice } from '../../../components/ErrorNotice';
import { useNow } from '../../../hooks/use-now';
import { HUB_PASSWORD_MIN } from '../../../../shared/contract/hub';
import { hubSelectors, useHubStore } from '../../../store/hub';

// The sign-in form.
export function SignInPage() {
  const session = useHubStore((s) => s.session);
  const form = useHubStore((s) => s.form);
  const [user, setUser] = useState('');
  const [password, setPassword] = useState('');
  const now = useNow(form.retryAtMs !== null, 500);
  const wait = hubSelectors.waitSeconds({ form }, now);

  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    void useHubStore.getState().signIn(user, password);
  };

  return (
    <main className="page hub-signin" data-testid="hub-signin">
      <h1>Sign in to the team hub</h1>
      {session.phase === 'signed-out' && session.notice && (
        <p className="notice" role="status" data-testid="hub-signin-notice">
          {session.notice}
        </p>
      )}
      <form className="hub-form" onSubmit={onSubmit} aria-label="Sign in">
        <label className="field">
          <span className="field-label">Name</span>
          <input
            name="user"
            autoComplete="username"
            autoCapitalize="none"
            spellCheck={false}
            required
            value={user}
            onChange={(e) => setUser(e.target.value)}
            data-testid="hub-signin-user"
          />
        </label>
        <label className="field">
          <span className="field-label">Password</span>
          <input
            name="password"
            type="password"
            autoComplete="current-password"
            required
            value={password}
            onChange={(e) => setPassword(e.target.value)}
            data-testid="hub-signin-password"
          />
        </label>
        {form.error && (
          <ErrorNotice error={form.error} title="Not signed in" testId="hub-signin-error" />
        )}
        {wait > 0 && (
          <p className="muted" role="status" data-testid="hub-signin-wait">
            Too many failed sign-ins: try again in {wait} s.
          </p>
        )}
        <div className="form-actions">
          <button
            type="submit"
            className="btn btn-primary"
            disabled={form.busy || wait > 0}
            data-testid="hub-signin-submit"
          >
            {form.busy ? 'Signing in…' : 'Sign in'}
          </button>
        </div>
      </form>
      <p className="muted">
        No account, or a forgotten password? The hub’s admin adds people and hands out one-time
        passwords (Team page, or <code>cua-annotator hub user add NAME --role …</code>).
      </p>
    </main>
  );
}

// The forced change of a one-time password (the hub allows nothing else until it is done).
export function ChangePasswordPage({ user }: { user: string }) {
  const form = useHubStore((s) => s.form);
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [repeat, setRepeat] = useState('');

  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    void useHubStore
      .getState()
      .changePassword(next, repeat, form.hasCurrentPassword ? undefined : current);
  };

  return (
    <main className="page hub-signin" data-testid="hub-change-password">
      <h1>Choose your own password</h1>
      <p>
        <strong>{user}</strong>, you signed in with a one-time password. Choose a password of at
        least {HUB_PASSWORD_MIN} characters before you go on; the one-time password stops working.
      </p>
      <form className="hub-form" onSubmit={onSubmit} aria-label="Change password">
        <input type="text" hidden readOnly autoComplete="username" value={user} />
        {!form.hasCurrentPassword && (
          <label className="field">
            <span className="field-label">One-time password</span>
            <input
              type="password"
              autoComplete="current-password"
              required
              value={current}
              onChange={(e) => setCurrent(e.target.value)}
              data-testid="hub-password-current"
            />
          </label>
        )}
        <label className="field">
          <span className="field-label">New password</span>
          <input
            type="password"
            autoComplete="new-password"
            required
            value={next}
            onChange={(e) => setNext(e.target.value)}
            data-testid="hub-password-new"
          />
        </label>
        <label className="field">
          <span className="field-label">New password again</span>
          <input
            type="password"
            autoComplete="new-password"
            required
            value={repeat}
            onChange={(e) => setRepeat(e.target.value)}
            data-testid="hub-password-repeat"
          />
        </label>
        {form.error && (
          <ErrorNotice
            error={form.error}
            title="Password not changed"
            testId="hub-password-error"
          />
        )}
        <div className="form-actions">
          <button
            type="submit"
            className="btn btn-primary"
            disabled={form.busy}
            data-testid="hub-password-submit"
          >
            {form.busy ? 'Changing…' : 'Change password'}
          </button>
          <button
            type="button"
            className="btn btn-ghost"
            onClick={() => void useHubStore.getState().signOut()}
          >
            Sign out
          </button>
        </div>
      </form>
    </main>
  );
}
