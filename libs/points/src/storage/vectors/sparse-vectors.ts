import type { AllowedSlots } from '@vectorstore/engine';
import { SparseCorpus, SparseIndex } from '@vectorstore/engine';
import { SearchParams } from '../../model/query.model';
import { SparseVector } from '../../model/vectors.model';
import { VectorSpace } from '../vector-space';
import { CopyKeepingVectors } from './copy-keeping-vectors';

/** Search params with the IDF statistics of a query's corpus (`params.idf.corpus`), computed by the shard. */
export type CorpusSearchParams = SearchParams & { sparseCorpus?: SparseCorpus };

/** Sparse vectors in the engine's inverted index. */
export class SparseSegmentVectors extends CopyKeepingVectors<SparseVector, SparseIndex> {
  readonly indexed = true;
  /** IDF statistics to score with (see {@link useCorpus}); absent: this segment alone. */
  private corpus: (() => SparseCorpus) | undefined;
  /** The collection's current modifier, when it changed after this segment was built. */
  private modifier: 'none' | 'idf' | undefined;

  /**
   * Scores with the IDF statistics of the whole shard holding this segment: with the idf modifier,
   * scores must not depend on how points are spread over segments.
   */
  useCorpus(corpus: () => SparseCorpus): void {
    this.corpus = corpus;
  }

  /** Scores with the idf modifier or without, as the collection's config says now (UpdateCollection may change it). */
  useModifier(idf: boolean): void {
    this.modifier = idf ? 'idf' : 'none';
  }

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

  protected searchIndex(query: SparseVector, k: number, allowed: AllowedSlots | undefined, params?: SearchParams) {
    return this.index.search(
      { indices: query.indices, values: query.values },
      k,
      allowed,
      (params as CorpusSearchParams | undefined)?.sparseCorpus ?? this.corpus?.(),
      this.modifier,
    );
  }
}
