import { QuantizationConfig } from '@vectorstore/collections';
import { DomainError } from '@vectorstore/common';
import {
  AllowedSlots,
  QuantizationConfig as EngineQuantization,
  MultiVectorIndex,
  SparseCorpus,
  SparseIndex,
  VectorIndex,
  higherIsBetter,
} from '@vectorstore/engine';
import { deserialize, serialize } from 'node:v8';
import { DiskDenseSegmentVectors, DiskVectorsLayout } from './disk-dense-vectors';
import { SearchParams } from '../model/query.model';
import { MultiDenseVector, SparseVector, Vector } from '../model/vectors.model';
import { SegmentFile } from './segment-file';
import { SlotMap } from './slot-map';
import { VectorSpace } from './vector-space';

/** Quantization an on-disk index walks its graph on when the collection configures none. */
const INTERNAL_QUANTIZATION: EngineQuantization = { scalar: { type: 'int8' } };

interface SavedDenseVectors {
  slots: ReturnType<SlotMap['toJSON']>;
  index: Uint8Array;
  indexed: boolean;
  /** Present when the original vectors are in the segment's vector file. */
  disk?: DiskVectorsLayout;
}

/** Hits of one vector space of one segment, in point-slot space, best first. */
export interface SlotHits {
  slots: Uint32Array;
  scores: Float32Array;
}

/**
 * The vectors of one named space inside a segment. Point slots (the segment's) map to dense vector
 * slots (the engine's), because not every point has every named vector and updates re-add vectors.
 */
export interface SegmentVectors {
  readonly space: VectorSpace;
  /** Number of points that have a vector here (not deleted). */
  readonly count: number;
  /** Whether a graph (or other index) serves searches, rather than a scan. */
  readonly indexed: boolean;
  /** Whether the original vectors are read from the segment's file rather than held in memory. */
  readonly onDisk: boolean;
  set(pointSlot: number, vector: Vector): void;
  remove(pointSlot: number): void;
  has(pointSlot: number): boolean;
  get(pointSlot: number): Vector | undefined;
  /** Every stored vector with its point slot (bulk reads where the vectors are on disk). */
  forEach(visit: (pointSlot: number, vector: Vector) => void): void;
  /** k best point slots among `allowed` (point-slot predicate), or all points with a vector. */
  search(
    query: Vector,
    k: number,
    allowed: ((pointSlot: number) => boolean) | undefined,
    params: SearchParams | undefined,
  ): SlotHits;
  /** Scores of the query against these point slots (skipping those without a vector). */
  score(query: Vector, pointSlots: ArrayLike<number>): SlotHits;
  save(): Uint8Array;
  /** Releases worker threads and memory held outside the JS heap. */
  dispose(): void;
}

/** Our quantization names (Qdrant's) to the engine's. */
export function engineQuantization(q: QuantizationConfig | undefined): EngineQuantization | undefined {
  if (!q) return undefined;
  if ('scalar' in q) return { scalar: { type: 'int8', quantile: q.scalar.quantile, alwaysRam: q.scalar.alwaysRam } };
  if ('product' in q) return { product: { compression: q.product.compression, alwaysRam: q.product.alwaysRam } };
  const encoding = { OneBit: 'one_bit', TwoBits: 'two_bits', OneAndHalfBits: 'one_and_half_bits' } as const;
  const queryEncoding = {
    Default: 'default',
    Binary: 'binary',
    Scalar4Bits: 'scalar4bits',
    Scalar8Bits: 'scalar8bits',
  } as const;
  return {
    binary: {
      alwaysRam: q.binary.alwaysRam,
      encoding: q.binary.encoding ? encoding[q.binary.encoding] : undefined,
      queryEncoding: q.binary.queryEncoding ? queryEncoding[q.binary.queryEncoding] : undefined,
    },
  } as EngineQuantization;
}

export function wrongKind(space: VectorSpace, vector: Vector): DomainError {
  const name = space.name === '' ? 'default vector' : `vector \`${space.name}\``;
  return DomainError.invalidArgument(`Wrong input: ${name} expects a ${space.kind} vector, got ${vector.kind}`);
}

/** Dense vectors in an engine HNSW index (graph built as vectors arrive, searched by graph or scan). */
export class DenseSegmentVectors implements SegmentVectors {
  readonly onDisk = false;
  private slots = new SlotMap();

