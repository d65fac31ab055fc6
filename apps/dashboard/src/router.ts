import { useEffect, useState } from 'preact/hooks';

/** Hash routes, so that every page is served by `/dashboard` alone. */
export type Route =
  | { page: 'collections' }
  | { page: 'collection'; name: string }
  | { page: 'points'; name: string }
  | { page: 'query'; name: string }
  | { page: 'cluster' }
  | { page: 'users' };

export function parseRoute(hash: string): Route {
  const parts = hash.replace(/^#\/?/, '').split('/').map(safeDecode);
  if (parts[0] === 'cluster') return { page: 'cluster' };
  if (parts[0] === 'users') return { page: 'users' };
  if (parts[0] === 'collections' && parts[1]) {
    if (parts[2] === 'points') return { page: 'points', name: parts[1] };
    if (parts[2] === 'query') return { page: 'query', name: parts[1] };
    return { page: 'collection', name: parts[1] };
  }
  return { page: 'collections' };
}

export const collectionHref = (name: string, tab?: 'points' | 'query'): string =>
  `#/collections/${encodeURIComponent(name)}${tab ? `/${tab}` : ''}`;

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(location.hash));
  useEffect(() => {
    const update = (): void => setRoute(parseRoute(location.hash));
    addEventListener('hashchange', update);
    return () => removeEventListener('hashchange', update);
  }, []);
  return route;
}

function safeDecode(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}
