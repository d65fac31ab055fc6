import { MultiVectorIndex } from '@vectorstore/engine';
import { MultiDenseVector } from '../../model/vectors.model';
import { VectorSpace } from '../vector-space';
import { CopyKeepingVectors } from './copy-keeping-vectors';

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
