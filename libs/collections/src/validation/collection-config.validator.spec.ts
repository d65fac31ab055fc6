import { ErrorKind } from '@vectorstore/common';
import { CreateCollectionRequest, UpdateCollectionRequest } from '../model/requests.model';
import { Distance, VectorParams } from '../model/vectors.model';
import { dense, thrownDomainError } from '../testing/collections-fixtures';
import { validateCreateCollection, validateUpdateCollection } from './collection-config.validator';

function createError(request: Partial<CreateCollectionRequest>): string | undefined {
  return thrownDomainError(() => validateCreateCollection({ name: 'c', ...request }))?.message;
}

function updateError(request: Partial<UpdateCollectionRequest>): string | undefined {
  return thrownDomainError(() => validateUpdateCollection({ name: 'c', ...request }))?.message;
}

describe('validateCreateCollection', () => {
  it('should accept a minimal request, with or without vectors', () => {
    expect(createError({})).toBeUndefined();
    expect(createError({ vectors: { params: dense() } })).toBeUndefined();
    expect(createError({ vectors: { paramsMap: {} } })).toBeUndefined();
  });

  it('should throw an InvalidArgument DomainError in the validation format', () => {
    const error = thrownDomainError(() =>
      validateCreateCollection({ name: 'c', vectors: { params: dense({ size: 0 }) } }),
    );

    expect(error?.kind).toBe(ErrorKind.InvalidArgument);
    expect(error?.message).toBe(
      'Validation error in body: [vectors_config.params.size: value 0 invalid, must be from 1 to 65536]',
    );
  });

  it.each([0, 65537])('should reject vector size %p', (size) => {
    expect(createError({ vectors: { params: dense({ size }) } })).toContain('vectors_config.params.size');
  });

  it.each([1, 65536])('should accept vector size %p', (size) => {
    expect(createError({ vectors: { params: dense({ size }) } })).toBeUndefined();
  });

  it('should reject a missing size', () => {
    const params = { distance: 'Cosine' } as unknown as VectorParams;

    expect(createError({ vectors: { params } })).toContain('vectors_config.params.size: must be set');
  });

  it('should reject a missing distance', () => {
    const params = { size: 4 } as unknown as VectorParams;

    expect(createError({ vectors: { params } })).toContain('vectors_config.params.distance: must be set');
  });

  it('should reject an unknown distance', () => {
    expect(createError({ vectors: { params: dense({ distance: 'Hamming' as Distance }) } })).toContain(
      'vectors_config.params.distance: value Hamming invalid',
    );
  });

  it('should name the vector in the path of a named vector', () => {
    expect(createError({ vectors: { paramsMap: { image: dense({ size: 0 }) } } })).toContain(
      'vectors_config.params_map.map.image.size',
    );
  });

  it('should reject ef_construct 3 and accept 4', () => {
    expect(createError({ hnswConfig: { efConstruct: 3 } })).toContain(
      'hnsw_config.ef_construct: value 3 invalid, must be 4 or larger',
    );
    expect(createError({ hnswConfig: { efConstruct: 4 } })).toBeUndefined();
  });

  it('should reject full_scan_threshold 9 and accept 10, as Qdrant', () => {
    expect(createError({ hnswConfig: { fullScanThreshold: 9 } })).toContain(
      'hnsw_config.full_scan_threshold: value 9 invalid, must be 10 or larger',
    );
    expect(createError({ hnswConfig: { fullScanThreshold: 10 } })).toBeUndefined();
  });

  it('should check per-vector hnsw config', () => {
    expect(createError({ vectors: { params: dense({ hnswConfig: { efConstruct: 1 } }) } })).toContain(
      'vectors_config.params.hnsw_config.ef_construct',
    );
  });

  it('should reject wal_capacity_mb 0', () => {
    expect(createError({ walConfig: { walCapacityMb: 0 } })).toContain(
      'wal_config.wal_capacity_mb: value 0 invalid, must be from 1 to 1048576',
    );
  });

  it('should reject wal_retain_closed 0', () => {
    expect(createError({ walConfig: { walRetainClosed: 0 } })).toContain('wal_config.wal_retain_closed');
  });

  it('should reject deleted_threshold 1.5', () => {
    expect(createError({ optimizersConfig: { deletedThreshold: 1.5 } })).toContain(
      'optimizers_config.deleted_threshold: value 1.5 invalid, must be from 0 to 1',
    );
  });

  it('should reject vacuum_min_vector_number 99 and accept 100', () => {
    expect(createError({ optimizersConfig: { vacuumMinVectorNumber: 99 } })).toContain(
      'optimizers_config.vacuum_min_vector_number',
    );
    expect(createError({ optimizersConfig: { vacuumMinVectorNumber: 100 } })).toBeUndefined();
  });

  it('should reject max_segment_size 0', () => {
    expect(createError({ optimizersConfig: { maxSegmentSize: 0 } })).toContain('optimizers_config.max_segment_size');
  });

  it.each([0.4, 1.1])('should reject scalar quantile %p', (quantile) => {
    expect(createError({ quantizationConfig: { scalar: { type: 'Int8', quantile } } })).toContain(
      `quantization_config.scalar.quantile: value ${quantile} invalid, must be from 0.5 to 1`,
    );
  });

  it.each([0.5, 0.99, 1])('should accept scalar quantile %p', (quantile) => {
    expect(createError({ quantizationConfig: { scalar: { type: 'Int8', quantile } } })).toBeUndefined();
  });

  it('should reject a scalar type other than Int8, including a missing one', () => {
    const bad = { scalar: { type: 'Int4' } } as unknown as CreateCollectionRequest['quantizationConfig'];
    const missing = { scalar: {} } as unknown as CreateCollectionRequest['quantizationConfig'];

    expect(createError({ quantizationConfig: bad })).toContain(
      'quantization_config.scalar.type: value Int4 invalid, must be Int8',
    );
    expect(createError({ quantizationConfig: missing })).toContain(
      'quantization_config.scalar.type: value UnknownQuantization invalid, must be Int8',
    );
  });

  it('should reject an unknown product compression', () => {
    const bad = { product: { compression: 'x3' } } as unknown as CreateCollectionRequest['quantizationConfig'];

    expect(createError({ quantizationConfig: bad })).toContain('quantization_config.product.compression');
  });

  it('should check per-vector quantization', () => {
    expect(
      createError({ vectors: { params: dense({ quantizationConfig: { scalar: { type: 'Int8', quantile: 2 } } }) } }),
    ).toContain('vectors_config.params.quantization_config.scalar.quantile');
  });

  it('should reject shard_number 0', () => {
    expect(createError({ shardNumber: 0 })).toContain('shard_number: value 0 invalid');
  });

  it('should reject replication_factor 0 and write_consistency_factor 0', () => {
    const message = createError({ replicationFactor: 0, writeConsistencyFactor: 0 });

    expect(message).toContain('replication_factor: value 0 invalid, must be 1 or larger');
    expect(message).toContain('write_consistency_factor: value 0 invalid, must be 1 or larger');
  });

  it('should accept replication_factor 2 on a single node', () => {
    expect(createError({ replicationFactor: 2 })).toBeUndefined();
  });

  it('should reject strict mode max_query_limit 0', () => {
    expect(createError({ strictModeConfig: { maxQueryLimit: 0 } })).toContain(
      'strict_mode_config.max_query_limit: value 0 invalid, must be 1 or larger',
    );
  });

  it('should reject strict mode search_max_oversampling below 1', () => {
    expect(createError({ strictModeConfig: { searchMaxOversampling: 0.5 } })).toContain(
      'strict_mode_config.search_max_oversampling',
    );
  });

  it('should reject an infinite strict mode search_max_oversampling (gRPC floats may be; found by the fuzz)', () => {
    expect(createError({ strictModeConfig: { searchMaxOversampling: Infinity } })).toContain(
      'strict_mode_config.search_max_oversampling: value Infinity invalid, must be a finite number',
    );
    expect(createError({ strictModeConfig: { searchMaxOversampling: NaN } })).toContain(
      'strict_mode_config.search_max_oversampling: value NaN invalid, must be 1 or larger',
    );
  });

  it('should reject a strict-rule collection name and accept 255 characters', () => {
    expect(createError({ name: 'a:b' })).toContain('collection_name: collection name cannot contain ":" char');
    expect(createError({ name: '' })).toContain('collection_name: length 0 invalid');
    expect(createError({ name: 'x'.repeat(256) })).toContain('collection_name: length 256 invalid');
    expect(createError({ name: 'x'.repeat(255) })).toBeUndefined();
    expect(createError({ name: '😀'.repeat(255) })).toBeUndefined();
  });

  it('should reject a dense vector name over 200 bytes', () => {
    const name = 'v'.repeat(201);

    expect(createError({ vectors: { paramsMap: { [name]: dense() } } })).toContain(
      `Invalid dense vector name \`${name}\``,
    );
  });

  it('should reject an empty sparse vector name', () => {
    expect(createError({ sparseVectors: { '': {} } })).toContain('Sparse vector name cannot be empty');
  });

  it('should reject a sparse name that collides with a dense name', () => {
    expect(createError({ vectors: { paramsMap: { text: dense() } }, sparseVectors: { text: {} } })).toContain(
      "Dense and sparse vector names must be unique - duplicate found with 'text'",
    );
  });

  it('should accept distinct dense and sparse names', () => {
    expect(
      createError({ vectors: { paramsMap: { image: dense() } }, sparseVectors: { text: { modifier: 'Idf' } } }),
    ).toBeUndefined();
  });

  it('should reject an unknown sparse modifier', () => {
    const sparse = { s: { modifier: 'Bm25' } } as unknown as CreateCollectionRequest['sparseVectors'];

    expect(createError({ sparseVectors: sparse })).toContain('sparse_vectors_config.map.s.modifier');
  });

  it('should report every problem together', () => {
    const message = createError({
      name: 'bad/name',
      vectors: { params: dense({ size: 0 }) },
      hnswConfig: { efConstruct: 3 },
      walConfig: { walCapacityMb: 0 },
      shardNumber: 0,
    });

    expect(message).toMatch(/^Validation error in body: \[.*\]$/);
    for (const path of [
      'collection_name',
      'vectors_config.params.size',
      'hnsw_config.ef_construct',
      'wal_config.wal_capacity_mb',
      'shard_number',
    ]) {
      expect(message).toContain(`${path}: `);
    }
    expect(message?.split('; ')).toHaveLength(5);
  });
});

