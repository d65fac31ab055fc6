import { ValidationIssues } from '@vectorstore/common';
import type {
  CountRequest,
  DistanceMatrix,
  DistanceMatrixRequest,
  FacetHit,
  FacetRequest,
  GetRequest,
  OrderValue,
  PointGroup,
  PointId,
  ReadConsistency,
  RetrievedPoint,
  ScoredPoint,
  ScrollRequest,
} from '@vectorstore/points';
import {
  FACET_DEFAULT_LIMIT,
  MATRIX_DEFAULT_LIMIT,
  MATRIX_DEFAULT_SAMPLE,
  SCROLL_DEFAULT_LIMIT,
} from '@vectorstore/points';
import { shardKeyToRest } from '../../cluster/rest/cluster.rest-mapper';
import { bool, decodeBody, objectValue, str } from '../../core/rest/rest-decoders';
import { bodyFormatError, queryFormatError } from '../../core/rest/rest-format.error';
import { f32Text, userJsonToRest } from '../../core/rest/rest-json';
import { RestQuery } from '../../core/rest/rest-query';
import { defined } from '../../core/scalars';
import { optionalFilter } from './filter.rest-mapper';
import { pointIdDecoder, pointIdsDecoder } from './point-id.rest-mapper';
import {
  aliased,
  limitFromRest,
  optionalU64,
  orderByFromRest,
  payloadSelectorFromRest,
  shardKeySelectorFromRest,
  vectorSelectorFromRest,
} from './selectors.rest-mapper';
import { namedVectorsToRest } from './vectors.rest-mapper';

/** Point reads in Qdrant's JSON: retrieve, scroll, count, facet, distance matrix, and the shapes they answer. */

const CONSISTENCY: Record<string, 'All' | 'Majority' | 'Quorum'> = {
  majority: 'Majority',
  quorum: 'Quorum',
  all: 'All',
};

/**
 * `?consistency&timeout` of a read: `consistency` is `all`, `majority`, `quorum` or a number of
 * replicas (cluster mode; a single server satisfies every level); `timeout` is seconds and must not be
 * 0 (serde's NonZeroU64: a 400).
 */
export function readOptionsFromRest(query: RestQuery): { timeout?: number; readConsistency?: ReadConsistency } {
  const readConsistency = readConsistencyFromRest(query.consistency);
  const raw = query.timeout;
  if (raw === undefined) return readConsistency ? { readConsistency } : {};
  if (typeof raw !== 'string' || !/^\d+$/.test(raw)) {
    throw queryFormatError('timeout', `invalid digit found in string`);
  }
  const timeout = Number(raw);
  if (timeout === 0) throw queryFormatError('timeout', 'number would be zero for non-zero type');
  return readConsistency ? { timeout, readConsistency } : { timeout };
}

/** `request` with the read's `?consistency`, for requests built from the body alone (query, search, ...). */
export function withReadConsistency<T extends object>(request: T, query: RestQuery): T {
  const { readConsistency } = readOptionsFromRest(query);
  return readConsistency ? { ...request, readConsistency } : request;
}

/** A grouped request with the read's `?consistency` on its source query. */
export function withGroupsReadConsistency<T extends { source: object }>(request: T, query: RestQuery): T {
  return { ...request, source: withReadConsistency(request.source, query) };
}

function readConsistencyFromRest(consistency: unknown): ReadConsistency | undefined {
  if (consistency === undefined || consistency === '') return undefined;
  const text = String(consistency);
  const type = CONSISTENCY[text];
  if (type) return { type };
  if (!/^[1-9]\d*$/.test(text)) {
    throw queryFormatError('consistency', `data did not match any variant of untagged enum ReadConsistency`);
  }
  return { factor: Number(text) };
}

type Body = Record<string, unknown>;

function decode<T>(body: unknown, build: (b: Body, issues: ValidationIssues) => T): T {
  const issues = new ValidationIssues();
  const result = decodeBody(body, (value, path) => build(objectValue(value, path), issues));
  issues.throwIfAny();
  return result;
}

/** `POST /points`: ids in the order asked; `with_payload` absent means none (as Qdrant's retrieve does). */
export function retrieveFromRest(body: unknown, query: RestQuery): GetRequest {
  const { timeout, readConsistency } = readOptionsFromRest(query);
  return decode(body, (b) => {
    if (b.ids === undefined) throw bodyFormatError('', 'missing field `ids`');
    return defined({
      ids: pointIdsDecoder(b.ids, 'ids'),
      withPayload: payloadSelectorFromRest(b.with_payload, 'with_payload', false),
      withVectors: vectorSelectorFromRest(aliased(b, 'with_vector', 'with_vectors'), 'with_vector'),
      shardKeySelector: shardKeySelectorFromRest(b.shard_key, 'shard_key'),
      timeout,
      readConsistency,
    });
  });
}

/** `GET /points/{id}`: payload and vectors included. */
export function getPointRequest(id: PointId, query: RestQuery): GetRequest {
  return defined({
    ids: [id],
    withPayload: { enable: true },
    withVectors: { enable: true },
    ...readOptionsFromRest(query),
  });
}

