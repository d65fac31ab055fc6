// REST bodies in Qdrant's shapes (filters, vectors, queries, points, collection parameters), each part plausible
// or bad at random: plausible parts take a request past the first check, bad ones test the next.
import { Rng } from '../seeded-random';
import { anyJson, badScalar, Json, ODD_STRINGS, RawJson } from './json-arbitrary';
import { collectionName, FIXTURE } from './proto-arbitrary';

type Part = (rng: Rng, depth: number) => Json;

/** The share of parts drawn bad in the body being built (set per body: a few bad parts reach deeper code). */
let badness = 0.3;

/** Plausible, or (with probability `badness`) a bad value of any type. */
const maybe =
  (part: Part): Part =>
  (rng, depth) =>
    rng.bool(badness) ? bad(rng, depth) : part(rng, depth);

const bad: Part = (rng, depth) => (rng.bool(0.8) ? badScalar(rng) : anyJson(rng, KEYS, Math.min(depth, 2)));

// Plausible parts are well-formed for the format check (types and ranges of the wire) but may still be wrong for
// the data (a missing id, a dimension mismatch, an unindexed key): that is what the domain must answer with 4xx.
const id: Part = (rng) =>
  rng.pick<Json>([1, 2, 3, 0, 7, new RawJson('18446744073709551615'), '6f0f5b9a-1b1e-4c2f-9a8e-6c1e1f2a3b4c']);
const ids: Part = (rng) => Array.from({ length: rng.int(0, 3) }, () => id(rng, 0));
const dense: Part = (rng) =>
  Array.from({ length: rng.pick([FIXTURE.dim, FIXTURE.dim, 0, 1, 3, 5, 1000]) }, () => rng.float(-1, 1));
const sparse: Part = (rng) => {
  const n = rng.int(0, 3);
  return {
    indices: Array.from({ length: n + rng.int(-1, 1) }, () => rng.pick([0, 1, 7, 2 ** 32 - 1])),
    values: dense(rng, 0),
  };
};
const namedVector: Part = (rng) =>
  rng.bool()
    ? dense(rng, 0)
    : { name: rng.pick(['dense', 'sparse', 'extra', '']), vector: rng.bool() ? dense(rng, 0) : sparse(rng, 0) };
const vectorInput: Part = (rng, depth) =>
  rng.pick<Part>([
    dense,
    dense,
    dense,
    dense,
    namedVector,
    sparse,
    id,
    (r) => [dense(r, 0), dense(r, 0)],
    (r) => ({ [r.pick(['dense', 'extra', ''])]: dense(r, 0) }),
  ])(rng, depth);
const key: Part = (rng) =>
  rng.pick(['city', 'n', 'tags', 'when', 'loc', 'a.b', 'tags[]', 'missing', '', 'a[', 'metadata.x']);
const match: Part = (rng) =>
  rng.pick<Json>([
    { value: rng.pick<Json>(['London', 1, true, -1, 1.5]) },
    { any: ['London', 'Paris'] },
    { any: [1, 'x'] },
    { except: [1, 2] },
    { text: 'lon' },
    { value: null },
    { any: [] },
  ]);
const range: Part = (rng) => ({
  [rng.pick(['gt', 'gte', 'lt', 'lte'])]: rng.pick<Json>([0, 1, 1.5, -1e308, 1e308]),
});
const condition: Part = (rng, depth) =>
  rng.pick<Part>([
    (r) => ({ key: key(r, 0), match: maybe(match)(r, 0) }),
    (r) => ({ key: key(r, 0), range: maybe(range)(r, 0) }),
    (r) => ({ has_id: ids(r, 0) }),
    (r) => ({ is_empty: { key: key(r, 0) } }),
    (r) => ({ is_null: { key: key(r, 0) } }),
    (r) => ({ has_vector: r.pick(['', 'dense', 'extra']) }),
    (r) => ({ key: key(r, 0), values_count: { gte: r.pick([0, 1, 2]) } }),
    (r) => ({
      key: key(r, 0),
      geo_radius: { center: { lat: r.pick([0, 51.5, 90]), lon: r.pick([0, -0.1, 180]) }, radius: r.pick([1, 0, 1e7]) },
    }),
    (r) => ({
      key: key(r, 0),
      geo_bounding_box: { top_left: { lat: 1, lon: 0 }, bottom_right: { lat: r.pick([0, 2]), lon: 1 } },
    }),
    (r) => ({
      key: key(r, 0),
      geo_polygon: {
        exterior: {
          points: [
            { lat: 0, lon: 0 },
            { lat: 1, lon: 1 },
          ],
        },
      },
    }),
    (r, d) => ({ nested: { key: key(r, 0), filter: filter(r, d - 1) } }),
    (r, d) => filter(r, d - 1),
  ])(rng, depth);
