// Index configuration: field names follow Qdrant / the HNSW paper, defaults are Qdrant's.
import { availableParallelism } from 'node:os';
import { EngineInputError } from '../errors';
import { DATATYPES, Datatype, DISTANCES, Distance } from '../distance/metric';
import { checkQuantizationConfig, QuantizationConfig } from '../quantization/config';
import { checkInt } from '../validate';

/** What the consumer passes to create an index (one per segment and vector name). */
export interface IndexConfig {
  /** Vector dimension, 1..65536. */
  readonly dim: number;
  readonly distance: Distance;
  /** Stored element type; default 'float32'. Cosine vectors are normalized before storing. */
  readonly datatype?: Datatype;
  /** HNSW `m`: links per node on upper levels; level 0 keeps m0 = 2m. Default 16. */
  readonly m?: number;
  /** HNSW `ef_construct`: beam width while building. Default 100. */
  readonly efConstruct?: number;
  /** Default search `ef` when a search gives none. Default efConstruct. */
  readonly ef?: number;
  /**
   * Qdrant's `full_scan_threshold` in KB of vector data (default 10000): a filtered search whose allowed
   * points hold less vector data than this uses an exact scan instead of the graph.
   */
  readonly fullScanThreshold?: number;
  /** Quantization to train (with `quantize()`, or automatically on first need). */
  readonly quantization?: QuantizationConfig;
  /** Seed for levels and quantizer sampling. Default 42. */
  readonly seed?: number;
  /** Slots to reserve up front. Default 1024; capacity doubles as needed. */
  readonly initialCapacity?: number;
  /**
   * Qdrant's `max_indexing_threads`: threads that build the graph (the caller plus worker_threads).
   * 0 = one per available CPU; default 1 (single-threaded and reproducible for a given seed).
   */
  readonly maxIndexingThreads?: number;
}

export type ResolvedConfig = Required<Omit<IndexConfig, 'quantization'>> & {
  readonly quantization?: QuantizationConfig;
};

export function resolveConfig(c: IndexConfig): ResolvedConfig {
  if (c == null || typeof c !== 'object') throw new EngineInputError('index config: expected an object');
  checkInt('dim', c.dim, 1, 65536);
  if (!DISTANCES.includes(c.distance))
    throw new EngineInputError(`distance: expected one of ${DISTANCES.join(', ')}, got ${String(c.distance)}`);
  const datatype = c.datatype ?? 'float32';
  if (!DATATYPES.includes(datatype))
    throw new EngineInputError(`datatype: expected one of ${DATATYPES.join(', ')}, got ${String(datatype)}`);
  const m = checkInt('m', c.m ?? 16, 2, 512);
  const efConstruct = checkInt('efConstruct', c.efConstruct ?? 100, 4, 100000);
  const ef = checkInt('ef', c.ef ?? efConstruct, 1, 100000);
  const fullScanThreshold = checkInt('fullScanThreshold', c.fullScanThreshold ?? 10000, 0);
  const seed = checkInt('seed', c.seed ?? 42, 0, 0xffffffff);
  const initialCapacity = checkInt('initialCapacity', c.initialCapacity ?? 1024, 1, 1 << 30);
  const threads = checkInt('maxIndexingThreads', c.maxIndexingThreads ?? 1, 0, 256);
  const maxIndexingThreads = threads === 0 ? availableParallelism() : threads;
  if (c.quantization) checkQuantizationConfig(c.quantization);
  return {
    dim: c.dim,
    distance: c.distance,
    datatype,
    m,
    efConstruct,
    ef,
    fullScanThreshold,
    seed,
    initialCapacity,
    maxIndexingThreads,
    quantization: c.quantization,
  };
}