describe('memory placements (Qdrant 1.19)', () => {
  it('should accept every placement where Qdrant does', () => {
    expect(
      createError({
        vectors: {
          params: dense({
            memory: 'Cached',
            hnswConfig: { memory: 'Pinned' },
            quantizationConfig: { scalar: { type: 'Int8', memory: 'Pinned' } },
          }),
        },
        sparseVectors: { s: { index: { memory: 'Cold' } } },
        payload: { memory: 'Cold' },
        hnswConfig: { memory: 'Cold' },
        quantizationConfig: { binary: { memory: 'Cached' } },
      }),
    ).toBeUndefined();
  });

  it('should refuse pinned dense vectors and pinned payloads in Qdrant words, on create and update', () => {
    expect(createError({ vectors: { params: dense({ memory: 'Pinned' }) }, payload: { memory: 'Pinned' } })).toBe(
      'Validation error in body: [vectors_config.params.memory: `pinned` memory placement is not supported for dense vector storage; payload.memory: `pinned` memory placement is not supported for payload storage]',
    );
    expect(updateError({ vectors: { params: { memory: 'Pinned' } }, params: { payload: { memory: 'Pinned' } } })).toBe(
      'Validation error in body: [params.payload.memory: `pinned` memory placement is not supported for payload storage; vectors_config.params.memory: `pinned` memory placement is not supported for dense vector storage]',
    );
  });

  it('should refuse a placement that is not one', () => {
    expect(createError({ hnswConfig: { memory: 'Warm' as never } })).toContain(
      'hnsw_config.memory: value Warm invalid, must be one of Cold, Cached, Pinned',
    );
  });
});

