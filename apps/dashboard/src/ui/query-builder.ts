import { parseJson } from '../api/http';
import type { Json } from '../api/types';
import { parseFilter, parsePointId } from './parse';

/** The Query API's forms the console offers (`query` of `POST /collections/{c}/points/query`). */
export type QueryMode = 'nearest' | 'recommend' | 'discover' | 'context' | 'fusion';
export const QUERY_MODES: readonly { mode: QueryMode; label: string }[] = [
  { mode: 'nearest', label: 'Nearest' },
  { mode: 'recommend', label: 'Recommend' },
  { mode: 'discover', label: 'Discover' },
  { mode: 'context', label: 'Context' },
  { mode: 'fusion', label: 'Prefetch + fusion' },
];

/** The query console's inputs, as typed. */
export interface QueryForm {
  mode: QueryMode;
  /** Nearest: the input is a point id or a vector. */
  by: 'id' | 'vector';
  input: string;
  positive: string;
  negative: string;
  strategy: string;
  target: string;
  context: string;
  prefetch: string;
  fusion: 'rrf' | 'dbsf';
  using: string;
  limit: string;
  filter: string;
  exact: boolean;
  hnswEf: string;
  scoreThreshold: string;
  withVectors: boolean;
  withPayload: boolean;
  groupBy: string;
  groupSize: string;
}

export const EMPTY_QUERY: QueryForm = {
  mode: 'nearest',
  by: 'vector',
  input: '',
  positive: '',
  negative: '',
  strategy: '',
  target: '',
  context: '',
  prefetch: '',
  fusion: 'rrf',
  using: '',
  limit: '10',
  filter: '',
  exact: false,
  hnswEf: '',
  scoreThreshold: '',
  withVectors: true,
  withPayload: true,
  groupBy: '',
  groupSize: '3',
};

export type Built = { path: 'query' | 'query/groups'; body: Record<string, Json> } | { errors: Record<string, string> };

const VECTOR_HINT =
  'A vector: a JSON array of numbers, {"indices": […], "values": […]} (sparse) or an array of arrays (multivector)';

/** A vector input: a point id, or a dense, sparse or multi vector in JSON. */
export function parseVectorInput(text: string): { value?: Json; error?: string } {
  const trimmed = text.trim();
  if (trimmed === '') return { error: 'Required: a point id or a vector' };
  if (/^\d+$/.test(trimmed) || /^[0-9a-f-]{32,36}$/i.test(trimmed)) {
    const { id, error } = parsePointId(trimmed);
    return error ? { error } : { value: id as Json };
  }
  try {
    const value = parseJson(trimmed) as Json;
    if (Array.isArray(value) && value.length > 0) {
      if (value.every((x) => typeof x === 'number')) return { value };
      if (value.every((row) => Array.isArray(row) && row.every((x) => typeof x === 'number'))) return { value };
    }
    if (value && typeof value === 'object' && !Array.isArray(value) && 'indices' in value && 'values' in value)
      return { value };
  } catch {
    // reported below
  }
  return { error: VECTOR_HINT };
}

/**
 * Several inputs (recommend's positive and negative examples): a JSON array (`[1, 2]` of whole numbers is two point
 * ids, as in Qdrant's examples; `[0.1, 0.9]` one vector; `[[0.1, 0.9], 7]` a vector and an id), or ids and vectors
 * separated by `;` or new lines (ids alone may be separated by commas).
 */
