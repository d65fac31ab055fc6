import { ErrorKind } from '@vectorstore/common';
import { CollectionConfig } from '../model/collection.model';
import { CreateCollectionRequest, UpdateCollectionRequest } from '../model/requests.model';
import { applyCollectionUpdate, buildCollectionConfig } from './collection-config.builder';
import { DEFAULT_OPTIMIZERS_CONFIG } from './defaults';
import { dense, domainErrorOf } from '../testing/collections-fixtures';

function build(request: Partial<CreateCollectionRequest> = {}): CollectionConfig {
  return buildCollectionConfig({ name: 'c', ...request });
}

function update(config: CollectionConfig, diff: Omit<UpdateCollectionRequest, 'name'>): CollectionConfig {
  return applyCollectionUpdate(config, { name: 'c', ...diff });
}

describe('buildCollectionConfig', () => {
  it('should fill every default for a request with only vectors', () => {
    expect(build({ vectors: { params: dense() } })).toEqual({
      params: {
        shardNumber: 1,
        onDiskPayload: true,
        vectors: { params: { size: 4, distance: 'Cosine' } },
        replicationFactor: 1,
        writeConsistencyFactor: 1,
      },
      hnswConfig: { m: 16, efConstruct: 100, fullScanThreshold: 10000, maxIndexingThreads: 0, onDisk: false },
      optimizerConfig: {
        deletedThreshold: 0.2,
        vacuumMinVectorNumber: 1000,
        defaultSegmentNumber: 0,
        indexingThreshold: 20000,
        flushIntervalSec: 5,
        maxOptimizationThreads: { setting: 'Auto' },
      },
      walConfig: { walCapacityMb: 32, walSegmentsAhead: 0, walRetainClosed: 1 },
      metadata: {},
    });
  });

  it('should not store undefined keys in params', () => {
    expect(Object.keys(build().params).sort()).toEqual([
      'onDiskPayload',
      'replicationFactor',
      'shardNumber',
      'vectors',
      'writeConsistencyFactor',
    ]);
  });

  it('should use an empty named map when vectors_config is absent', () => {
    expect(build().params.vectors).toEqual({ paramsMap: {} });
  });

  it('should leave quantization and strict mode unset by default', () => {
    const config = build();

    expect('quantizationConfig' in config).toBe(false);
    expect('strictModeConfig' in config).toBe(false);
  });

  it('should let request values override the defaults field by field', () => {
    const config = build({
      hnswConfig: { m: 32, payloadM: 8 },
      optimizersConfig: { indexingThreshold: 0, maxOptimizationThreads: { value: 2 } },
      walConfig: { walCapacityMb: 64 },
      shardNumber: 3,
      replicationFactor: 2,
      writeConsistencyFactor: 2,
      onDiskPayload: false,
      shardingMethod: 'Custom',
      sparseVectors: { text: { modifier: 'Idf' } },
      quantizationConfig: { scalar: { type: 'Int8', quantile: 0.99 } },
      strictModeConfig: { enabled: true, maxQueryLimit: 10 },
      metadata: { owner: 'me', n: 5n },
    });

    expect(config.hnswConfig).toEqual({
      m: 32,
      efConstruct: 100,
      fullScanThreshold: 10000,
      maxIndexingThreads: 0,
      onDisk: false,
      payloadM: 8,
    });
    expect(config.optimizerConfig.indexingThreshold).toBe(0);
    expect(config.optimizerConfig.maxOptimizationThreads).toEqual({ value: 2 });
    expect(config.optimizerConfig.deletedThreshold).toBe(0.2);
    expect(config.walConfig).toEqual({ walCapacityMb: 64, walSegmentsAhead: 0, walRetainClosed: 1 });
    expect(config.params).toMatchObject({
      shardNumber: 3,
      replicationFactor: 2,
      writeConsistencyFactor: 2,
      onDiskPayload: false,
      shardingMethod: 'Custom',
      sparseVectors: { text: { modifier: 'Idf' } },
    });
    expect(config.quantizationConfig).toEqual({ scalar: { type: 'Int8', quantile: 0.99 } });
    expect(config.strictModeConfig).toEqual({ enabled: true, maxQueryLimit: 10 });
    expect(config.metadata).toEqual({ owner: 'me', n: 5n });
  });

  it('should ignore undefined fields of a diff instead of clearing the default', () => {
    expect(build({ hnswConfig: { m: undefined, efConstruct: 50 } }).hnswConfig.m).toBe(16);
  });

  it('should drop null metadata values on create', () => {
    expect(build({ metadata: { keep: 'x', gone: null } }).metadata).toEqual({ keep: 'x' });
  });

  it('should not let a change to one built config leak into the defaults or other configs', () => {
    const first = build();
    first.hnswConfig.m = 99;
    first.optimizerConfig.maxOptimizationThreads = { value: 1 };
    first.walConfig.walCapacityMb = 1;

    expect(build().hnswConfig.m).toBe(16);
    expect(build().optimizerConfig.maxOptimizationThreads).toEqual({ setting: 'Auto' });
    expect(build().walConfig.walCapacityMb).toBe(32);
  });

  it('should not share the nested max_optimization_threads default between configs', () => {
    const first = build();
    const threads = first.optimizerConfig.maxOptimizationThreads as { setting: string };
    threads.setting = 'Changed';
    try {
      expect(DEFAULT_OPTIMIZERS_CONFIG.maxOptimizationThreads).toEqual({ setting: 'Auto' });
      expect(build().optimizerConfig.maxOptimizationThreads).toEqual({ setting: 'Auto' });
    } finally {
      // Undo the damage if the default was shared, so later tests see the real default.
      threads.setting = 'Auto';
    }
  });
});

