import { QUERY_DEFAULT_LIMIT, QUERY_GROUPS_DEFAULT_GROUP_SIZE } from '@vectorstore/points';
import { DomainError, JsonObject, ValidationIssues } from '@vectorstore/common';
import type {
  ContextPair,
  Expression,
  GroupsRequest,
  PrefetchQuery,
  QueryRequest,
  QueryVariant,
  RecommendInput,
  RecommendStrategy,
  RelevanceFeedbackInput,
  WithLookup,
} from '@vectorstore/points';
import { array, decodeBody, enumOf, f64, isPlainObject, objectValue, str } from '../../core/rest/rest-decoders';
import { bodyFormatError } from '../../core/rest/rest-format.error';
import { defined } from '../../core/scalars';
import { conditionFromRest, optionalFilter } from './filter.rest-mapper';
import {
  aliased,
  limitFromRest,
  lookupFromRest,
  optionalF64,
  optionalU64,
  orderByFromRest,
  payloadSelectorFromRest,
  searchParamsDecoder,
  shardKeySelectorFromRest,
  vectorSelectorFromRest,
} from './selectors.rest-mapper';
import { vectorInputFromRest } from './vectors.rest-mapper';

/**
 * The universal query in Qdrant's JSON (`QueryRequest`, `QueryGroupsRequest`, `QueryRequestBatch`)
 * to the domain's QueryRequest. Query forms the engine lacks (formula, mmr, relevance feedback,
 * weighted rrf) are 422 naming the field, as gRPC reports them.
 */

type Body = Record<string, unknown>;

const join = (path: string, key: string): string => (path ? `${path}.${key}` : key);

export const RECOMMEND_STRATEGY = enumOf<RecommendStrategy>({
  average_vector: 'AverageVector',
  best_score: 'BestScore',
  sum_scores: 'SumScores',
});

const FUSION = enumOf<'RRF' | 'DBSF'>({ rrf: 'RRF', dbsf: 'DBSF' });
const SAMPLE = enumOf<'Random'>({ random: 'Random' });

function inputs(issues: ValidationIssues, value: unknown, path: string) {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw bodyFormatError(path, 'expected a sequence');
  return value.map((v, i) => vectorInputFromRest(issues, v, `${path}[${i}]`, { example: true }));
}

function recommendInput(issues: ValidationIssues, value: unknown, path: string): RecommendInput {
  const r = objectValue(value, path);
  return defined({
    positive: inputs(issues, r.positive, join(path, 'positive')),
    negative: inputs(issues, r.negative, join(path, 'negative')),
    strategy:
      r.strategy === undefined || r.strategy === null
        ? undefined
        : RECOMMEND_STRATEGY(r.strategy, join(path, 'strategy')),
  });
}

/** Context pairs: a list of `{positive, negative}` (or one pair). */
export function contextPairs(issues: ValidationIssues, value: unknown, path: string): ContextPair[] {
  if (value === undefined || value === null) return [];
  const list = Array.isArray(value) ? value : [value];
  return list.map((item, i) => {
    const itemPath = Array.isArray(value) ? `${path}[${i}]` : path;
    const p = objectValue(item, itemPath);
    if (p.positive === undefined) throw bodyFormatError(itemPath, 'missing field `positive`');
    if (p.negative === undefined) throw bodyFormatError(itemPath, 'missing field `negative`');
    return {
      positive: vectorInputFromRest(issues, p.positive, join(itemPath, 'positive')),
      negative: vectorInputFromRest(issues, p.negative, join(itemPath, 'negative')),
    };
  });
}

const UNSUPPORTED: string[] = [];

