import type { AllowedSlots } from '@vectorstore/engine';
import { MultiVectorIndex } from '@vectorstore/engine';
import { MultiDenseVector, Vector } from '../../model/vectors.model';
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

  /** A uint8 space keeps each value as Qdrant converts it (`as u8`): truncated toward zero, saturated to 0..255. */
  override set(pointSlot: number, vector: Vector): void {
    if (vector.kind === 'multi' && 'datatype' in this.space && this.space.datatype === 'uint8') {
      vector = { ...vector, vectors: vector.vectors.map(toUint8Values) };
    }
    super.set(pointSlot, vector);
  }

  protected addToIndex(vector: MultiDenseVector): number {
    return this.index.add([vector.vectors]);
  }

  /**
   * The engine ranks by Qdrant's internal MaxSim (higher is better); the reported score is Qdrant's: for Euclid
   * the square root of the summed squared distances, for Manhattan the summed distances (both lower-is-better).
   */
  protected searchIndex(query: MultiDenseVector, k: number, allowed: AllowedSlots | undefined) {
    const found = this.index.search(query.vectors, k, allowed);
    const distance = 'distance' in this.space ? this.space.distance : 'Dot';
    if (distance === 'Euclid') found.scores.forEach((s, i) => (found.scores[i] = Math.sqrt(Math.abs(s))));
    else if (distance === 'Manhattan') found.scores.forEach((s, i) => (found.scores[i] = Math.abs(s)));
    return found;
  }
}

function toUint8Values(row: Float32Array): Float32Array {
  return row.map((value) => (Number.isNaN(value) ? 0 : Math.max(0, Math.min(255, Math.trunc(value)))));
}