const filter: Part = (rng, depth): Json => {
  if (depth <= 0) return {};
  const out: Record<string, Json> = {};
  for (const clause of ['must', 'should', 'must_not', 'min_should']) {
    if (!rng.bool(0.4)) continue;
    out[clause] =
      clause === 'min_should'
        ? { conditions: [condition(rng, depth - 1)], min_count: rng.pick([0, 1, 5]) }
        : rng.bool(0.8)
          ? Array.from({ length: rng.int(0, 3) }, () => maybe(condition)(rng, depth - 1))
          : maybe(condition)(rng, depth - 1);
  }
  return out;
};
const query: Part = (rng, depth) =>
  rng.pick<Part>([
    vectorInput,
    (r) => ({ nearest: vectorInput(r, depth) }),
    (r) => ({
      recommend: {
        positive: [id(r, 0), dense(r, 0)],
        negative: ids(r, 0),
        strategy: r.pick(['average_vector', 'best_score', 'sum_scores', 'x']),
      },
    }),
    (r) => ({ discover: { target: vectorInput(r, 0), context: [{ positive: id(r, 0), negative: id(r, 0) }] } }),
    (r) => ({ context: [{ positive: vectorInput(r, 0), negative: vectorInput(r, 0) }] }),
    (r) => ({ fusion: r.pick(['rrf', 'dbsf', 'x']) }),
    (r) => ({ rrf: { k: r.pick([1, 0, 60]) } }),
    (r) => ({
      order_by: r.bool()
        ? key(r, 0)
        : { key: key(r, 0), direction: r.pick(['asc', 'desc', 'x']), start_from: badScalar(r) },
    }),
    (r) => ({ sample: r.pick(['random', 'x']) }),
    (r) => ({ formula: { sum: [r.pick<Json>(['$score', 1, 'n', { mult: [2, '$score'] }])] }, defaults: {} }),
    (r) => ({
      mmr: { diversity: r.pick([0, 0.5, 2, -1]), candidates_limit: r.pick([0, 10, 1000]) },
      nearest: dense(r, 0),
    }),
  ])(rng, depth);
const point: Part = (rng) => ({
  id: id(rng, 0),
  vector: maybe((r) =>
    r.bool(0.7) ? dense(r, 0) : { dense: dense(r, 0), sparse: sparse(r, 0), extra: [dense(r, 0)] },
  )(rng, 0),
  payload: maybe((r) => ({
    city: r.pick(['London', 'Paris', '']),
    n: r.pick<Json>([1, -1, 1.5, new Array(3).fill(1)]),
    when: r.pick(ODD_STRINGS),
  }))(rng, 0),
});
const withPayload: Part = (rng) =>
  rng.pick<Json>([true, false, ['city'], { include: ['city'] }, { exclude: ['n'] }, [], 'city']);
const vectorParams: Part = (rng) => ({
  size: rng.pick([FIXTURE.dim, 0, 1, 65536, 65537, -1, 1.5]),
  distance: rng.pick(['Dot', 'Cosine', 'Euclid', 'Manhattan', 'dot', 'x']),
  ...(rng.bool(0.3) ? { on_disk: rng.bool() } : {}),
  ...(rng.bool(0.3) ? { datatype: rng.pick(['float32', 'uint8', 'float16', 'x']) } : {}),
  ...(rng.bool(0.3) ? { multivector_config: { comparator: rng.pick(['max_sim', 'x']) } } : {}),
  ...(rng.bool(0.3) ? { hnsw_config: hnsw(rng, 0) } : {}),
});
const hnsw: Part = (rng) => ({
  [rng.pick(['m', 'ef_construct', 'full_scan_threshold', 'max_indexing_threads', 'payload_m', 'on_disk'])]:
    rng.pick<Json>([0, 1, 4, 16, -1, 1e9, true]),
});
const quantization: Part = (rng) =>
  rng.pick<Json>([
    { scalar: { type: rng.pick(['int8', 'x']), quantile: rng.pick([0.5, 0.99, 1, 2, 0]), always_ram: rng.bool() } },
    { product: { compression: rng.pick(['x4', 'x16', 'x64', 'x3']) } },
    { binary: { always_ram: rng.bool() } },
    'Disabled',
  ]);
