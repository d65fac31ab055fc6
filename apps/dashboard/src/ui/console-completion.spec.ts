import type { ApiRoute } from '../api/openapi';
import {
  fieldSuggestions,
  loadHistory,
  pathSuggestions,
  pointsOf,
  remember,
  routeOf,
  withField,
} from './console-completion';

const route = (method: string, path: string, fields: string[] = [], required: string[] = []): ApiRoute => ({
  method,
  path,
  access: 'read',
  fields: fields.map((name) => ({ name, types: [name === 'limit' ? 'integer' : 'object'] })),
  required,
});
const ROUTES = [
  route('POST', '/collections/{collection_name}/points/query', ['query', 'filter', 'limit']),
  route('POST', '/collections/{collection_name}/points/query/groups'),
  route('POST', '/collections/{collection_name}/points', ['ids'], ['ids']),
  route('GET', '/collections/{collection_name}'),
  route('GET', '/collections'),
];

describe('console completion', () => {
  it('should complete paths segment by segment, keeping typed parameters', () => {
    expect(pathSuggestions(ROUTES, 'POST', '/collections/docs/points/q')).toEqual([
      '/collections/docs/points/query',
      '/collections/docs/points/query/groups',
    ]);
    expect(pathSuggestions(ROUTES, 'GET', '/coll')).toEqual(['/collections', '/collections/{collection_name}']);
    expect(pathSuggestions(ROUTES, 'GET', '/collections/')).toEqual(['/collections/{collection_name}']);
    expect(pathSuggestions(ROUTES, 'DELETE', '/collections')).toEqual([]);
  });

  it('should find the route of a concrete path', () => {
    expect(routeOf(ROUTES, 'POST', '/collections/a/points/query?timeout=3')?.path).toBe(
      '/collections/{collection_name}/points/query',
    );
    expect(routeOf(ROUTES, 'POST', '/collections//points/query')).toBeUndefined();
  });

  it('should offer missing body fields, required first, and add one', () => {
    expect(fieldSuggestions(ROUTES[0], '{"query": [1]}').map((f) => f.name)).toEqual(['filter', 'limit']);
    expect(fieldSuggestions(ROUTES[2], '').map((f) => f.name)).toEqual(['ids']);
    expect(withField('{"query": [1]}', { name: 'limit', types: ['integer'] })).toBe(
      '{\n  "query": [\n    1\n  ],\n  "limit": 10\n}',
    );
    expect(withField('[1]', { name: 'limit', types: ['integer'] })).toBeUndefined();
  });

  it('should offer and add the fields of an object field the body has', () => {
    const withParams: ApiRoute = {
      ...ROUTES[0],
      fields: [
        {
          name: 'params',
          types: ['object'],
          fields: [
            { name: 'hnsw_ef', types: ['integer'] },
            { name: 'exact', types: ['boolean'] },
          ],
        },
      ],
    };
    expect(fieldSuggestions(withParams, '{}').map((f) => f.name)).toEqual(['params']);
    expect(fieldSuggestions(withParams, '{"params": {"exact": true}}').map((f) => f.name)).toEqual(['params.hnsw_ef']);
    expect(
      JSON.parse(withField('{"params": {"exact": true}}', { name: 'params.hnsw_ef', types: ['integer'] }) ?? ''),
    ).toEqual({
      params: { exact: true, hnsw_ef: 10 },
    });
  });

  it('should find points in query, scroll and retrieve answers', () => {
    expect(pointsOf({ points: [{ id: 1 }] })).toEqual([{ id: 1 }]);
    expect(pointsOf([{ id: 2, payload: {} }])).toEqual([{ id: 2, payload: {} }]);
    expect(pointsOf({ count: 3 })).toBeUndefined();
    expect(pointsOf([{ name: 'x' }])).toBeUndefined();
  });

  it('should keep a bounded history, newest first, without duplicates', () => {
    const store = new Map<string, string>();
    const storage = {
      getItem: (k: string) => store.get(k) ?? null,
      setItem: (k: string, v: string) => store.set(k, v),
    };
    remember({ method: 'GET', path: '/a', body: '' }, storage);
    remember({ method: 'GET', path: '/b', body: '' }, storage);
    remember({ method: 'GET', path: '/a', body: '' }, storage);
    expect(loadHistory(storage).map((e) => e.path)).toEqual(['/a', '/b']);
    for (let i = 0; i < 40; i++) remember({ method: 'GET', path: `/${i}`, body: '' }, storage);
    expect(loadHistory(storage)).toHaveLength(30);
    store.set('vectorstore.console.history', 'not json');
    expect(loadHistory(storage)).toEqual([]);
  });
});
