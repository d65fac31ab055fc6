import { useEffect, useState } from 'preact/hooks';

/** A collection's tabs, after `#/collections/{name}/`. */
export type CollectionTab = 'points' | 'query' | 'map' | 'quality' | 'snapshots';
const TABS: readonly string[] = ['points', 'query', 'map', 'quality', 'snapshots'];

/** Hash routes, so that every page is served by `/dashboard` alone. `params`: what follows a `?` in the hash. */
export type Route =
  | { page: 'collections' }
  | { page: 'collection'; name: string }
  | { page: CollectionTab; name: string; params: URLSearchParams }
  | { page: 'point'; name: string; id: string }
  | { page: 'node-snapshots' }
  | { page: 'console' }
  | { page: 'cluster' }
  | { page: 'users' };

export function parseRoute(hash: string): Route {
  const [path, search = ''] = hash.replace(/^#\/?/, '').split('?', 2);
  const params = new URLSearchParams(search);
  const parts = path.split('/').map(safeDecode);
  if (parts[0] === 'cluster') return { page: 'cluster' };
  if (parts[0] === 'users') return { page: 'users' };
  if (parts[0] === 'console') return { page: 'console' };
  if (parts[0] === 'snapshots') return { page: 'node-snapshots' };
  if (parts[0] === 'collections' && parts[1]) {
    if (parts[2] === 'points' && parts[3]) return { page: 'point', name: parts[1], id: parts[3] };
    if (TABS.includes(parts[2])) return { page: parts[2] as CollectionTab, name: parts[1], params };
    return { page: 'collection', name: parts[1] };
  }
  return { page: 'collections' };
}

export const collectionHref = (name: string, tab?: CollectionTab, params?: Record<string, string>): string =>
  `#/collections/${encodeURIComponent(name)}${tab ? `/${tab}` : ''}${
    params && Object.keys(params).length > 0 ? `?${new URLSearchParams(params).toString()}` : ''
  }`;

export const pointHref = (name: string, id: unknown): string =>
  `#/collections/${encodeURIComponent(name)}/points/${encodeURIComponent(String(id))}`;

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
