// Team (admins): people with their roles (add, change roles, new one-time password, remove),
// the admin's own API tokens (list, create, revoke) and the audit log, newest first, paged and
// filtered by actor and action (docs/team-mode.md §15).
import { useEffect, useState, type FormEvent } from 'react';
import { ErrorNotice } from '../../../components/ErrorNotice';
import { formatDateTime } from '../../../lib/time';
import { HUB_ROLES, type HubRole } from '../../../../shared/contract/hub';
import { useHubStore, type HubUserRow } from '../../../store/hub';

// Role checkboxes (one fieldset, so the group has a name for screen readers).
function RolePicker({
  legend,
  roles,
  onChange,
  idPrefix,
}: {
  legend: string;
  roles: HubRole[];
  onChange: (roles: HubRole[]) => void;
  idPrefix: string;
}) {
  return (
    <fieldset className="hub-roles">
      <legend className="field-label">{legend}</legend>
      {HUB_ROLES.map((role) => (
        <label key={role} className="field-inline">
          <input
            type="checkbox"
            checked={roles.includes(role)}
            onChange={(e) =>
              onChange(
                e.target.checked
                  ? HUB_ROLES.filter((r) => r === role || roles.includes(r))
                  : roles.filter((r) => r !== role),
              )
            }
            data-testid={`${idPrefix}-${role}`}
          />
          {role}
        </label>
      ))}
    </fieldset>
  );
}

// One person's row: roles to edit, a new one-time password, removal (confirmed inline).
function PersonRow({ person, me }: { person: HubUserRow; me: string }) {
  const busy = useHubStore((s) => s.teamBusy);
  const [roles, setRoles] = useState<HubRole[]>(person.roles);
  const [confirming, setConfirming] = useState(false);
  const removed = person.removedAtMs !== null;
  const changed = roles.join() !== person.roles.join();
  const { setRoles: saveRoles, resetPassword, removeUser } = useHubStore.getState();
  return (
    <tr data-testid={`hub-person-${person.user}`} className={removed ? 'is-removed' : undefined}>
      <th scope="row" className="mono">
        {person.user}
        {person.user === me && <span className="muted"> (you)</span>}
      </th>
      <td data-testid="hub-person-roles">
        {removed ? (
          <span className="muted">removed {formatDateTime(person.removedAtMs ?? 0)}</span>
        ) : (
          <RolePicker
            legend={`Roles of ${person.user}`}
            roles={roles}
            onChange={setRoles}
            idPrefix={`hub-person-${person.user}-role`}
          />
        )}
      </td>
      <td>{person.mustChangePassword && !removed ? 'one-time password' : '—'}</td>
      <td>{formatDateTime(person.createdAtMs)}</td>
      <td className="hub-actions">
        {!removed && (
          <>
            <button
              type="button"
              className="btn btn-small"
              disabled={busy || !changed || roles.length === 0}
              onClick={() => void saveRoles(person.user, roles)}
              data-testid={`hub-person-${person.user}-save`}
            >
              Save roles
            </button>
            <button
              type="button"
              className="btn btn-small"
              disabled={busy}
              onClick={() => void resetPassword(person.user)}
              data-testid={`hub-person-${person.user}-reset`}
            >
              New one-time password
            </button>
            {confirming ? (
              <>
                <button
                  type="button"
                  className="btn btn-small btn-danger"
                  disabled={busy}
                  onClick={() => {
                    setConfirming(false);
                    void removeUser(person.user);
                  }}
                  data-testid={`hub-person-${person.user}-confirm-remove`}
                >
                  Remove {person.user} for good
                </button>
                <button
                  type="button"
                  className="btn btn-small btn-ghost"
                  onClick={() => setConfirming(false)}
                >
                  Keep
                </button>
              </>
            ) : (
              <button
                type="button"
                className="btn btn-small btn-ghost"
                disabled={busy}
                onClick={() => setConfirming(true)}
                data-testid={`hub-person-${person.user}-remove`}
              >
                Remove…
              </button>
            )}
          </>
        )}
      </td>
    </tr>
  );
}