/** `query`: a bare VectorInput (nearest) or one of the tagged query forms. */
export function queryVariantFromRest(issues: ValidationIssues, value: unknown, path: string): QueryVariant {
  if (!isPlainObject(value) || ('indices' in value && 'values' in value) || 'model' in value) {
    return { nearest: vectorInputFromRest(issues, value, path) };
  }
  const keys = Object.keys(value);
  const kind = keys.find((k) => k !== 'mmr' && k !== 'defaults') ?? keys[0];
  const inner = value[kind];
  const at = join(path, kind);
  switch (kind) {
    case 'nearest': {
      const nearest = vectorInputFromRest(issues, inner, at);
      if (value.mmr === undefined || value.mmr === null) return { nearest };
      const m = objectValue(value.mmr, join(path, 'mmr'));
      const mmr = defined({
        diversity: optionalF64(m.diversity, join(path, 'mmr.diversity')),
        candidatesLimit: optionalU64(m.candidates_limit, join(path, 'mmr.candidates_limit')),
      });
      return { nearest, mmr };
    }
    case 'recommend':
      return { recommend: recommendInput(issues, inner, at) };
    case 'discover': {
      const d = objectValue(inner, at);
      if (d.target === undefined) throw bodyFormatError(at, 'missing field `target`');
      if (d.context === undefined) throw bodyFormatError(at, 'missing field `context`');
      return {
        discover: {
          target: vectorInputFromRest(issues, d.target, join(at, 'target')),
          context: contextPairs(issues, d.context, join(at, 'context')),
        },
      };
    }
    case 'context':
      return { context: contextPairs(issues, inner, at) };
    case 'order_by': {
      const orderBy = orderByFromRest(inner, at);
      if (!orderBy) throw bodyFormatError(at, 'invalid type: null, expected OrderByInterface');
      return { orderBy };
    }
    case 'fusion':
      return { fusion: FUSION(inner, at) };
    case 'rrf': {
      const r = objectValue(inner, at);
      const weights =
        r.weights === undefined || r.weights === null ? undefined : array(f64)(r.weights, join(at, 'weights'));
      return { rrf: defined({ k: optionalU64(r.k, join(at, 'k')), weights }) };
    }
    case 'sample':
      return { sample: SAMPLE(inner, at) };
    case 'relevance_feedback':
      return { relevanceFeedback: relevanceFeedbackFromRest(issues, inner, at) };
    case 'formula': {
      const defaults =
        value.defaults === undefined || value.defaults === null
          ? {}
          : objectValue(value.defaults, join(path, 'defaults'));
      return { formula: { expression: expressionFromRest(inner, at), defaults: defaults as JsonObject } };
    }
    default:
      if (UNSUPPORTED.includes(kind)) {
        throw DomainError.validation([`${at}: ${kind} query is not supported yet`]);
      }
      throw bodyFormatError(path, 'data did not match any variant of untagged enum QueryInterface');
  }
}

function optionalQuery(issues: ValidationIssues, value: unknown, path: string): QueryVariant | undefined {
  return value === undefined || value === null ? undefined : queryVariantFromRest(issues, value, path);
}

function prefetches(issues: ValidationIssues, value: unknown, path: string): PrefetchQuery[] {
  if (value === undefined || value === null) return [];
  const list = Array.isArray(value) ? value : [value];
  return list.map((p, i) => prefetchFromRest(issues, p, Array.isArray(value) ? `${path}[${i}]` : path));
}

function prefetchFromRest(issues: ValidationIssues, value: unknown, path: string): PrefetchQuery {
  const p = objectValue(value, path);
  return defined({
    prefetch: prefetches(issues, p.prefetch, join(path, 'prefetch')),
    query: optionalQuery(issues, p.query, join(path, 'query')),
    using: p.using === undefined || p.using === null ? undefined : str(p.using, join(path, 'using')),
    filter: optionalFilter(p.filter, join(path, 'filter')),
    params:
      p.params === undefined || p.params === null ? undefined : searchParamsDecoder(p.params, join(path, 'params')),
    scoreThreshold: optionalF64(p.score_threshold, join(path, 'score_threshold')),
    limit:
      p.limit === undefined || p.limit === null ? undefined : limitFromRest(issues, p.limit, join(path, 'limit'), 0),
    lookupFrom: lookupFromRest(p.lookup_from, join(path, 'lookup_from')),
  });
}

/** A QueryRequest at `path` without limit and offset. */
function querySource(
  issues: ValidationIssues,
  b: Body,
  path: string,
  timeout?: number,
): Omit<QueryRequest, 'limit' | 'offset'> {
  return defined({
    prefetch: prefetches(issues, b.prefetch, join(path, 'prefetch')),
    query: optionalQuery(issues, b.query, join(path, 'query')),
    using: b.using === undefined || b.using === null ? undefined : str(b.using, join(path, 'using')),
    filter: optionalFilter(b.filter, join(path, 'filter')),
    params:
      b.params === undefined || b.params === null ? undefined : searchParamsDecoder(b.params, join(path, 'params')),
    scoreThreshold: optionalF64(b.score_threshold, join(path, 'score_threshold')),
    withPayload: payloadSelectorFromRest(b.with_payload, join(path, 'with_payload'), false),
    withVectors: vectorSelectorFromRest(aliased(b, 'with_vector', 'with_vectors'), join(path, 'with_vector')),
    shardKeySelector: shardKeySelectorFromRest(b.shard_key, join(path, 'shard_key')),
    lookupFrom: lookupFromRest(b.lookup_from, join(path, 'lookup_from')),
    timeout,
  });
}

