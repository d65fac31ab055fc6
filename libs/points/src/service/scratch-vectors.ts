import { Vector } from '../model/vectors.model';
import { VectorSpace } from '../storage/vector-space';
import { SegmentVectors } from '../storage/vectors/segment-vectors';
import { createSegmentVectors } from '../storage/vectors/vector-store-factory';

/**
 * Runs `use` with a throwaway store of `space` holding `vectors` at slots 0..n-1, so vectors that came
 * from other peers are scored exactly as a segment scores its own (same kernels, MaxSim, sparse dot).
 * The vectors are stored as given: they were read back already converted (datatype, turbo4), and
 * quantization would only approximate them again.
 */
export function withScratchVectors<T>(
  space: VectorSpace,
  vectors: readonly Vector[],
  use: (store: SegmentVectors, slots: Uint32Array) => T,
): T {
  const plain: VectorSpace =
    space.kind === 'sparse'
      ? space
      : { ...space, datatype: 'float32', turbo4: false, quantization: undefined, onDisk: false };
  const store = createSegmentVectors(plain, false);
  try {
    vectors.forEach((vector, slot) => store.set(slot, vector));
    return use(
      store,
      Uint32Array.from(vectors.keys(), (slot) => slot),
    );
  } finally {
    store.dispose();
  }
}