function PeopleSection({ me }: { me: string }) {
  const users = useHubStore((s) => s.users);
  const busy = useHubStore((s) => s.teamBusy);
  const [name, setName] = useState('');
  const [roles, setRoles] = useState<HubRole[]>(['annotator']);
  const onAdd = (e: FormEvent) => {
    e.preventDefault();
    void (async () => {
      if (await useHubStore.getState().addUser(name, roles)) {
        setName('');
      }
    })();
  };
  const rows = users.data ?? [];
  return (
    <section aria-labelledby="hub-people-title" className="hub-section">
      <h2 id="hub-people-title">
        People{' '}
        <span className="muted" data-testid="hub-people-count">
          ({rows.filter((u) => u.removedAtMs === null).length})
        </span>
      </h2>
      {users.error && <ErrorNotice error={users.error} testId="hub-people-error" />}
      <table className="hub-table" aria-label="People">
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Roles</th>
            <th scope="col">Password</th>
            <th scope="col">Added</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((u) => (
            // keyed by the roles too: a saved change starts the row afresh
            <PersonRow key={`${u.user}:${u.roles.join()}`} person={u} me={me} />
          ))}
        </tbody>
      </table>
      <form className="hub-form hub-form-inline" onSubmit={onAdd} aria-label="Add a person">
        <label className="field">
          <span className="field-label">New person’s name</span>
          <input
            required
            autoCapitalize="none"
            spellCheck={false}
            pattern="[a-z0-9][a-z0-9._\-]*"
            title="lower-case letters, digits, '.', '_' and '-', starting with a letter or digit"
            value={name}
            onChange={(e) => setName(e.target.value)}
            data-testid="hub-add-name"
          />
        </label>
        <RolePicker legend="Roles" roles={roles} onChange={setRoles} idPrefix="hub-add-role" />
        <button
          type="submit"
          className="btn btn-primary"
          disabled={busy || roles.length === 0}
          data-testid="hub-add-submit"
        >
          Add person
        </button>
      </form>
    </section>
  );
}

