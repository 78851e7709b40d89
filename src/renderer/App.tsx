// The app shell: a header and a tiny hash router (`#/` library, `#/uploads`, `#/recording/<id>`).
import { Component, useEffect, type ReactNode } from 'react';
import { useHashRoute } from './hooks/use-hash-route';
import { LibraryPage } from './pages/LibraryPage';
import { RecordingPage } from './pages/RecordingPage';
import { UploadsPage } from './pages/UploadsPage';
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
        <a
          href="#/uploads"
          className={`app-bar-link${route.page === 'uploads' ? ' is-active' : ''}`}
          data-testid="nav-uploads"
        >
          Uploads
        </a>
      </nav>
      <ErrorBoundary key={route.page === 'recording' ? route.id : route.page}>
        {route.page === 'recording' ? (
          <RecordingPage id={route.id} />
        ) : route.page === 'uploads' ? (
          <UploadsPage />
        ) : (
          <LibraryPage />
        )}
      </ErrorBoundary>
      <UploadDialog />
    </div>
  );
}