export function queryRequestAt(issues: ValidationIssues, value: unknown, path: string, timeout?: number): QueryRequest {
  const b = objectValue(value, path);
  return {
    ...querySource(issues, b, path, timeout),
    // Qdrant flattens the request's fields from an `internal` struct, so its rule paths say `internal.limit`.
    limit: limitFromRest(issues, b.limit, join(path, 'internal.limit'), QUERY_DEFAULT_LIMIT),
    offset: optionalU64(b.offset, join(path, 'offset')) ?? 0,
  };
}

/** `POST /points/query`. */
export function queryFromRest(body: unknown, timeout?: number): QueryRequest {
  const issues = new ValidationIssues();
  const request = decodeBody(body, (value, path) => queryRequestAt(issues, value, path, timeout));
  issues.throwIfAny();
  return request;
}

/** `{"searches": [...]}` of every batch endpoint, each request decoded by `decode`. */
export function batchOf<T>(body: unknown, decode: (issues: ValidationIssues, value: unknown, path: string) => T): T[] {
  const issues = new ValidationIssues();
  const requests = decodeBody(body, (value) => {
    const b = objectValue(value, '');
    if (b.searches === undefined) throw bodyFormatError('', 'missing field `searches`');
    return array((item, path) => decode(issues, item, path))(b.searches, 'searches');
  });
  issues.throwIfAny();
  return requests;
}

/** `with_lookup`: a collection name, or `{collection, with_payload?: true, with_vectors?: false}`. */
export function withLookupFromRest(value: unknown, path: string): WithLookup | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') {
    return { collectionName: value, withPayload: { enable: true }, withVectors: { enable: false } };
  }
  const l = objectValue(value, path);
  if (l.collection === undefined) throw bodyFormatError(path, 'missing field `collection`');
  return {
    collectionName: str(l.collection, join(path, 'collection')),
    withPayload: payloadSelectorFromRest(l.with_payload, join(path, 'with_payload'), true),
    withVectors: vectorSelectorFromRest(aliased(l, 'with_vectors', 'with_vector'), join(path, 'with_vectors')),
  };
}

/** The grouping fields; `defaults` for QueryGroups (limit 10, group_size 3), else both are required. */
export function groupingFromRest(
  issues: ValidationIssues,
  b: Body,
  defaults?: { limit: number; groupSize: number },
): Omit<GroupsRequest<unknown>, 'source'> {
  if (b.group_by === undefined) throw bodyFormatError('', 'missing field `group_by`');
  if (!defaults && aliased(b, 'limit', 'top') === undefined) throw bodyFormatError('', 'missing field `limit`');
  if (!defaults && b.group_size === undefined) throw bodyFormatError('', 'missing field `group_size`');
  const groupBy = str(b.group_by, 'group_by');
  if (groupBy.length === 0) issues.add('group_by', 'value invalid, must not be empty');
  return defined({
    groupBy,
    groupSize: limitFromRest(issues, b.group_size, 'group_size', defaults?.groupSize ?? 0),
    limit: limitFromRest(issues, aliased(b, 'limit', 'top'), 'limit', defaults?.limit ?? 0),
    withLookup: withLookupFromRest(b.with_lookup, 'with_lookup'),
  });
}

/** `POST /points/query/groups`. */
export function queryGroupsFromRest(body: unknown, timeout?: number): GroupsRequest<QueryRequest> {
  const issues = new ValidationIssues();
  const request = decodeBody(body, (value, path) => {
    const b = objectValue(value, path);
    const grouping = groupingFromRest(issues, b, {
      limit: QUERY_DEFAULT_LIMIT,
      groupSize: QUERY_GROUPS_DEFAULT_GROUP_SIZE,
    });
    const source: QueryRequest = { ...querySource(issues, b, path, timeout), limit: grouping.limit, offset: 0 };
    return { source, ...grouping };
  });
  issues.throwIfAny();
  return request;
}

/** `relevance_feedback`: `{target, feedback: [{example, score}], strategy: {naive: {a, b, c}}}`. */
function relevanceFeedbackFromRest(issues: ValidationIssues, value: unknown, path: string): RelevanceFeedbackInput {
  const r = objectValue(value, path);
  for (const field of ['target', 'feedback', 'strategy']) {
    if (r[field] === undefined || r[field] === null) throw bodyFormatError(path, `missing field \`${field}\``);
  }
  if (!Array.isArray(r.feedback)) throw bodyFormatError(join(path, 'feedback'), 'expected a sequence');
  const feedback = r.feedback.map((item, i) => {
    const at = join(path, `feedback[${i}]`);
    const f = objectValue(item, at);
    return {
      example: vectorInputFromRest(issues, f.example, join(at, 'example')),
      score: optionalF64(f.score, join(at, 'score')) ?? 0,
    };
  });
  const strategy = objectValue(r.strategy, join(path, 'strategy'));
  const naivePath = join(path, 'strategy.naive');
  const n = objectValue(strategy.naive, naivePath);
  const coefficient = (name: string): number => {
    const v = optionalF64(n[name], join(naivePath, name));
    if (v === undefined) throw bodyFormatError(naivePath, `missing field \`${name}\``);
    return v;
  };
  const naive = { a: coefficient('a'), b: coefficient('b'), c: coefficient('c') };
  // Qdrant's rules, with its paths (the request's fields sit in a flattened `internal` struct).
  if (feedback.length === 0) issues.add(`internal.${path}.feedback`, 'feedback elements must be non-empty');
  if (naive.b < 0) {
    issues.add(`internal.${naivePath}.b`, `value ${floatText(naive.b)} invalid, must be 0.0 or larger`);
  }
  return { target: vectorInputFromRest(issues, r.target, join(path, 'target')), feedback, naive };
}