function TokensSection() {
  const tokens = useHubStore((s) => s.tokens);
  const busy = useHubStore((s) => s.teamBusy);
  const [name, setName] = useState('');
  const onCreate = (e: FormEvent) => {
    e.preventDefault();
    void (async () => {
      if (await useHubStore.getState().createToken(name)) {
        setName('');
      }
    })();
  };
  const rows = tokens.data ?? [];
  return (
    <section aria-labelledby="hub-tokens-title" className="hub-section">
      <h2 id="hub-tokens-title">My API tokens</h2>
      <p className="muted">
        For scripts and other machines: send it as <code>Authorization: Bearer …</code>. The app and
        the CLI make their own when you sign in there.
      </p>
      {tokens.error && <ErrorNotice error={tokens.error} testId="hub-tokens-error" />}
      {rows.length > 0 && (
        <table className="hub-table" aria-label="My API tokens">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Created</th>
              <th scope="col">Last used</th>
              <th scope="col">State</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((t) => (
              <tr key={t.id} data-testid={`hub-token-${t.name}`}>
                <td>{t.name}</td>
                <td>{formatDateTime(t.createdAtMs)}</td>
                <td>{t.lastUsedAtMs === null ? 'never' : formatDateTime(t.lastUsedAtMs)}</td>
                <td data-testid="hub-token-state">
                  {t.revokedAtMs === null ? 'active' : `revoked ${formatDateTime(t.revokedAtMs)}`}
                </td>
                <td>
                  {t.revokedAtMs === null && (
                    <button
                      type="button"
                      className="btn btn-small btn-ghost"
                      disabled={busy}
                      onClick={() => void useHubStore.getState().revokeToken(t.id)}
                      data-testid={`hub-token-${t.name}-revoke`}
                    >
                      Revoke
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <form className="hub-form hub-form-inline" onSubmit={onCreate} aria-label="Create a token">
        <label className="field">
          <span className="field-label">Token name</span>
          <input
            required
            maxLength={100}
            value={name}
            onChange={(e) => setName(e.target.value)}
            data-testid="hub-token-name"
          />
        </label>
        <button type="submit" className="btn" disabled={busy} data-testid="hub-token-create">
          Create token
        </button>
      </form>
    </section>
  );
}

function AuditSection() {
  const audit = useHubStore((s) => s.audit);
  const [actor, setActor] = useState(audit.filter.actor);
  const [action, setAction] = useState(audit.filter.action);
  const { loadAudit, setAuditFilter } = useHubStore.getState();
  const onFilter = (e: FormEvent) => {
    e.preventDefault();
    void setAuditFilter({ actor, action });
  };
  const rows = audit.data ?? [];
  const page = audit.cursors.length;
  return (
    <section aria-labelledby="hub-audit-title" className="hub-section">
      <h2 id="hub-audit-title">Audit log</h2>
      <form
        className="hub-form hub-form-inline"
        onSubmit={onFilter}
        aria-label="Filter the audit log"
      >
        <label className="field">
          <span className="field-label">Actor</span>
          <input
            value={actor}
            placeholder="a name"
            onChange={(e) => setActor(e.target.value)}
            data-testid="hub-audit-actor"
          />
        </label>
        <label className="field">
          <span className="field-label">Action</span>
          <input
            value={action}
            placeholder="user.add, or user"
            onChange={(e) => setAction(e.target.value)}
            data-testid="hub-audit-action"
          />
        </label>
        <button type="submit" className="btn" data-testid="hub-audit-filter">
          Filter
        </button>
      </form>
      {audit.error && <ErrorNotice error={audit.error} testId="hub-audit-error" />}
      <table className="hub-table" aria-label="Audit log" data-testid="hub-audit-table">
        <thead>
          <tr>
            <th scope="col">When</th>
            <th scope="col">Actor</th>
            <th scope="col">Action</th>
            <th scope="col">Target</th>
            <th scope="col">Client</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((e) => (
            <tr key={e.id} data-testid="hub-audit-row">
              <td>{formatDateTime(e.atMs)}</td>
              <td data-testid="hub-audit-row-actor">{e.actor}</td>
              <td className="mono" data-testid="hub-audit-row-action">
                {e.action}
              </td>
              <td className="mono">{e.target ?? '—'}</td>
              <td>{e.client}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {audit.status === 'ready' && rows.length === 0 && (
        <p className="muted">
          No entries{audit.filter.actor || audit.filter.action ? ' match' : ''}.
        </p>
      )}
      <nav className="toolbar" aria-label="Audit log pages">
        <button
          type="button"
          className="btn btn-small"
          disabled={page <= 1 || audit.status === 'loading'}
          onClick={() => void loadAudit('newer')}
          data-testid="hub-audit-newer"
        >
          Newer
        </button>
        <span className="muted" data-testid="hub-audit-page">
          Page {page}
        </span>
        <button
          type="button"
          className="btn btn-small"
          disabled={!audit.hasOlder || audit.status === 'loading'}
          onClick={() => void loadAudit('older')}
          data-testid="hub-audit-older"
        >
          Older
        </button>
      </nav>
    </section>
  );
}

// The page.
export function TeamPage({ me }: { me: string }) {
  const secret = useHubStore((s) => s.secret);
  const teamError = useHubStore((s) => s.teamError);
  const teamNotice = useHubStore((s) => s.teamNotice);
  useEffect(() => {
    const s = useHubStore.getState();
    void Promise.all([s.loadUsers(), s.loadTokens(), s.loadAudit('newest')]);
  }, []);
  const { dismissSecret, dismissTeamMessage } = useHubStore.getState();
  return (
    <main className="page hub-page" data-testid="hub-team">
      <header className="page-head">
        <div>
          <h1>Team</h1>
          <p className="muted">People and their roles, your API tokens, and every change made.</p>
        </div>
      </header>
      {secret && (
        <div className="notice notice-warn hub-secret" role="alert" data-testid="hub-secret">
          <p>
            <strong>{secret.label}</strong> — shown this once; copy it now
            {secret.kind === 'password'
              ? ' and hand it over privately. They choose their own at the first sign-in.'
              : '. The hub keeps only its hash.'}
          </p>
          <code className="hub-secret-value" data-testid="hub-secret-value">
            {secret.value}
          </code>
          <button type="button" className="btn btn-small" onClick={dismissSecret}>
            Done, hide it
          </button>
        </div>
      )}
      {teamError && (
        <ErrorNotice
          error={teamError}
          title="Not changed"
          testId="hub-team-error"
          onDismiss={dismissTeamMessage}
        />
      )}
      {teamNotice && !teamError && (
        <p className="notice notice-good" role="status" data-testid="hub-team-notice">
          {teamNotice}
        </p>
      )}
      <PeopleSection me={me} />
      <TokensSection />
      <AuditSection />
    </main>
  );
}