  constructor(
    readonly space: Extract<VectorSpace, { kind: 'dense' | 'multi' }>,
    private readonly index: VectorIndex,
    readonly indexed: boolean,
  ) {}

  static create(
    space: Extract<VectorSpace, { kind: 'dense' | 'multi' }>,
    indexed: boolean,
    capacity = 256,
  ): DenseSegmentVectors {
    // Appendable segments are always scanned exactly, so their graph only costs inserts: keep it minimal.
    const index = new VectorIndex({
      dim: space.dim,
      distance: space.distance,
      datatype: space.datatype,
      m: indexed ? (space.hnsw.m === 0 ? 16 : space.hnsw.m) : 2,
      efConstruct: indexed ? space.hnsw.efConstruct : 4,
      fullScanThreshold: space.hnsw.fullScanThreshold,
      quantization: indexed ? engineQuantization(space.quantization) : undefined,
      initialCapacity: capacity,
      // Indexed segments are built by the optimizer in one batch, which the engine parallelises.
      maxIndexingThreads: indexed ? space.hnsw.maxIndexingThreads : 1,
    });
    return new DenseSegmentVectors(space, index, indexed);
  }

  /**
   * Adds many vectors in one engine call (a parallel graph build): `values` holds one vector per
   * entry of `pointSlots`, back to back. The slots must not have vectors yet.
   */
  addPacked(pointSlots: ArrayLike<number>, values: Float32Array): void {
    if (pointSlots.length === 0) return;
    if (values.length !== pointSlots.length * this.space.dim) {
      throw new Error(`${values.length} values for ${pointSlots.length} vectors in a ${this.space.dim}-d space`);
    }
    const first = this.index.add(values);
    for (let i = 0; i < pointSlots.length; i++) this.slots.link(pointSlots[i], first + i);
  }

  dispose(): void {
    this.index.dispose();
  }

  get count(): number {
    return this.slots.live;
  }

  set(pointSlot: number, vector: Vector): void {
    if (vector.kind !== 'dense') throw wrongKind(this.space, vector);
    this.remove(pointSlot);
    const engineSlot = this.index.addVector(vector.values);
    this.slots.link(pointSlot, engineSlot);
  }

  remove(pointSlot: number): void {
    const engineSlot = this.slots.unlink(pointSlot);
    if (engineSlot >= 0) this.index.delete(engineSlot);
  }

  has(pointSlot: number): boolean {
    return this.slots.engineSlot(pointSlot) >= 0;
  }

  get(pointSlot: number): Vector | undefined {
    const engineSlot = this.slots.engineSlot(pointSlot);
    return engineSlot < 0 ? undefined : { kind: 'dense', values: this.index.getVector(engineSlot) };
  }

  forEach(visit: (pointSlot: number, vector: Vector) => void): void {
    for (let engineSlot = 0; engineSlot < this.index.size; engineSlot++) {
      const pointSlot = this.slots.pointSlot(engineSlot);
      if (pointSlot >= 0) visit(pointSlot, { kind: 'dense', values: this.index.getVector(engineSlot) });
    }
  }

  search(
    query: Vector,
    k: number,
    allowed: ((pointSlot: number) => boolean) | undefined,
    params: SearchParams | undefined,
  ): SlotHits {
    if (query.kind !== 'dense') throw wrongKind(this.space, query);
    if (this.slots.live === 0) return { slots: new Uint32Array(0), scores: new Float32Array(0) };
    const hits = this.index.search(query.values, {
      k: Math.min(k, this.slots.live),
      ef: params?.hnswEf,
      exact: params?.exact === true || !this.indexed,
      allowed: this.slots.engineFilter(allowed) as AllowedSlots | undefined,
      quantization: params?.quantization,
    });
    return this.slots.toPointHits(hits);
  }

  score(query: Vector, pointSlots: ArrayLike<number>): SlotHits {
    if (query.kind !== 'dense') throw wrongKind(this.space, query);
    const { kept, engineSlots } = this.slots.withVectors(pointSlots);
    const scores = engineSlots.length === 0 ? new Float32Array(0) : this.index.scoreSlots(query.values, engineSlots);
    return { slots: Uint32Array.from(kept), scores };
  }

  save(): Uint8Array {
    const state: SavedDenseVectors = { slots: this.slots.toJSON(), index: this.index.save(), indexed: this.indexed };
    return serialize(state);
  }

