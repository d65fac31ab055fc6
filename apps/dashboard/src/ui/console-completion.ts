import { parseJson, stringifyJson } from '../api/http';
import type { ApiField, ApiRoute } from '../api/openapi';
import type { Json, Point } from '../api/types';

const segments = (path: string): string[] => path.split('?')[0].split('/').slice(1);
const isParam = (segment: string): boolean => /^\{.+\}$/.test(segment);

/**
 * Completions for a typed path: each route of `method` whose path the text begins (a `{param}` segment takes any
 * typed text), with what was typed for the parameters kept. The last typed segment may be a prefix.
 */
export function pathSuggestions(routes: ApiRoute[], method: string, typed: string): string[] {
  const want = segments(typed.startsWith('/') ? typed : `/${typed}`);
  const out = new Set<string>();
  for (const route of routes) {
    if (route.method !== method) continue;
    const have = segments(route.path);
    if (have.length < want.length) continue;
    let fits = true;
    const filled = have.map((segment, i) => {
      if (i >= want.length) return segment;
      const typedSegment = want[i];
      const last = i === want.length - 1;
      if (isParam(segment)) return typedSegment === '' && last ? segment : typedSegment;
      if (last ? !segment.startsWith(typedSegment) : segment !== typedSegment) fits = false;
      return segment;
    });
    if (fits) out.add(`/${filled.join('/')}`);
  }
  return [...out].sort();
}

/** The route a method and a concrete path reach, or undefined. */
export function routeOf(routes: ApiRoute[], method: string, path: string): ApiRoute | undefined {
  const want = segments(path);
  return routes.find((route) => {
    if (route.method !== method) return false;
    const have = segments(route.path);
    return have.length === want.length && have.every((s, i) => (isParam(s) ? want[i] !== '' : s === want[i]));
  });
}

/** A JSON object body as parsed, `{}` for an empty text, or undefined when the text is not an object. */
function bodyObject(text: string): Record<string, Json> | undefined {
  if (text.trim() === '') return {};
  try {
    const value = parseJson(text);
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, Json>) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The route's body fields not yet in the body, required ones first, then the fields of the object fields the body
 * already has (`params.hnsw_ef` once there is a `"params": {}`), named with a dot.
 */
export function fieldSuggestions(route: ApiRoute | undefined, bodyText: string): ApiField[] {
  if (!route) return [];
  const present = bodyObject(bodyText) ?? {};
  const missing = route.fields.filter((f) => !(f.name in present));
  const inner = route.fields.flatMap((f) => {
    const value = present[f.name];
    if (!f.fields || !value || typeof value !== 'object' || Array.isArray(value)) return [];
    return f.fields.filter((sub) => !(sub.name in value)).map((sub) => ({ ...sub, name: `${f.name}.${sub.name}` }));
  });
  return [
    ...missing.filter((f) => route.required.includes(f.name)),
    ...missing.filter((f) => !route.required.includes(f.name)),
    ...inner,
  ];
}

const PLACEHOLDER: Record<string, Json> = { integer: 10, number: 0, string: '', boolean: true, array: [], object: {} };

/**
 * The body with `field` added (a placeholder of its first type; a dotted name goes inside its object), indented;
 * undefined when the body is not an object.
 */
export function withField(bodyText: string, field: ApiField): string | undefined {
  const body = bodyObject(bodyText);
  if (!body) return undefined;
  const value = PLACEHOLDER[field.types[0]] ?? null;
  const [parent, child] = field.name.split('.', 2);
  if (child === undefined) return stringifyJson({ ...body, [field.name]: value }, 2);
  const inside = body[parent];
  if (!inside || typeof inside !== 'object' || Array.isArray(inside)) return undefined;
  return stringifyJson({ ...body, [parent]: { ...inside, [child]: value } }, 2);
}

/** Points in an answer (`{points: […]}` of query and scroll, or a list of records), for the table view. */
export function pointsOf(result: unknown): Point[] | undefined {
  const list = Array.isArray(result) ? result : (result as { points?: unknown } | null)?.points;
  if (!Array.isArray(list) || list.length === 0) return undefined;
  return list.every((p) => p && typeof p === 'object' && 'id' in (p as object)) ? (list as Point[]) : undefined;
}

export interface HistoryEntry {
  method: string;
  path: string;
  body: string;
}

const HISTORY_KEY = 'vectorstore.console.history';
const HISTORY_SIZE = 30;

/** The console's past requests, newest first, kept in this browser (no credential is ever stored). */
export function loadHistory(storage: Pick<Storage, 'getItem'> = localStorage): HistoryEntry[] {
  try {
    const list = JSON.parse(storage.getItem(HISTORY_KEY) ?? '[]') as unknown;
    return Array.isArray(list) ? (list as HistoryEntry[]).filter((e) => typeof e?.path === 'string') : [];
  } catch {
    return [];
  }
}

export function remember(
  entry: HistoryEntry,
  storage: Pick<Storage, 'getItem' | 'setItem'> = localStorage,
): HistoryEntry[] {
  const same = (e: HistoryEntry): boolean =>
    e.method === entry.method && e.path === entry.path && e.body === entry.body;
  const list = [entry, ...loadHistory(storage).filter((e) => !same(e))].slice(0, HISTORY_SIZE);
  storage.setItem(HISTORY_KEY, JSON.stringify(list));
  return list;
}
