import { useEffect, useState } from 'react';

export type Route = { name: 'runs' } | { name: 'run'; runId: string } | { name: 'replay'; runId?: string } | { name: 'settings' };

/** Screens live in the URL's hash (the token stays in the query): #/runs, #/run/ID, #/replay/ID, #/settings. */
function parseRoute(hash: string): Route {
  const [name, id] = hash.replace(/^#\/?/, '').split('/');
  const runId = id ? decodeURIComponent(id) : undefined;
  if (name === 'run' && runId) return { name: 'run', runId };
  if (name === 'replay') return runId ? { name: 'replay', runId } : { name: 'replay' };
  if (name === 'settings') return { name: 'settings' };
  return { name: 'runs' };
}

export function href(route: Route): string {
  switch (route.name) {
    case 'runs':
      return '#/runs';
    case 'run':
      return `#/run/${encodeURIComponent(route.runId)}`;
    case 'replay':
      return route.runId ? `#/replay/${encodeURIComponent(route.runId)}` : '#/replay';
    case 'settings':
      return '#/settings';
  }
}

export function go(route: Route): void {
  window.location.hash = href(route);
}

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(window.location.hash));
  useEffect(() => {
    const onChange = () => setRoute(parseRoute(window.location.hash));
    window.addEventListener('hashchange', onChange);
    return () => window.removeEventListener('hashchange', onChange);
  }, []);
  return route;
}
