// The web pages a team hub serves (docs/team-mode.md §15): sign-in, then a nav by role —
// My submissions (annotator), Review queue (reviewer), Team (admin); a person may hold several —
// and sign-out. src/renderer/main.tsx mounts this instead of the app when the hub marked the page.
import { useEffect, useSyncExternalStore } from 'react';
import type { HubRole } from '../../../../shared/contract/hub';
import { getHubClient } from '../../../api/hub-client';
import { hubSelectors, useHubStore, type HubPage } from '../../../store/hub';
import { DashboardPage } from './DashboardPage';
import { MySubmissionsPage } from './MySubmissionsPage';
import { ReviewQueuePage } from './ReviewQueuePage';
import { ChangePasswordPage, SignInPage } from './SignInPage';
import { TasksPage } from './TasksPage';
import { TeamPage } from './TeamPage';
import './hub-pages.css';

function subscribeHash(onChange: () => void): () => void {
  window.addEventListener('hashchange', onChange);
  return () => window.removeEventListener('hashchange', onChange);
}

function PageOf({ page, me, roles }: { page: HubPage; me: string; roles: readonly HubRole[] }) {
  switch (page) {
    case 'submissions':
      return <MySubmissionsPage />;
    case 'review':
      return <ReviewQueuePage />;
    case 'team':
      return <TeamPage me={me} />;
    case 'tasks':
      return <TasksPage call={getHubClient().call} roles={roles} />;
    case 'dashboard':
      return <DashboardPage call={getHubClient().call} />;
  }
}

// The hub's page shell.
export function HubApp() {
  const session = useHubStore((s) => s.session);
  const hash = useSyncExternalStore(
    subscribeHash,
    () => window.location.hash,
    () => '',
  );
  useEffect(() => {
    document.title = 'cua-annotator · Team hub';
    void useHubStore.getState().check();
  }, []);
  const pages = hubSelectors.pages({ session });
  const page = hubSelectors.pageOf({ session }, hash);
  // the address names the page shown, so a change of my roles does not move me elsewhere
  useEffect(() => {
    if (page && hash !== `#/${page}`) {
      window.location.replace(`#/${page}`);
    }
  }, [page, hash]);

  return (
    <div className="app hub-app">
      <nav className="app-bar" aria-label="Hub pages">
        <span className="brand">
          <span className="brand-mark" aria-hidden="true">
            ◉
          </span>
          cua-annotator
        </span>
        <span className="app-bar-sub">Team hub</span>
        {pages.map((p) => (
          <a
            key={p.page}
            href={`#/${p.page}`}
            className={`app-bar-link${page === p.page ? ' is-active' : ''}`}
            aria-current={page === p.page ? 'page' : undefined}
            data-testid={`hub-nav-${p.page}`}
          >
            {p.label}
          </a>
        ))}
        <span className="spacer" />
        {(session.phase === 'signed-in' || session.phase === 'must-change') && (
          <>
            <span className="app-bar-sub" data-testid="hub-me">
              {session.user}
              {session.phase === 'signed-in' && ` · ${session.roles.join(', ')}`}
            </span>
            <button
              type="button"
              className="btn btn-small"
              onClick={() => void useHubStore.getState().signOut()}
              data-testid="hub-sign-out"
            >
              Sign out
            </button>
          </>
        )}
      </nav>
      {session.phase === 'checking' && (
        <main className="page">
          <p className="muted">Checking your sign-in…</p>
        </main>
      )}
      {session.phase === 'signed-out' && <SignInPage />}
      {session.phase === 'must-change' && <ChangePasswordPage user={session.user} />}
      {session.phase === 'signed-in' &&
        (page ? (
          <PageOf key={page} page={page} me={session.user} roles={session.roles} />
        ) : (
          <main className="page" data-testid="hub-no-roles">
            <p>
              Your account holds no role yet: ask the hub’s admin for annotator, reviewer or admin.
            </p>
          </main>
        ))}
    </div>
  );
}
