// The current hash route, re-rendering on `hashchange`.
import { useMemo, useSyncExternalStore } from 'react';
import { parseRoute, type Route } from '../lib/route';

function subscribe(onChange: () => void): () => void {
  window.addEventListener('hashchange', onChange);
  return () => window.removeEventListener('hashchange', onChange);
}

function snapshot(): string {
  return window.location.hash;
}

// The parsed route of `location.hash`.
export function useHashRoute(): Route {
  const hash = useSyncExternalStore(subscribe, snapshot, () => '');
  return useMemo(() => parseRoute(hash), [hash]);
}
