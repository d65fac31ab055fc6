import type { NamedVectors, Vector } from '@vectorstore/points';
import type { GetResponse__Output } from '../../grpc/generated/vectorstore/GetResponse';
import type { UpsertPoints__Output } from '../../grpc/generated/vectorstore/UpsertPoints';
import type { Vector as ProtoVector } from '../../grpc/generated/vectorstore/Vector';
import type { Vectors as ProtoVectors } from '../../grpc/generated/vectorstore/Vectors';
import { upsertPointsFromProto } from './points-write.mapper';
import { collect, f32, issuesOf, wireRequest, wireResponse } from './points-wire.spec-helper';
import { namedVectorsToProto, vectorInputFromProto, vectorsFromProto, vectorToProto } from './vectors.mapper';

/** Upserts one point with `vectors` through the wire and returns its mapped NamedVectors. */
function vectorsOverWire(vectors: ProtoVectors): NamedVectors {
  const request = wireRequest<UpsertPoints__Output>('Upsert', {
    collectionName: 'c',
    points: [{ id: { num: 1 }, vectors }],
  });
  const op = upsertPointsFromProto(request).request.operation;
  if (!('upsert' in op)) throw new Error('expected upsert');
  return op.upsert.points[0].vectors;
}

const single = (vector: ProtoVector): Vector => vectorsOverWire({ vector })[''];

function upsertIssues(vectors: ProtoVectors, index = 0): string[] {
  const points = Array.from({ length: index + 1 }, (_, i) => ({
    id: { num: i },
    vectors: i === index ? vectors : { vector: { dense: { data: [1] } } },
  }));
  return issuesOf(() =>
    upsertPointsFromProto(wireRequest<UpsertPoints__Output>('Upsert', { collectionName: 'c', points })),
  );
}

