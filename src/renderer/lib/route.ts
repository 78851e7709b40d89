// The hash routes of the UI: `#/` (library), `#/uploads`, `#/recording/<id>`, and the desktop
// pages `#/record`, `#/health`, `#/settings` and `#/hud` (the desktop app's compact HUD window),
// and `#/team` (sign-in to a team hub, My submissions, the review queue).

/** Pages without parameters, by their path (`#/<name>`). */
const SIMPLE_PAGES = ['uploads', 'record', 'health', 'settings', 'hud', 'team'] as const;
/** One of {@link SIMPLE_PAGES}. */
type SimplePage = (typeof SIMPLE_PAGES)[number];

/** A parsed route. */
export type Route = { page: 'library' } | { page: SimplePage } | { page: 'recording'; id: string };

// Parses `location.hash` into a route; anything unknown is the library.
export function parseRoute(hash: string): Route {
  const path = hash.replace(/^#/, '');
  const simple = /^\/([a-z]+)\/?$/.exec(path)?.[1];
  const page = SIMPLE_PAGES.find((p) => p === simple);
  if (page) {
    return { page };
  }
  const m = /^\/recording\/([^/?#]+)\/?$/.exec(path);
  if (m?.[1]) {
    try {
      return { page: 'recording', id: decodeURIComponent(m[1]) };
    } catch {
      return { page: 'library' };
    }
  }
  return { page: 'library' };
}

// The hash of a route (`#/recording/<id>`).
export function routeHash(route: Route): string {
  if (route.page === 'recording') {
    return `#/recording/${encodeURIComponent(route.id)}`;
  }
  return route.page === 'library' ? '#/' : `#/${route.page}`;
}