  /**
   * Moves the original vectors out: returns the saved state without them, and a way to export their
   * rows (for the segment's vector file, at `offset` in `file`) once they are to be written. An index
   * without quantization gets an internal int8 one first, because searches must walk the graph on
   * something held in memory.
   */
  saveExternal(file: string, offset: number): { rows: () => Uint8Array; rowsBytes: number; bytes: Uint8Array } {
    // The configured quantization may not be trained yet (the engine trains at the first search).
    const internalQuantization = this.index.config.quantization === undefined;
    if (this.index.quantization === undefined)
      this.index.quantize(internalQuantization ? INTERNAL_QUANTIZATION : undefined);
    const state: SavedDenseVectors = {
      slots: this.slots.toJSON(),
      index: this.index.save({ vectors: false }),
      indexed: true,
      disk: { file, offset, rowBytes: this.index.rowBytes, internalQuantization },
    };
    return {
      rows: () => this.index.exportRows(),
      rowsBytes: this.index.size * this.index.rowBytes,
      bytes: serialize(state),
    };
  }

  static load(
    space: Extract<VectorSpace, { kind: 'dense' | 'multi' }>,
    bytes: Uint8Array,
    openFile?: (name: string) => SegmentFile,
  ): SegmentVectors {
    const state = deserialize(bytes) as SavedDenseVectors;
    const index = VectorIndex.load(state.index);
    if (state.disk) {
      if (!openFile)
        throw new Error(
          `vectors of \`${space.name}\` are in ${state.disk.file}, but no folder was given to open it from`,
        );
      return new DiskDenseSegmentVectors(
        space,
        index,
        SlotMap.from(state.slots),
        openFile(state.disk.file),
        state.disk,
      );
    }
    const vectors = new DenseSegmentVectors(space, index, state.indexed);
    vectors.slots = SlotMap.from(state.slots);
    return vectors;
  }
}

/**
 * A store over an engine index that cannot read vectors back or save itself (sparse, multivector):
 * the segment keeps each vector, to return and persist it, and loading re-adds them.
 */
abstract class CopyKeepingVectors<
  V extends Vector,
  E extends { delete(slots: ArrayLike<number>): void },
> implements SegmentVectors {
  readonly onDisk = false;
  protected readonly vectors = new Map<number, V>();
  protected readonly engineSlots = new SlotMap();
  abstract readonly indexed: boolean;

  protected constructor(
    readonly space: VectorSpace,
    protected readonly index: E,
    private readonly kind: V['kind'],
  ) {}

  /** Adds one vector to the engine index; returns its engine slot. */
  protected abstract addToIndex(vector: V): number;
  /** Engine search on this index's own query form. */
  protected abstract searchIndex(
    query: V,
    k: number,
    allowed: ((engineSlot: number) => boolean) | undefined,
  ): { slots: Uint32Array; scores: Float32Array };

  get count(): number {
    return this.vectors.size;
  }

  set(pointSlot: number, vector: Vector): void {
    const typed = this.checked(vector);
    this.remove(pointSlot);
    this.engineSlots.link(pointSlot, this.addToIndex(typed));
    this.vectors.set(pointSlot, typed);
  }

  remove(pointSlot: number): void {
    const engineSlot = this.engineSlots.unlink(pointSlot);
    if (engineSlot >= 0) this.index.delete([engineSlot]);
    this.vectors.delete(pointSlot);
  }

  has(pointSlot: number): boolean {
    return this.vectors.has(pointSlot);
  }

  get(pointSlot: number): Vector | undefined {
    return this.vectors.get(pointSlot);
  }

  forEach(visit: (pointSlot: number, vector: Vector) => void): void {
    for (const [pointSlot, vector] of this.vectors) visit(pointSlot, vector);
  }

  search(query: Vector, k: number, allowed: ((pointSlot: number) => boolean) | undefined): SlotHits {
    const typed = this.checked(query);
    if (this.vectors.size === 0) return { slots: new Uint32Array(0), scores: new Float32Array(0) };
    return this.engineSlots.toPointHits(this.searchIndex(typed, k, this.engineSlots.engineFilter(allowed)));
  }

  /**
   * Scores of every given slot that has a vector. The index only finds vectors sharing a dimension
   * with a sparse query; the others score 0 (the dot product), as Qdrant scores them.
   */
  score(query: Vector, pointSlots: ArrayLike<number>): SlotHits {
    const set = new Set(Array.from(pointSlots));
    const found = this.search(query, set.size || 1, (slot) => set.has(slot));
    const scored = new Set(found.slots);
    const rest = [...set].filter((slot) => !scored.has(slot) && this.vectors.has(slot));
    if (rest.length === 0) return found;
    return {
      slots: Uint32Array.from([...found.slots, ...rest]),
      scores: Float32Array.from([...found.scores, ...rest.map(() => 0)]),
    };
  }

  save(): Uint8Array {
    return serialize({ vectors: [...this.vectors] });
  }

  dispose(): void {
    // Engine memory here is released with the object; no worker threads.
  }

  /** Re-adds saved vectors (an inverted index or a flat list rebuilds in linear time). */
  protected restore(bytes: Uint8Array): this {
    const state = deserialize(bytes) as { vectors: Array<[number, V]> };
    for (const [slot, vector] of state.vectors) this.set(slot, vector);
    return this;
  }

  private checked(vector: Vector): V {
    if (vector.kind !== this.kind) throw wrongKind(this.space, vector);
    return vector as V;
  }
}