describe('vectorsFromProto', () => {
  it('should map dense (101), sparse (102) and multi_dense (103)', () => {
    expect(single({ dense: { data: [1, 2.5, -3] } })).toEqual({ kind: 'dense', values: f32(1, 2.5, -3) });
    expect(single({ multiDense: { vectors: [{ data: [1, 2] }, { data: [3, 4] }] } })).toEqual({
      kind: 'multi',
      vectors: [f32(1, 2), f32(3, 4)],
    });
    expect(
      vectorsOverWire({ vectors: { vectors: { text: { sparse: { indices: [7, 2], values: [0.5, 1] } } } } }),
    ).toEqual({
      // Sorted by index with their values, as Qdrant stores sparse vectors.
      text: { kind: 'sparse', indices: Uint32Array.from([2, 7]), values: f32(1, 0.5) },
    });
  });

  it('should map the deprecated flat forms: data, data + indices, data + vectors_count', () => {
    expect(single({ data: [1, 2, 3] })).toEqual({ kind: 'dense', values: f32(1, 2, 3) });
    expect(single({ data: [1, 2, 3, 4, 5, 6], vectorsCount: 3 })).toEqual({
      kind: 'multi',
      vectors: [f32(1, 2), f32(3, 4), f32(5, 6)],
    });
    expect(vectorsOverWire({ vectors: { vectors: { s: { data: [0.5], indices: { data: [42] } } } } })).toEqual({
      s: { kind: 'sparse', indices: Uint32Array.from([42]), values: f32(0.5) },
    });
  });

  it('should prefer the oneof over the deprecated fields', () => {
    expect(single({ data: [9, 9], dense: { data: [1] } })).toEqual({ kind: 'dense', values: f32(1) });
  });

  it('should keep every name of a named map, including odd ones', () => {
    const map = JSON.parse('{"a": {"dense": {"data": [1]}}, "__proto__": {"dense": {"data": [2]}}}') as never;
    const named = vectorsOverWire({ vectors: { vectors: map } });
    expect(Object.keys(named).sort()).toEqual(['__proto__', 'a']);
  });

  it('should report non-finite values with the element path', () => {
    expect(upsertIssues({ vector: { dense: { data: [1, 2, 3, 4, 5, NaN] } } }, 3)).toEqual([
      'points[3].vectors.vector.dense.data[5]: must be finite',
    ]);
    expect(upsertIssues({ vector: { data: [Infinity] } })).toEqual([
      'points[0].vectors.vector.data[0]: must be finite',
    ]);
    expect(
      upsertIssues({ vectors: { vectors: { m: { multiDense: { vectors: [{ data: [1, -Infinity] }] } } } } }),
    ).toEqual(['points[0].vectors.vectors_options.vectors.[].multi_dense[0][1]: must be finite']);
  });

  it('should report sparse length mismatches and duplicate indices', () => {
    expect(upsertIssues({ vectors: { vectors: { s: { sparse: { indices: [1, 2], values: [1] } } } } })).toEqual([
      // Qdrant's text and path, as basic_sparse_grpc_test.sh asserts it.
      'points[0].vectors.vectors_options.vectors.[].values: Validation error: must be the same length as indices [{}]',
    ]);
    expect(
      upsertIssues({ vectors: { vectors: { s: { sparse: { indices: [4, 5, 4], values: [1, 1, 1] } } } } }),
    ).toEqual(['points[0].vectors.vectors_options.vectors.[].indices: Validation error: must be unique [{}]']);
    expect(upsertIssues({ vectors: { vectors: { s: { data: [1, 2], indices: { data: [3] } } } } })).toEqual([
      'points[0].vectors.vectors_options.vectors.[].values: Validation error: must be the same length as indices [{}]',
    ]);
  });

  it('should report empty and ragged multivectors', () => {
    expect(upsertIssues({ vector: { multiDense: { vectors: [] } } })).toEqual([
      'points[0].vectors.vector.multi_dense.data: multi vector must not be empty',
    ]);
    expect(
      upsertIssues({ vector: { multiDense: { vectors: [{ data: [1, 2] }, { data: [1] }, { data: [] }] } } }),
    ).toEqual(['points[0].vectors.vector.multi_dense.data: all vectors must be non-empty']);
    expect(upsertIssues({ vector: { multiDense: { vectors: [{ data: [1, 2] }, { data: [1] }] } } })).toEqual([
      'points[0].vectors.vector.multi_dense.data: all vectors must have the same dimension, found vector with dimension 1',
    ]);
    expect(upsertIssues({ vector: { data: [1, 2, 3], vectorsCount: 2 } })).toEqual([
      'points[0].vectors.vector.data: Validation error: invalid dense vector length for vectors count [{"vector_len": 3, "vectors_count": 2}]',
    ]);
    expect(upsertIssues({ vector: { data: [1], vectorsCount: 0 } })).toEqual([
      'points[0].vectors.vector.data: Validation error: invalid_vector_count [{"vectors_count": "vectors count must be greater than 0"}]',
    ]);
  });

  it('should embed BM25 documents and refuse other inference models as Qdrant does', () => {
    const notConfigured = 'InferenceService is not initialized';
    expect(() => upsertIssues({ vector: { document: { text: 'hi', model: 'm' } } })).toThrow(notConfigured);
    expect(() =>
      upsertIssues({ vectors: { vectors: { i: { image: { image: { stringValue: 'x' }, model: 'm' } } } } }),
    ).toThrow(notConfigured);
    expect(() => upsertIssues({ vector: { object: { object: { boolValue: true }, model: 'bm25' } } })).toThrow(
      'Only text input is supported for bm25.',
    );
    const stored = vectorsOverWire({ vectors: { vectors: { text: { document: { text: 'fear', model: 'bm25' } } } } });
    // One token, tf 1, document length 1: 2.2 / (1.2 · (0.25 + 0.75 / 256) + 1).
    expect(stored.text).toMatchObject({
      kind: 'sparse',
      values: new Float32Array([2.2 / (1.2 * (0.25 + 0.75 / 256) + 1)]),
    });
    expect(upsertIssues({ vector: { sparse: { indices: [1], values: [1] } } })).toEqual([
      'points[0].vectors.vector: sparse vector must be named',
    ]);
    expect(upsertIssues({})).toEqual(['points[0].vectors: must set vector or vectors']);
    expect(collect((i) => vectorsFromProto(i, 'v', undefined)).issues).toEqual(['v: must set vector or vectors']);
  });
});

