// Multivector documents (ColBERT-style) scored with MaxSim by exact scan inside WASM.
import { EngineInputError } from '../errors';
import { Distance, DISTANCES, internalMetric, normalizeInPlace } from '../distance/metric';
import { EngineExports } from '../wasm/exports';
import { instantiateEngine } from '../wasm/loader';
import { MemoryViews } from '../wasm/memory-views';
import { checkInt, flattenBatch } from '../validate';
import { AllowedSlots, SearchResult } from '../hnsw/index-core';

export interface MultiVectorConfig {
  readonly dim: number;
  readonly distance: Distance;
}

/**
 * One document per slot, each a list of vectors. Score = sum over query vectors of the best similarity
 * against the document's vectors (Qdrant's MaxSim comparator); similarity is dot for Cosine (normalized)
 * and Dot, the negated squared distance for Euclid and the negated distance for Manhattan (Qdrant's
 * internal scores), so higher is always better.
 */
export class MultiVectorIndex {
  private readonly wasm: EngineExports;
  private readonly views: MemoryViews;
  private readonly base: number;
  private offsets = new Uint32Array(16);
  private counts = new Uint32Array(16);
  private deleted = new Uint8Array(2);
  private docs = 0;
  private vectors = 0;

  constructor(readonly config: MultiVectorConfig) {
    checkInt('dim', config.dim, 1, 65536);
    if (!DISTANCES.includes(config.distance))
      throw new EngineInputError(`distance: unknown ${String(config.distance)}`);
    this.wasm = instantiateEngine();
    this.views = new MemoryViews(this.wasm.memory);
    this.base = Math.ceil(this.wasm.heapBase() / 64) * 64;
  }

  get size(): number {
    return this.docs;
  }

  /** Adds documents (each a non-empty list of vectors) to slots size..; returns the first slot. */
  add(documents: readonly (readonly ArrayLike<number>[])[]): number {
    const { dim } = this.config;
    const flat = documents.map((doc, i) => {
      if (!Array.isArray(doc) || doc.length === 0)
        throw new EngineInputError(`multivector ${i}: expected a non-empty list of vectors`);
      return flattenBatch(doc, dim, `multivector ${i}: vector`);
    });
    const first = this.docs;
    for (const { data, count } of flat) {
      if (this.config.distance === 'Cosine')
        for (let j = 0; j < count; j++) normalizeInPlace(data.subarray(j * dim, (j + 1) * dim));
      this.views.ensure(this.base + (this.vectors + count) * dim * 4);
      this.views.f32.set(data, (this.base >>> 2) + this.vectors * dim);
      this.grow(this.docs + 1);
      this.offsets[this.docs] = this.vectors;
      this.counts[this.docs] = count;
      this.docs++;
      this.vectors += count;
    }
    return first;
  }

  /** Marks slots deleted. */
  delete(slots: ArrayLike<number>): void {
    for (let i = 0; i < slots.length; i++) {
      const s = checkInt('slot', slots[i], 0, this.docs - 1);
      this.deleted[s >> 3] |= 1 << (s & 7);
    }
  }

  /** Top-k documents by MaxSim, best first. */
  search(query: readonly ArrayLike<number>[], k: number, allowed?: AllowedSlots): SearchResult {
    checkInt('k', k, 1);
    const { dim } = this.config;
    if (!Array.isArray(query) || query.length === 0)
      throw new EngineInputError('multivector query: expected a non-empty list of vectors');
    const { data, count } = flattenBatch(query, dim, 'multivector query: vector');
    if (this.config.distance === 'Cosine')
      for (let j = 0; j < count; j++) normalizeInPlace(data.subarray(j * dim, (j + 1) * dim));
    const n = this.docs;
    const qPtr = this.base + this.vectors * dim * 4;
    const oPtr = qPtr + count * dim * 4;
    const cPtr = oPtr + n * 4;
    const outPtr = cPtr + n * 4;
    this.views.ensure(outPtr + n * 4);
    this.views.f32.set(data, qPtr >>> 2);
    this.views.u32.set(this.offsets.subarray(0, n), oPtr >>> 2);
    this.views.u32.set(this.counts.subarray(0, n), cPtr >>> 2);
    this.wasm.maxSimScan(qPtr, count, this.base, oPtr, cPtr, n, dim, internalMetric(this.config.distance), outPtr);
    const scores = this.views.f32.subarray(outPtr >>> 2, (outPtr >>> 2) + n);
    const ok = (s: number) =>
      (this.deleted[s >> 3] & (1 << (s & 7))) === 0 &&
      (!allowed || (allowed instanceof Uint8Array ? (allowed[s >> 3] & (1 << (s & 7))) !== 0 : allowed(s)));
    const order: number[] = [];
    for (let s = 0; s < n; s++) if (ok(s)) order.push(s);
    order.sort((a, b) => scores[b] - scores[a] || a - b);
    const top = order.slice(0, k);
    return { slots: Uint32Array.from(top), scores: Float32Array.from(top, (s) => scores[s]) };
  }

  private grow(n: number): void {
    if (n <= this.offsets.length) return;
    const cap = Math.max(n, this.offsets.length * 2);
    const o = new Uint32Array(cap);
    o.set(this.offsets);
    const c = new Uint32Array(cap);
    c.set(this.counts);
    const d = new Uint8Array(Math.ceil(cap / 8));
    d.set(this.deleted);
    this.offsets = o;
    this.counts = c;
    this.deleted = d;
  }
}
