// Sparse vectors (index -> weight) with an inverted index and dot-product scoring, optionally IDF-weighted
// (Qdrant's `modifier: idf`). Plain TypeScript: postings are short and the work is gather/accumulate.
import { EngineInputError } from '../errors';
import { AllowedSlots, SearchResult } from '../hnsw/index-core';

export interface SparseVector {
  readonly indices: ArrayLike<number>;
  readonly values: ArrayLike<number>;
}

export interface SparseIndexConfig {
  /** 'idf' scales each query weight by the inverse document frequency of its dimension. */
  readonly modifier?: 'none' | 'idf';
}

/**
 * Document counts over a whole corpus that may span several indexes (a shard's segments): IDF must
 * not depend on how points happen to be split between them.
 */
export interface SparseCorpus {
  /** Live documents (vectors) in the corpus. */
  readonly documents: number;
  /** Live documents with a non-zero weight at a dimension. */
  frequency(dim: number): number;
}

interface Posting {
  slots: Uint32Array;
  values: Float32Array;
  length: number;
}

/** Validates a sparse vector: equal lengths, unique u32 indices, finite values. */
export function checkSparse(v: SparseVector, what: string): void {
  if (!v || v.indices == null || v.values == null) throw new EngineInputError(`${what}: expected {indices, values}`);
  if (v.indices.length !== v.values.length)
    throw new EngineInputError(
      `${what}: indices and values must have the same length (${v.indices.length} vs ${v.values.length})`,
    );
  const seen = new Set<number>();
  for (let i = 0; i < v.indices.length; i++) {
    const ix = v.indices[i];
    if (!Number.isInteger(ix) || ix < 0 || ix > 0xffffffff)
      throw new EngineInputError(`${what}: index ${ix} at position ${i} is not a u32`);
    if (seen.has(ix)) throw new EngineInputError(`${what}: index ${ix} is duplicated`);
    seen.add(ix);
    if (!Number.isFinite(v.values[i])) throw new EngineInputError(`${what}: value at position ${i} is not finite`);
  }
}

export class SparseIndex {
  private readonly postings = new Map<number, Posting>();
  private deleted = new Uint8Array(16);
  private count = 0;
  private live = 0;

  constructor(readonly config: SparseIndexConfig = {}) {}

  get size(): number {
    return this.count;
  }

  /** Live (not deleted) vectors. */
  get liveCount(): number {
    return this.live;
  }

  /** Live vectors with a non-zero weight at `dim`. */
  documentFrequency(dim: number): number {
    const p = this.postings.get(dim);
    if (!p) return 0;
    let df = 0;
    for (let j = 0; j < p.length; j++) if ((this.deleted[p.slots[j] >> 3] & (1 << (p.slots[j] & 7))) === 0) df++;
    return df;
  }

  /** Adds vectors to slots size..; returns the first slot. */
  add(vectors: readonly SparseVector[]): number {
    vectors.forEach((v, i) => checkSparse(v, `sparse vector ${i}`));
    const first = this.count;
    for (const v of vectors) {
      const slot = this.count++;
      this.live++;
      for (let i = 0; i < v.indices.length; i++) {
        if (v.values[i] === 0) continue;
        let p = this.postings.get(v.indices[i]);
        if (!p) {
          p = { slots: new Uint32Array(4), values: new Float32Array(4), length: 0 };
          this.postings.set(v.indices[i], p);
        }
        if (p.length === p.slots.length) {
          const s = new Uint32Array(p.length * 2);
          s.set(p.slots);
          const w = new Float32Array(p.length * 2);
          w.set(p.values);
          p.slots = s;
          p.values = w;
        }
        p.slots[p.length] = slot;
        p.values[p.length] = v.values[i];
        p.length++;
      }
    }
    if (this.deleted.length * 8 < this.count) {
      const d = new Uint8Array(Math.ceil(this.count / 4));
      d.set(this.deleted);
      this.deleted = d;
    }
    return first;
  }

  delete(slots: ArrayLike<number>): void {
    for (let i = 0; i < slots.length; i++) {
      const s = slots[i];
      if (!Number.isInteger(s) || s < 0 || s >= this.count)
        throw new EngineInputError(`delete: slot ${s} is out of range`);
      if ((this.deleted[s >> 3] & (1 << (s & 7))) === 0) {
        this.deleted[s >> 3] |= 1 << (s & 7);
        this.live--;
      }
    }
  }

  /**
   * Top-k by (IDF-weighted) dot product, best first; slots sharing no dimension with the query are
   * skipped. With the idf modifier, IDF comes from `corpus` when given, else from this index alone.
   */
  search(
    query: SparseVector,
    k: number,
    allowed?: AllowedSlots,
    corpus?: SparseCorpus,
    /** Overrides the configured modifier (a collection's modifier can change after the index was built). */
    modifier: 'none' | 'idf' | undefined = this.config.modifier,
  ): SearchResult {
    checkSparse(query, 'sparse query');
    if (!Number.isInteger(k) || k < 1) throw new EngineInputError(`k: expected an integer >= 1, got ${k}`);
    const scores = new Float32Array(this.count);
    const touched = new Uint8Array(this.count);
    const hits: number[] = [];
    for (let i = 0; i < query.indices.length; i++) {
      const p = this.postings.get(query.indices[i]);
      if (!p) continue;
      let w = query.values[i];
      if (modifier === 'idf') {
        w *= corpus
          ? idf(corpus.documents, corpus.frequency(query.indices[i]))
          : idf(this.live, this.documentFrequency(query.indices[i]));
      }
      for (let j = 0; j < p.length; j++) {
        const s = p.slots[j];
        if (!touched[s]) {
          touched[s] = 1;
          hits.push(s);
        }
        scores[s] += w * p.values[j];
      }
    }
    const ok = (s: number) =>
      (this.deleted[s >> 3] & (1 << (s & 7))) === 0 &&
      (!allowed || (allowed instanceof Uint8Array ? (allowed[s >> 3] & (1 << (s & 7))) !== 0 : allowed(s)));
    const list = hits
      .filter(ok)
      .sort((a, b) => scores[b] - scores[a] || a - b)
      .slice(0, k);
    return { slots: Uint32Array.from(list), scores: Float32Array.from(list, (s) => scores[s]) };
  }
}

/** BM25-style IDF: ln(1 + (N - df + 0.5) / (df + 0.5)), N and df counting live documents. */
function idf(documents: number, frequency: number): number {
  return Math.log(1 + (documents - frequency + 0.5) / (frequency + 0.5));
}
