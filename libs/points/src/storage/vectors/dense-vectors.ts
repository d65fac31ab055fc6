import { AllowedSlots, QuantizationConfig as EngineQuantization, VectorIndex } from '@vectorstore/engine';
import { serialize } from 'node:v8';
import { SearchParams } from '../../model/query.model';
import { Vector } from '../../model/vectors.model';
import { VectorSpace } from '../vector-space';
import { engineQuantization } from './engine-quantization';
import { offloadSearch } from './search-offload';
import { SavedDenseVectors } from './saved-dense-vectors';
import { SegmentVectors, SlotHits, wrongKind } from './segment-vectors';
import { SlotMap } from './slot-map';

/** Quantization an on-disk index walks its graph on when the collection configures none. */
const INTERNAL_QUANTIZATION: EngineQuantization = { scalar: { type: 'int8' } };

/** Dense vectors in an engine HNSW index (graph built as vectors arrive, searched by graph or scan). */
export class DenseSegmentVectors implements SegmentVectors {
  readonly onDisk = false;
  /** KB; read at search time so that a changed collection setting applies to built segments too. */
  private fullScanThreshold: number;

  constructor(
    readonly space: Extract<VectorSpace, { kind: 'dense' | 'multi' }>,
    private readonly index: VectorIndex,
    readonly indexed: boolean,
    private readonly slots = new SlotMap(),
  ) {
    this.fullScanThreshold = space.hnsw.fullScanThreshold;
  }

  useFullScanThreshold(kb: number): void {
    this.fullScanThreshold = kb;
  }

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
    // worker threads stop in the background; the contract's dispose is synchronous
    void this.index.dispose();
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
      fullScanThreshold: this.fullScanThreshold,
    });
    return this.slots.toPointHits(hits);
  }

  /**
   * `search` on an engine worker thread, for a graph-indexed store (optimizer-built): such an index only takes
   * deletes afterwards, which flip bits and never move the memory workers read. Appendable stores answer
   * undefined (their upserts add vectors and may grow memory), so they are searched synchronously. Its slots
   * are linked one to one (point slot = engine slot), so a hit deleted while the search ran keeps its slot and
   * the caller can tell it from its live set.
   */
  searchAsync(
    query: Vector,
    k: number,
    allowed: (() => (pointSlot: number) => boolean) | undefined,
    params: SearchParams | undefined,
  ): Promise<SlotHits> | undefined {
    if (!this.indexed || !this.slots.isIdentity) return undefined;
    // Beside searches already on workers, a synchronous one must not grow the engine's heap: join them.
    if (!offloadSearch(this.estimatedMicros(k, allowed !== undefined, params)) && this.index.pendingSearches === 0)
      return undefined;
    if (query.kind !== 'dense') throw wrongKind(this.space, query);
    if (this.slots.live === 0) return undefined;
    return this.index.searchAsync(query.values, {
      k: Math.min(k, this.slots.live),
      ef: params?.hnswEf,
      exact: params?.exact === true,
      allowed: this.slots.engineFilter(allowed?.()) as AllowedSlots | undefined,
      quantization: params?.quantization,
      fullScanThreshold: this.fullScanThreshold,
    });
  }

  /**
   * Rough engine time of a search in µs (f32 on the 2-core bench machine, `bench/engine/search-async.ts`):
   * 0.001 µs a dimension of each vector an exact scan covers (every live one, or with a filter at most what
   * full_scan_threshold lets through), 0.02 µs a dimension per unit of a graph walk's beam (ef 64 over
   * 100k × 128-d Gaussian-mixture points: about 160-210 µs).
   */
  private estimatedMicros(k: number, filtered: boolean, params: SearchParams | undefined): number {
    const dim = this.space.dim;
    const scanned = filtered ? Math.min(this.slots.live, (this.fullScanThreshold * 1024) / (dim * 4)) : this.slots.live;
    if (params?.exact === true || filtered) return scanned * dim * 0.001;
    return Math.max(params?.hnswEf ?? this.index.config.ef, k) * dim * 0.02;
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
}