describe('the turbo4 datatype', () => {
  it('should be refused for sparse vectors in Qdrant words, and accepted for dense ones', () => {
    expect(createError({ sparseVectors: { text: { index: { datatype: 'Turbo4' } } } })).toBe(
      'Validation error in body: [sparse_vectors_config.map.text.index.datatype: sparse vectors do not support the `turbo4` datatype]',
    );
    expect(createError({ vectors: { params: dense({ datatype: 'Turbo4' }) } })).toBeUndefined();
  });

  it('should accept the turbo quantization and check its bits', () => {
    expect(createError({ quantizationConfig: { turbo: { bits: 'Bits2', alwaysRam: true } } })).toBeUndefined();
    expect(createError({ quantizationConfig: { turbo: { bits: 'Bits3' as never } } })).toContain('turbo.bits');
  });
});

describe('validateUpdateCollection', () => {
  it('should accept an empty update', () => {
    expect(updateError({})).toBeUndefined();
  });

  it('should accept a legacy collection name', () => {
    expect(updateError({ name: 'old:name' })).toBeUndefined();
  });

  it('should reject a name with "/"', () => {
    expect(updateError({ name: 'a/b' })).toContain('collection_name');
  });

  it('should reject timeout 0', () => {
    expect(updateError({ timeout: 0 })).toContain('timeout: value 0 invalid, must be 1 or larger');
  });

  it('should reject replication_factor 0 in params', () => {
    expect(updateError({ params: { replicationFactor: 0 } })).toContain('params.replication_factor');
  });

  it('should check optimizer, hnsw, quantization and strict-mode diffs', () => {
    const message = updateError({
      optimizersConfig: { deletedThreshold: 1.5 },
      hnswConfig: { efConstruct: 3 },
      quantizationConfig: { scalar: { type: 'Int8', quantile: 0.4 } },
      strictModeConfig: { maxQueryLimit: 0 },
    });

    expect(message).toContain('optimizers_config.deleted_threshold');
    expect(message).toContain('hnsw_config.ef_construct');
    expect(message).toContain('quantization_config.scalar.quantile');
    expect(message).toContain('strict_mode_config.max_query_limit');
  });

  it('should accept a disabled quantization diff', () => {
    expect(updateError({ quantizationConfig: { disabled: true } })).toBeUndefined();
  });

  it('should check per-vector diffs with the vector name in the path', () => {
    expect(updateError({ vectors: { paramsMap: { image: { hnswConfig: { efConstruct: 2 } } } } })).toContain(
      'vectors_config.params_map.map.image.hnsw_config.ef_construct',
    );
  });

  it('should accept an empty per-vector hnsw diff', () => {
    expect(updateError({ vectors: { params: { hnswConfig: {} } } })).toBeUndefined();
  });
});

describe('hnsw m = 0', () => {
  it('should accept m 0 with or without payload_m, as Qdrant (it disables the global graph)', () => {
    expect(createError({ hnswConfig: { m: 0 } })).toBeUndefined();
    expect(createError({ hnswConfig: { m: 0, payloadM: 0 } })).toBeUndefined();
    expect(createError({ vectors: { paramsMap: { image: dense({ hnswConfig: { m: 0 } }) } } })).toBeUndefined();
  });
});
