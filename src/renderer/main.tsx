// Renderer entry: starts the first page's data request, then mounts the app.
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App';
import { getHubClient, isHubPage } from './api/hub-client';
import { parseRoute } from './lib/route';
import { prefetchDashboard } from './pages/team/hub/DashboardPage';
import { HubApp } from './pages/team/hub/HubApp';
import { useHubStore } from './store/hub';
import { useLibraryStore } from './store/library';
import { useReviewStore } from './store/review';
import './styles.css';

// a page served by a team hub shows only the hub's pages (docs/team-mode.md §15)
const onHub = isHubPage();
// The data of the page opened first is requested before React mounts, so the answer travels
// while the app renders; the page's own load then sees the request in flight and waits for it.
const first = parseRoute(window.location.hash);
if (onHub) {
  // who is signed in is asked now (the shell's own check on mount takes this answer); the
  // pages load their data once signed in, but the Dashboard's figures (the slowest answer) are
  // asked for now too
  void useHubStore.getState().check();
  if (window.location.hash === '#/dashboard') {
    prefetchDashboard(getHubClient().call);
  }
} else if (first.page === 'recording') {
  void useReviewStore.getState().open(first.id);
} else if (first.page === 'library') {
  void useLibraryStore.getState().prefetch();
}

const container = document.getElementById('root');
if (container) {
  createRoot(container).render(<StrictMode>{onHub ? <HubApp /> : <App />}</StrictMode>);
}