describe('vectorInputFromProto', () => {
  it('should map every variant', () => {
    expect(
      collect((i) => vectorInputFromProto(i, 'q', { variant: 'id', id: { num: '5', pointIdOptions: 'num' } })).value,
    ).toEqual({ pointId: 5n });
    expect(collect((i) => vectorInputFromProto(i, 'q', { variant: 'dense', dense: { data: [1] } })).value).toEqual({
      vector: { kind: 'dense', values: f32(1) },
    });
    expect(
      collect((i) => vectorInputFromProto(i, 'q', { variant: 'sparse', sparse: { indices: [1], values: [2] } })).value,
    ).toEqual({
      vector: { kind: 'sparse', indices: Uint32Array.from([1]), values: f32(2) },
    });
    expect(
      collect((i) => vectorInputFromProto(i, 'q', { variant: 'multiDense', multiDense: { vectors: [{ data: [1] }] } }))
        .value,
    ).toEqual({
      vector: { kind: 'multi', vectors: [f32(1)] },
    });
  });

  it('should embed BM25 query documents and report empty variants', () => {
    expect(
      collect((i) =>
        vectorInputFromProto(i, 'q', { variant: 'document', document: { text: 'fear', model: 'bm25', options: {} } }),
      ).value,
    ).toMatchObject({ vector: { kind: 'sparse', values: new Float32Array([1]) } });
    expect(() =>
      collect((i) =>
        vectorInputFromProto(i, 'q', { variant: 'document', document: { text: 't', model: 'm', options: {} } }),
      ),
    ).toThrow('InferenceService is not initialized');
    expect(collect((i) => vectorInputFromProto(i, 'q', {})).issues).toEqual([
      'q: must set one of id, dense, sparse, multi_dense',
    ]);
  });
});

describe('namedVectorsToProto', () => {
  const dense: Vector = { kind: 'dense', values: f32(1, 2) };
  const sparse: Vector = { kind: 'sparse', indices: Uint32Array.from([3, 9]), values: f32(0.5, 1.5) };
  const multi: Vector = { kind: 'multi', vectors: [f32(1, 2), f32(3, 4)] };

  /** Vectors as a client decodes them from a Get response. */
  function decoded(vectors: NamedVectors, legacyFields = false): GetResponse__Output['result'][number]['vectors'] {
    const response = wireResponse<GetResponse__Output>('Get', {
      result: [{ id: { num: 1 }, vectors: namedVectorsToProto(vectors, { legacyFields }) }],
    });
    return response.result[0].vectors;
  }

  it('should answer the default vector alone as `vector`, and named vectors as the map', () => {
    expect(decoded({ '': dense })).toEqual({
      vectorsOptions: 'vector',
      vector: { data: [], vector: 'dense', dense: { data: [1, 2] } },
    });
    const named = decoded({ s: sparse, m: multi });
    expect(named?.vectorsOptions).toBe('vectors');
    expect(named?.vectors?.vectors.s).toEqual({
      data: [],
      vector: 'sparse',
      sparse: { indices: [3, 9], values: [0.5, 1.5] },
    });
    expect(named?.vectors?.vectors.m).toEqual({
      data: [],
      vector: 'multiDense',
      multiDense: { vectors: [{ data: [1, 2] }, { data: [3, 4] }] },
    });
    expect(decoded({})).toEqual({ vectorsOptions: 'vectors', vectors: { vectors: {} } });
  });

  it('should also fill the deprecated flat fields when asked', () => {
    expect(vectorToProto(dense, { legacyFields: true })).toEqual({ data: [1, 2], dense: { data: [1, 2] } });
    expect(vectorToProto(sparse, { legacyFields: true })).toEqual({
      data: [0.5, 1.5],
      indices: { data: [3, 9] },
      sparse: { values: [0.5, 1.5], indices: [3, 9] },
    });
    const m = decoded({ '': multi }, true);
    expect(m?.vector).toMatchObject({ data: [1, 2, 3, 4], vectorsCount: 2, vector: 'multiDense' });
  });

  it('should round-trip every shape: domain -> response -> request -> domain', () => {
    for (const vector of [dense, multi]) {
      const out = vectorToProto(vector);
      expect(single(out as ProtoVector)).toEqual(vector);
    }
    expect(vectorsOverWire({ vectors: { vectors: { s: vectorToProto(sparse) as ProtoVector } } })).toEqual({
      s: sparse,
    });
  });
});
