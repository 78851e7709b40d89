// The app shell: a header and a tiny hash router (`#/` library, `#/uploads`, `#/recording/<id>`,
// `#/record`, `#/health`, `#/settings`; `#/hud` is the desktop app's HUD window, without the header).
import { Component, useEffect, type ReactNode } from 'react';
import { useHashRoute } from './hooks/use-hash-route';
import { HealthPage } from './pages/HealthPage';
import { HudPage } from './pages/HudPage';
import { LibraryPage } from './pages/LibraryPage';
import { RecordPage } from './pages/RecordPage';
import { RecordingPage } from './pages/RecordingPage';
import { SettingsPage } from './pages/SettingsPage';
import { UploadsPage } from './pages/UploadsPage';
import { TeamPage } from './pages/team/TeamPage';
import type { Route } from './lib/route';
import { CheckGateDialog } from './components/CheckGateDialog';
import { UploadDialog } from './components/UploadDialog';
import { useUploadsStore } from './store/uploads';

class ErrorBoundary extends Component<{ children: ReactNode }, { error: Error | null }> {
  override state: { error: Error | null } = { error: null };
  static getDerivedStateFromError(error: Error) {
    return { error };
  }
  override render() {
    if (this.state.error) {
      return (
        <div className="page">
          <div className="notice notice-bad" role="alert">
            Something broke while drawing this page: {this.state.error.message}
            <button
              type="button"
              className="btn btn-small"
              onClick={() => window.location.reload()}
            >
              Reload
            </button>
          </div>
        </div>
      );
    }
    return this.props.children;
  }
}

/** The header's links to pages without parameters. */
const NAV_LINKS = [
  { page: 'record', label: 'Record' },
  { page: 'uploads', label: 'Uploads' },
  { page: 'team', label: 'Team' },
  { page: 'health', label: 'Health' },
  { page: 'settings', label: 'Settings' },
] as const satisfies readonly { page: Route['page']; label: string }[];

// The page of a route.
function PageOf({ route }: { route: Route }) {
  switch (route.page) {
    case 'recording':
      return <RecordingPage id={route.id} />;
    case 'uploads':
      return <UploadsPage />;
    case 'record':
      return <RecordPage />;
    case 'health':
      return <HealthPage />;
    case 'settings':
      return <SettingsPage />;
    case 'team':
      return <TeamPage />;
    case 'hud':
      return <HudPage />;
    case 'library':
      return <LibraryPage />;
  }
}

// The root component.
export function App() {
  const route = useHashRoute();
  const routeKey = route.page === 'recording' ? `recording:${route.id}` : route.page;
  // a dialog belongs to the page it was opened on: going elsewhere (e.g. the Uploads page from
  // its "started" notice) closes it
  useEffect(() => {
    const { dialog, closeDialog } = useUploadsStore.getState();
    if (dialog.open && dialog.status !== 'starting') {
      closeDialog();
    }
  }, [routeKey]);
  if (route.page === 'hud') {
    return (
      <ErrorBoundary key="hud">
        <HudPage />
      </ErrorBoundary>
    );
  }
  return (
    <div className="app">
      <nav className="app-bar">
        <a href="#/" className="brand">
          <span className="brand-mark" aria-hidden="true">
            ◉
          </span>
          cua-annotator
        </a>
        <span className="app-bar-sub">Review</span>
        {NAV_LINKS.map((link) => (
          <a
            key={link.page}
            href={`#/${link.page}`}
            className={`app-bar-link${route.page === link.page ? ' is-active' : ''}`}
            aria-current={route.page === link.page ? 'page' : undefined}
            data-testid={`nav-${link.page}`}
          >
            {link.label}
          </a>
        ))}
      </nav>
      <ErrorBoundary key={route.page === 'recording' ? route.id : route.page}>
        <PageOf route={route} />
      </ErrorBoundary>
      <UploadDialog />
      <CheckGateDialog />
    </div>
  );
}