const operation: Part = (rng, depth) =>
  rng.pick<Part>([
    (r) => ({ upsert: { points: [point(r, 0)] } }),
    (r) => ({ delete: { points: ids(r, 0) } }),
    (r) => ({ set_payload: { payload: { city: 'x' }, points: ids(r, 0) } }),
    (r) => ({ overwrite_payload: { payload: {}, filter: filter(r, 1) } }),
    (r) => ({ delete_payload: { keys: [key(r, 0)], points: ids(r, 0) } }),
    (r) => ({ clear_payload: { points: ids(r, 0) } }),
    (r) => ({ update_vectors: { points: [{ id: id(r, 0), vector: dense(r, 0) }] } }),
    (r) => ({ delete_vectors: { points: ids(r, 0), vector: [r.pick(['', 'dense'])] } }),
    (r) => ({ [r.pick(ODD_STRINGS)]: anyJson(r, KEYS, depth) }),
  ])(rng, depth);
const searchBody: Part = (rng, depth) =>
  pick(rng, depth, ['vector', 'filter', 'limit', 'offset', 'with_payload', 'with_vector', 'score_threshold', 'params']);

/** Field name → generator; the body of a request is a handful of these, plausible or not. */
const FIELDS: Record<string, Part> = {
  vector: vectorInput,
  vectors: (rng, d) => (rng.bool() ? { dense: vectorParams(rng, d) } : vectorParams(rng, d)),
  query: query,
  prefetch: (rng, d) =>
    d > 0
      ? Array.from({ length: rng.int(0, 2) }, () =>
          pick(rng, d - 1, ['query', 'filter', 'limit', 'using', 'prefetch', 'score_threshold']),
        )
      : [],
  filter: (rng, d) => filter(rng, Math.min(d, 3)),
  limit: (rng) => rng.pick<Json>([1, 3, 10]),
  offset: (rng) => rng.pick<Json>([0, 1, 2]),
  with_payload: withPayload,
  with_vector: (rng) => rng.pick<Json>([true, false, ['dense'], ['missing'], 'x']),
  with_vectors: (rng) => rng.pick<Json>([true, false, ['dense'], []]),
  score_threshold: (rng) => rng.pick<Json>([0, 1, -1e308, 0.5]),
  params: (rng) => ({
    hnsw_ef: rng.pick([0, 1, 128, 1e9]),
    exact: rng.bool(),
    quantization: { rescore: rng.bool(), oversampling: rng.pick([0, 1, 0.5, 100]) },
  }),
  using: (rng) => rng.pick(['', 'dense', 'sparse', 'extra', 'x']),
  lookup_from: (rng) => ({ collection: collectionName(rng), vector: rng.pick(['', 'dense']) }),
  group_by: key,
  group_size: (rng) => rng.pick([1, 2, 3]),
  points: (rng) => (rng.bool() ? Array.from({ length: rng.int(0, 3) }, () => point(rng, 0)) : ids(rng, 0)),
  ids: ids,
  payload: (rng) => ({ city: rng.pick(ODD_STRINGS), n: badScalar(rng) }),
  keys: (rng) => [key(rng, 0)],
  key: key,
  field_name: key,
  field_schema: (rng) =>
    rng.pick<Json>([
      'keyword',
      'integer',
      'float',
      'geo',
      'text',
      'bool',
      'datetime',
      'uuid',
      'x',
      { type: 'text', tokenizer: 'word', min_token_len: -1 },
      { type: 'integer', lookup: false, range: false },
    ]),
  positive: (rng) => [id(rng, 0), dense(rng, 0)],
  negative: ids,
  strategy: (rng) => rng.pick(['average_vector', 'best_score', 'sum_scores', 'x']),
  target: vectorInput,
  context: (rng) => [{ positive: id(rng, 0), negative: id(rng, 0) }],
  order_by: (rng) => (rng.bool() ? key(rng, 0) : { key: key(rng, 0), direction: rng.pick(['asc', 'desc', 'x']) }),
  exact: (rng) => rng.bool(),
  hnsw_config: hnsw,
  optimizers_config: (rng) => ({
    [rng.pick([
      'indexing_threshold',
      'default_segment_number',
      'deleted_threshold',
      'vacuum_min_vector_number',
      'max_segment_size',
      'flush_interval_sec',
    ])]: rng.pick<Json>([0, 1, -1, 0.5, 2, 1e12]),
  }),
  sparse_vectors: (rng) => ({
    [rng.pick(['sparse', '', 'dense'])]: { modifier: rng.pick(['idf', 'none', 'x']), index: { on_disk: rng.bool() } },
  }),
  shard_number: (rng) => rng.pick([1, 0, 2, 1000]),
  replication_factor: (rng) => rng.pick([1, 0, 2]),
  write_consistency_factor: (rng) => rng.pick([1, 0, 2]),
  on_disk_payload: (rng) => rng.bool(),
  quantization_config: quantization,
  strict_mode_config: (rng) => ({
    enabled: rng.bool(),
    [rng.pick(['max_query_limit', 'search_max_hnsw_ef', 'read_rate_limit', 'max_timeout'])]: rng.pick([0, 1, -1]),
  }),
  actions: (rng) => [
    rng.pick<Json>([
      { create_alias: { collection_name: collectionName(rng), alias_name: rng.pick(ODD_STRINGS) } },
      { delete_alias: { alias_name: rng.pick(ODD_STRINGS) } },
      { rename_alias: { old_alias_name: rng.pick(ODD_STRINGS), new_alias_name: rng.pick(ODD_STRINGS) } },
    ]),
  ],
  operations: (rng, d) => Array.from({ length: rng.int(0, 3) }, () => operation(rng, d)),
  searches: (rng, d) => Array.from({ length: rng.int(0, 3) }, () => searchBody(rng, d - 1)),
  location: (rng) => rng.pick(ODD_STRINGS),
  priority: (rng) => rng.pick(['snapshot', 'replica', 'no_sync', 'x']),
  checksum: (rng) => rng.pick(ODD_STRINGS),
  shard_key: (rng) => rng.pick<Json>(['a', 1, -1, [], ['a', 1], { x: 1 }]),
  shards_number: (rng) => rng.pick([1, 0, 3]),
  placement: (rng) => [[rng.pick([1, 0, 2])]],
  timeout: (rng) => rng.pick([1, 10]),
  sample: (rng) => rng.pick([0, 1, 10, 1e9]),
  email: (rng) => rng.pick(['a@b.c', '', 'x', 'admin@example.com']),
  password: (rng) => rng.pick(['', 'short', 'x'.repeat(2000), 'long-enough-password']),
  role: (rng) => rng.pick(['admin', 'reader', 'writer', 'x']),
  collections: (rng) => rng.pick<Json>([{ fuzz: 'r' }, { '*': 'rw' }, ['fuzz'], {}]),
  move_shard: (rng) => ({ shard_id: rng.pick([0, 1, 7]), from_peer_id: rng.pick([1, 2]), to_peer_id: 3 }),
  replicate_shard: (rng) => ({ shard_id: 0, from_peer_id: 1, to_peer_id: rng.pick([1, 2]) }),
  drop_replica: (rng) => ({ shard_id: 0, peer_id: rng.pick([1, 2, 0]) }),
};