/** A float as Rust prints it (`-1.0`, `0.5`). */
function floatText(value: number): string {
  return Number.isInteger(value) ? value.toFixed(1) : String(value);
}

const CONDITION_KEYS = [
  'key',
  'is_empty',
  'is_null',
  'has_id',
  'has_vector',
  'nested',
  'must',
  'should',
  'must_not',
  'min_should',
];
const UNARY = { neg: 'neg', abs: 'abs', sqrt: 'sqrt', exp: 'exp', log10: 'log10', ln: 'ln' } as const;
const DECAYS = { exp_decay: 'exp', gauss_decay: 'gauss', lin_decay: 'lin' } as const;

/** Qdrant's `Expression` (an untagged enum): a number, a variable name, a condition, or one tagged operation. */
export function expressionFromRest(value: unknown, path: string): Expression {
  if (typeof value === 'number' || typeof value === 'bigint') return { constant: Number(value) };
  if (typeof value === 'string') return { variable: value };
  const e = objectValue(value, path);
  if (CONDITION_KEYS.some((key) => key in e)) return { condition: conditionFromRest(e, path) };
  const list = (v: unknown, at: string): Expression[] => {
    if (!Array.isArray(v)) throw bodyFormatError(at, 'expected a sequence');
    return v.map((item, i) => expressionFromRest(item, `${at}[${i}]`));
  };
  if ('mult' in e) return { mult: list(e.mult, join(path, 'mult')) };
  if ('sum' in e) return { sum: list(e.sum, join(path, 'sum')) };
  for (const [name, kind] of Object.entries(UNARY)) {
    if (name in e) return { [kind]: expressionFromRest(e[name], join(path, name)) } as Expression;
  }
  if ('div' in e) {
    const d = objectValue(e.div, join(path, 'div'));
    return {
      div: defined({
        left: expressionFromRest(d.left, join(path, 'div.left')),
        right: expressionFromRest(d.right, join(path, 'div.right')),
        byZeroDefault: optionalF64(d.by_zero_default, join(path, 'div.by_zero_default')),
      }),
    };
  }
  if ('pow' in e) {
    const p = objectValue(e.pow, join(path, 'pow'));
    return {
      pow: {
        base: expressionFromRest(p.base, join(path, 'pow.base')),
        exponent: expressionFromRest(p.exponent, join(path, 'pow.exponent')),
      },
    };
  }
  if ('geo_distance' in e) {
    const g = objectValue(e.geo_distance, join(path, 'geo_distance'));
    const origin = objectValue(g.origin, join(path, 'geo_distance.origin'));
    return {
      geoDistance: {
        origin: {
          lat: optionalF64(origin.lat, join(path, 'geo_distance.origin.lat')) ?? 0,
          lon: optionalF64(origin.lon, join(path, 'geo_distance.origin.lon')) ?? 0,
        },
        to: str(g.to, join(path, 'geo_distance.to')),
      },
    };
  }
  if ('datetime' in e) return { datetime: str(e.datetime, join(path, 'datetime')) };
  if ('datetime_key' in e) return { datetimeKey: str(e.datetime_key, join(path, 'datetime_key')) };
  for (const [name, kind] of Object.entries(DECAYS)) {
    if (!(name in e)) continue;
    const d = objectValue(e[name], join(path, name));
    return {
      decay: defined({
        kind,
        x: expressionFromRest(d.x, join(path, `${name}.x`)),
        target:
          d.target === undefined || d.target === null
            ? undefined
            : expressionFromRest(d.target, join(path, `${name}.target`)),
        scale: optionalF64(d.scale, join(path, `${name}.scale`)),
        midpoint: optionalF64(d.midpoint, join(path, `${name}.midpoint`)),
      }),
    };
  }
  throw bodyFormatError(path, 'data did not match any variant of untagged enum Expression');
}