export function parseVectorInputs(text: string): { values?: Json[]; error?: string } {
  const trimmed = text.trim();
  if (trimmed === '') return { values: [] };
  if (trimmed.startsWith('[')) {
    try {
      const list = parseJson(trimmed);
      if (Array.isArray(list)) {
        const numbers = list.every((x) => typeof x === 'number' || typeof x === 'bigint');
        if (!numbers) return { values: list as Json[] };
        const ids = list.every((x) => typeof x === 'bigint' || Number.isInteger(x));
        return { values: ids ? (list as Json[]) : [list as Json[]] };
      }
    } catch {
      // the separated form below
    }
  }
  const parts = /^[\d\s,]+$/.test(trimmed) ? trimmed.split(',') : trimmed.split(/[;\n]/);
  const values: Json[] = [];
  for (const part of parts.map((p) => p.trim())) {
    if (part === '') continue;
    const parsed = parseVectorInput(part);
    if (parsed.error) return { error: `${part}: ${parsed.error}` };
    values.push(parsed.value as Json);
  }
  return { values };
}

function parseJsonField(text: string, what: string): { value?: Json; error?: string } {
  try {
    return { value: parseJson(text) as Json };
  } catch (error) {
    return { error: `${what}: invalid JSON (${error instanceof Error ? error.message : String(error)})` };
  }
}

/** The request a console form stands for, or the syntax errors of its fields (the server checks the meaning). */
export function buildQuery(form: QueryForm): Built {
  const errors: Record<string, string> = {};
  const body: Record<string, Json> = {};
  const need = <T>(field: string, parsed: { error?: string } & T): T => {
    if (parsed.error) errors[field] = parsed.error;
    return parsed;
  };

  if (form.mode === 'nearest') {
    const parsed =
      form.by === 'id'
        ? (({ id, error }) => ({ value: id as Json | undefined, error }))(parsePointId(form.input))
        : parseVectorInput(form.input);
    body.query = need('query', parsed).value ?? null;
  } else if (form.mode === 'recommend') {
    const positive = need('positive', parseVectorInputs(form.positive)).values ?? [];
    const negative = need('negative', parseVectorInputs(form.negative)).values ?? [];
    const recommend: Record<string, Json> = { positive, negative };
    if (form.strategy !== '') recommend.strategy = form.strategy;
    body.query = { recommend };
  } else if (form.mode === 'discover') {
    const target = need('target', parseVectorInput(form.target)).value ?? null;
    const context = need('context', parseJsonField(form.context || '[]', 'Context pairs')).value ?? [];
    body.query = { discover: { target, context } };
  } else if (form.mode === 'context') {
    body.query = { context: need('context', parseJsonField(form.context || '[]', 'Context pairs')).value ?? [] };
  } else {
    body.prefetch = need('prefetch', parseJsonField(form.prefetch || '[]', 'Prefetch')).value ?? [];
    body.query = { fusion: form.fusion };
  }

  if (form.using.trim() !== '') body.using = form.using.trim();
  const filter = need('filter', parseFilter(form.filter));
  if (filter.filter !== undefined) body.filter = filter.filter;
  const number = (field: string, text: string, integer: boolean): number | undefined => {
    if (text.trim() === '') return undefined;
    const value = Number(text);
    if (!Number.isFinite(value) || (integer && !Number.isInteger(value))) {
      errors[field] = integer ? 'A whole number' : 'A number';
      return undefined;
    }
    return value;
  };
  const limit = number('limit', form.limit, true);
  if (limit !== undefined) body.limit = limit;
  const params: Record<string, Json> = {};
  if (form.exact) params.exact = true;
  const ef = number('hnsw_ef', form.hnswEf, true);
  if (ef !== undefined) params.hnsw_ef = ef;
  if (Object.keys(params).length > 0) body.params = params;
  const threshold = number('score_threshold', form.scoreThreshold, false);
  if (threshold !== undefined) body.score_threshold = threshold;
  body.with_payload = form.withPayload;
  body.with_vector = form.withVectors;

  let path: 'query' | 'query/groups' = 'query';
  if (form.groupBy.trim() !== '') {
    path = 'query/groups';
    body.group_by = form.groupBy.trim();
    const size = number('group_size', form.groupSize, true);
    if (size !== undefined) body.group_size = size;
  }
  return Object.keys(errors).length > 0 ? { errors } : { path, body };
}