describe('applyCollectionUpdate', () => {
  it('should record memory placements as given and merge their changes', () => {
    const config = build({ vectors: { params: dense({ memory: 'Cached' }) } });
    expect(config.params.payload).toBeUndefined();

    const next = update(config, {
      vectors: { params: { memory: 'Cold' } },
      params: { payload: { memory: 'Cached' }, replicationFactor: 2 },
    });

    expect(next.params.vectors).toEqual({ params: dense({ memory: 'Cold' }) });
    expect(next.params.payload).toEqual({ memory: 'Cached' });
    expect(next.params.replicationFactor).toBe(2);
    expect(update(next, { params: { payload: {} } }).params.payload).toEqual({ memory: 'Cached' });
  });

  it('should merge the hnsw, optimizers and params diffs over the stored values', () => {
    const config = build({ vectors: { params: dense() } });

    const next = update(config, {
      hnswConfig: { efConstruct: 200 },
      optimizersConfig: { deletedThreshold: 0.5 },
      params: { replicationFactor: 3, onDiskPayload: false },
    });

    expect(next.hnswConfig).toEqual({ ...config.hnswConfig, efConstruct: 200 });
    expect(next.optimizerConfig).toEqual({ ...config.optimizerConfig, deletedThreshold: 0.5 });
    expect(next.params).toEqual({ ...config.params, replicationFactor: 3, onDiskPayload: false });
    expect(next.walConfig).toEqual(config.walConfig);
  });

  it('should return an equal config for an empty update', () => {
    const config = build({ vectors: { params: dense() } });

    expect(update(config, {})).toEqual(config);
  });

  it('should not mutate the input config', () => {
    const config = build({
      vectors: { paramsMap: { a: dense({ hnswConfig: { m: 8 } }) } },
      sparseVectors: { s: { index: { onDisk: false } } },
      strictModeConfig: { enabled: false, multivectorConfig: { a: { maxVectors: 2 } } },
      quantizationConfig: { binary: {} },
      metadata: { k: 'v' },
    });
    const before = structuredClone(config);

    update(config, {
      hnswConfig: { m: 4 },
      optimizersConfig: { flushIntervalSec: 9 },
      params: { replicationFactor: 2 },
      vectors: { paramsMap: { a: { hnswConfig: { efConstruct: 9 }, onDisk: true } } },
      sparseVectors: { s: { index: { onDisk: true } } },
      strictModeConfig: { enabled: true, multivectorConfig: { b: { maxVectors: 3 } } },
      quantizationConfig: { disabled: true },
      metadata: { k: null, x: 1 },
    });

    expect(config).toEqual(before);
  });

  it('should merge a diff for the unnamed vector', () => {
    const config = build({ vectors: { params: dense({ hnswConfig: { m: 8 } }) } });

    const next = update(config, { vectors: { params: { hnswConfig: { efConstruct: 64 }, onDisk: true } } });

    expect(next.params.vectors).toEqual({
      params: { size: 4, distance: 'Cosine', onDisk: true, hnswConfig: { m: 8, efConstruct: 64 } },
    });
  });

  it('should treat a params_map entry named "" as the unnamed vector', () => {
    const config = build({ vectors: { params: dense() } });

    const next = update(config, { vectors: { paramsMap: { '': { onDisk: true } } } });

    expect(next.params.vectors).toEqual({ params: { size: 4, distance: 'Cosine', onDisk: true } });
  });

  it('should apply a per-named-vector diff only to that vector', () => {
    const config = build({ vectors: { paramsMap: { a: dense(), b: dense({ size: 8 }) } } });

    const next = update(config, { vectors: { paramsMap: { b: { hnswConfig: { m: 4 }, onDisk: true } } } });

    expect(next.params.vectors).toEqual({
      paramsMap: { a: dense(), b: { size: 8, distance: 'Cosine', hnswConfig: { m: 4 }, onDisk: true } },
    });
  });

  it('should remove a per-vector hnsw override when its diff is empty', () => {
    const config = build({ vectors: { paramsMap: { a: dense({ hnswConfig: { m: 8, efConstruct: 64 } }) } } });

    const next = update(config, { vectors: { paramsMap: { a: { hnswConfig: {} } } } });

    expect(next.params.vectors).toEqual({ paramsMap: { a: dense() } });
  });

  it('should remove per-vector quantization on disabled and replace it otherwise', () => {
    const config = build({
      vectors: { paramsMap: { a: dense({ quantizationConfig: { scalar: { type: 'Int8' } } }), b: dense() } },
    });

    const next = update(config, {
      vectors: {
        paramsMap: {
          a: { quantizationConfig: { disabled: true } },
          b: { quantizationConfig: { product: { compression: 'x16' } } },
        },
      },
    });

    expect(next.params.vectors).toEqual({
      paramsMap: { a: dense(), b: dense({ quantizationConfig: { product: { compression: 'x16' } } }) },
    });
  });

  it('should remove collection-level quantization on disabled', () => {
    const config = build({ quantizationConfig: { scalar: { type: 'Int8', quantile: 0.9 } } });

    const next = update(config, { quantizationConfig: { disabled: true } });

    expect('quantizationConfig' in next).toBe(false);
  });

  it('should replace collection-level quantization with another kind entirely', () => {
    const config = build({ quantizationConfig: { scalar: { type: 'Int8', quantile: 0.9, alwaysRam: true } } });

    const next = update(config, { quantizationConfig: { binary: { encoding: 'TwoBits' } } });

    expect(next.quantizationConfig).toEqual({ binary: { encoding: 'TwoBits' } });
  });

  it('should reject an unknown named vector with InvalidArgument', () => {
    const config = build({ vectors: { paramsMap: { a: dense() } } });

    const error = domainErrorOf(() => update(config, { vectors: { paramsMap: { missing: { onDisk: true } } } }));

    expect(error.kind).toBe(ErrorKind.InvalidArgument);
    expect(error.message).toContain('Not existing vector name');
    expect(error.message).toContain('missing');
  });

  it('should reject a named diff on a collection with one unnamed vector', () => {
    const config = build({ vectors: { params: dense() } });

    expect(domainErrorOf(() => update(config, { vectors: { paramsMap: { a: {} } } })).kind).toBe(
      ErrorKind.InvalidArgument,
    );
  });

  it('should reject an unnamed diff on a collection with named vectors', () => {
    const config = build({ vectors: { paramsMap: { a: dense() } } });

    expect(domainErrorOf(() => update(config, { vectors: { params: { onDisk: true } } })).kind).toBe(
      ErrorKind.InvalidArgument,
    );
  });

  it('should merge a sparse diff into the stored index config and keep the modifier', () => {
    const config = build({
      sparseVectors: { s: { index: { fullScanThreshold: 100, onDisk: false }, modifier: 'Idf' }, t: {} },
    });

    const next = update(config, { sparseVectors: { s: { index: { onDisk: true } } } });

    expect(next.params.sparseVectors).toEqual({
      s: { index: { fullScanThreshold: 100, onDisk: true }, modifier: 'Idf' },
      t: {},
    });
  });

  it('should reject a diff for an unknown sparse vector', () => {
    const config = build({ sparseVectors: { s: {} } });

    expect(domainErrorOf(() => update(config, { sparseVectors: { nope: {} } })).kind).toBe(ErrorKind.InvalidArgument);
  });

  it('should merge strict mode field by field, and per-vector limit maps by vector name', () => {
    const config = build({
      strictModeConfig: {
        enabled: true,
        maxQueryLimit: 10,
        multivectorConfig: { a: { maxVectors: 2 } },
        sparseConfig: { s: { maxLength: 5 } },
      },
    });

    const next = update(config, { strictModeConfig: { maxTimeout: 30, multivectorConfig: { b: { maxVectors: 3 } } } });

    expect(next.strictModeConfig).toEqual({
      enabled: true,
      maxQueryLimit: 10,
      maxTimeout: 30,
      multivectorConfig: { a: { maxVectors: 2 }, b: { maxVectors: 3 } },
      sparseConfig: { s: { maxLength: 5 } },
    });
  });

  it('should create strict mode from a diff when none was stored', () => {
    expect(update(build(), { strictModeConfig: { enabled: true } }).strictModeConfig).toEqual({ enabled: true });
  });

  it('should merge metadata with null removing a key', () => {
    const config = build({ metadata: { a: 1, b: 'x', big: 2n ** 64n } });

    const next = update(config, { metadata: { a: null, c: [1n, 2] } });

    expect(next.metadata).toEqual({ b: 'x', big: 2n ** 64n, c: [1n, 2] });
  });
});
