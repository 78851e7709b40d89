// The hash routes of the UI: `#/` (library), `#/uploads` and `#/recording/<id>`.

/** A parsed route. */
export type Route = { page: 'library' } | { page: 'uploads' } | { page: 'recording'; id: string };

// Parses `location.hash` into a route; anything unknown is the library.
export function parseRoute(hash: string): Route {
  const path = hash.replace(/^#/, '');
  if (/^\/uploads\/?$/.test(path)) {
    return { page: 'uploads' };
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
  if (route.page === 'uploads') {
    return '#/uploads';
  }
  return route.page === 'recording' ? `#/recording/${encodeURIComponent(route.id)}` : '#/';
}