/** `POST /points/scroll`: limit 10, payload on, vectors off by default. */
export function scrollFromRest(body: unknown, query: RestQuery): ScrollRequest {
  const { timeout, readConsistency } = readOptionsFromRest(query);
  return decode(body ?? {}, (b, issues) =>
    defined({
      filter: optionalFilter(b.filter, 'filter'),
      offset: b.offset === undefined || b.offset === null ? undefined : pointIdDecoder(b.offset, 'offset'),
      limit: limitFromRest(issues, b.limit, 'limit', SCROLL_DEFAULT_LIMIT),
      withPayload: payloadSelectorFromRest(b.with_payload, 'with_payload', true),
      withVectors: vectorSelectorFromRest(aliased(b, 'with_vector', 'with_vectors'), 'with_vector'),
      orderBy: orderByFromRest(b.order_by, 'order_by'),
      shardKeySelector: shardKeySelectorFromRest(b.shard_key, 'shard_key'),
      timeout,
      readConsistency,
    }),
  );
}

/** `POST /points/count`: exact by default. */
export function countFromRest(body: unknown, query: RestQuery): CountRequest {
  const { timeout, readConsistency } = readOptionsFromRest(query);
  return decode(body ?? {}, (b) =>
    defined({
      filter: optionalFilter(b.filter, 'filter'),
      exact: b.exact === undefined || b.exact === null ? true : bool(b.exact, 'exact'),
      shardKeySelector: shardKeySelectorFromRest(b.shard_key, 'shard_key'),
      timeout,
      readConsistency,
    }),
  );
}

/** `POST /collections/{c}/facet`: limit 10, approximate by default. */
export function facetFromRest(body: unknown, query: RestQuery): FacetRequest {
  const { timeout, readConsistency } = readOptionsFromRest(query);
  return decode(body, (b, issues) => {
    if (b.key === undefined) throw bodyFormatError('', 'missing field `key`');
    return defined({
      key: str(b.key, 'key'),
      filter: optionalFilter(b.filter, 'filter'),
      limit: limitFromRest(issues, b.limit, 'limit', FACET_DEFAULT_LIMIT),
      exact: b.exact === undefined || b.exact === null ? false : bool(b.exact, 'exact'),
      shardKeySelector: shardKeySelectorFromRest(b.shard_key, 'shard_key'),
      timeout,
      readConsistency,
    });
  });
}

/** Both matrix endpoints: sample 10 (≥2), limit 3 (≥1), the default vector unless `using`. */
export function matrixFromRest(body: unknown, query: RestQuery): DistanceMatrixRequest {
  const { timeout, readConsistency } = readOptionsFromRest(query);
  return decode(body ?? {}, (b, issues) => {
    const sample = optionalU64(b.sample, 'sample');
    issues.range('sample', sample, 2);
    return defined({
      filter: optionalFilter(b.filter, 'filter'),
      sample: sample ?? MATRIX_DEFAULT_SAMPLE,
      limit: limitFromRest(issues, b.limit, 'limit', MATRIX_DEFAULT_LIMIT),
      using: b.using === undefined || b.using === null ? '' : str(b.using, 'using'),
      shardKeySelector: shardKeySelectorFromRest(b.shard_key, 'shard_key'),
      timeout,
      readConsistency,
    });
  });
}

// ---------------------------------------------------------------------------
// Answers
// ---------------------------------------------------------------------------

export function orderValueToRest(value: OrderValue): unknown {
  return 'int' in value ? value.int : userJsonToRest(value.float);
}

/** A Record: `payload`, `vector`, `shard_key`, `order_value` only when present. */
export function recordToRest(p: RetrievedPoint): Record<string, unknown> {
  const out: Record<string, unknown> = { id: p.id };
  if (p.payload) out.payload = userJsonToRest(p.payload);
  if (p.vectors) out.vector = namedVectorsToRest(p.vectors);
  if (p.shardKey) out.shard_key = shardKeyToRest(p.shardKey);
  if (p.orderValue) out.order_value = orderValueToRest(p.orderValue);
  return out;
}

export function facetToRest(hits: readonly FacetHit[]): unknown {
  return {
    hits: hits.map((hit) => {
      const v = hit.value;
      return { value: 'keyword' in v ? v.keyword : 'integer' in v ? v.integer : v.bool, count: hit.count };
    }),
  };
}

export function matrixPairsToRest(matrix: DistanceMatrix, score: (s: number) => unknown = f32Text): unknown {
  return {
    pairs: matrix.neighbours.flatMap((row, i) =>
      row.map((n) => ({ a: matrix.ids[i], b: matrix.ids[n.offset], score: score(n.score) })),
    ),
  };
}

export function matrixOffsetsToRest(matrix: DistanceMatrix, score: (s: number) => unknown = f32Text): unknown {
  const offsetsRow: number[] = [];
  const offsetsCol: number[] = [];
  const scores: unknown[] = [];
  matrix.neighbours.forEach((row, i) => {
    for (const n of row) {
      offsetsRow.push(i);
      offsetsCol.push(n.offset);
      scores.push(score(n.score));
    }
  });
  return { offsets_row: offsetsRow, offsets_col: offsetsCol, scores, ids: matrix.ids };
}

/** A ScoredPoint: `version` always, the score as its shortest f32 text. */
export function scoredPointToRest(p: ScoredPoint): Record<string, unknown> {
  const out: Record<string, unknown> = { id: p.id, version: p.version, score: f32Text(p.score) };
  if (p.payload) out.payload = userJsonToRest(p.payload);
  if (p.vectors) out.vector = namedVectorsToRest(p.vectors);
  if (p.shardKey) out.shard_key = shardKeyToRest(p.shardKey);
  if (p.orderValue) out.order_value = orderValueToRest(p.orderValue);
  return out;
}

export function groupsToRest(groups: readonly PointGroup[]): unknown {
  return {
    groups: groups.map((g) => {
      const out: Record<string, unknown> = { id: g.id, hits: g.hits.map(scoredPointToRest) };
      if (g.lookup) out.lookup = recordToRest(g.lookup);
      return out;
    }),
  };
}