/** Sparse vectors in the engine's inverted index. */
export class SparseSegmentVectors extends CopyKeepingVectors<SparseVector, SparseIndex> {
  readonly indexed = true;
  /**
   * IDF statistics of the whole shard, set by the shard holding this segment: with the idf modifier,
   * scores must not depend on how points are spread over segments. Absent: this segment alone.
   */
  corpus: (() => SparseCorpus) | undefined;

  /** Live vectors here with a non-zero weight at `dim`. */
  documentFrequency(dim: number): number {
    return this.index.documentFrequency(dim);
  }

  static create(space: Extract<VectorSpace, { kind: 'sparse' }>): SparseSegmentVectors {
    return new SparseSegmentVectors(space, new SparseIndex({ modifier: space.idf ? 'idf' : 'none' }), 'sparse');
  }

  static load(space: Extract<VectorSpace, { kind: 'sparse' }>, bytes: Uint8Array): SparseSegmentVectors {
    return SparseSegmentVectors.create(space).restore(bytes);
  }

  protected addToIndex(vector: SparseVector): number {
    return this.index.add([{ indices: vector.indices, values: vector.values }]);
  }

  protected searchIndex(query: SparseVector, k: number, allowed: ((engineSlot: number) => boolean) | undefined) {
    return this.index.search({ indices: query.indices, values: query.values }, k, allowed, this.corpus?.());
  }
}

/** Multivectors scored with MaxSim by the engine. */
export class MultiSegmentVectors extends CopyKeepingVectors<MultiDenseVector, MultiVectorIndex> {
  readonly indexed = false;

  static create(space: Extract<VectorSpace, { kind: 'dense' | 'multi' }>): MultiSegmentVectors {
    return new MultiSegmentVectors(space, new MultiVectorIndex({ dim: space.dim, distance: space.distance }), 'multi');
  }

  static load(space: Extract<VectorSpace, { kind: 'dense' | 'multi' }>, bytes: Uint8Array): MultiSegmentVectors {
    return MultiSegmentVectors.create(space).restore(bytes);
  }

  protected addToIndex(vector: MultiDenseVector): number {
    return this.index.add([vector.vectors]);
  }

  protected searchIndex(query: MultiDenseVector, k: number, allowed: ((engineSlot: number) => boolean) | undefined) {
    return this.index.search(query.vectors, k, allowed);
  }
}

export function createSegmentVectors(space: VectorSpace, indexed: boolean): SegmentVectors {
  if (space.kind === 'sparse') return SparseSegmentVectors.create(space);
  if (space.kind === 'multi') return MultiSegmentVectors.create(space);
  return DenseSegmentVectors.create(space, indexed);
}

/** Restores saved vectors; `openFile` opens the segment's files for vectors kept on disk. */
export function loadSegmentVectors(
  space: VectorSpace,
  bytes: Uint8Array,
  openFile?: (name: string) => SegmentFile,
): SegmentVectors {
  if (space.kind === 'sparse') return SparseSegmentVectors.load(space, bytes);
  if (space.kind === 'multi') return MultiSegmentVectors.load(space, bytes);
  return DenseSegmentVectors.load(space, bytes, openFile);
}

/** Whether higher scores are better for a space (sparse and multi are similarities). */
export function spaceHigherIsBetter(space: VectorSpace): boolean {
  return space.kind !== 'dense' || higherIsBetter(space.distance);
}