const KEYS = Object.keys(FIELDS);

/** A body of the given fields (each present with probability 0.7), values plausible or bad. */
function pick(rng: Rng, depth: number, fields: readonly string[]): Json {
  const body: Record<string, Json> = {};
  for (const field of fields) if (rng.bool(0.7)) body[field] = maybe(FIELDS[field] ?? bad)(rng, depth);
  return body;
}

/**
 * A REST body in Qdrant's shapes. With `preferred` (the route's own fields, from its gRPC request message): each of
 * those the grammar knows, present with probability 0.9, and now and then a stranger; otherwise 1 to 6 fields of
 * any route. Each part is bad with probability `share`.
 */
export function qdrantBody(rng: Rng, preferred: readonly string[] = [], share = 0.3): Json {
  badness = share;
  const known = preferred.filter((field) => field in FIELDS);
  const fields =
    known.length > 0
      ? [...known.filter(() => rng.bool(0.9)), ...(rng.bool(0.2) ? [rng.pick(KEYS)] : [])]
      : Array.from({ length: rng.int(1, 6) }, () => rng.pick(KEYS));
  const body: Record<string, Json> = {};
  for (const field of fields) body[field] = maybe(FIELDS[field])(rng, 4);
  return body;
}

export const REST_FIELD_NAMES = KEYS;
