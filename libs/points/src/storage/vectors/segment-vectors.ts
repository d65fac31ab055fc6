import { DomainError } from '@vectorstore/common';
import { SearchParams } from '../../model/query.model';
import { Vector } from '../../model/vectors.model';
import { VectorSpace } from '../vector-space';

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
  /** Takes the collection's current full_scan_threshold (KB): dense stores decide exact vs graph with it. */
  useFullScanThreshold?(kb: number): void;
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
  /**
   * Like `search`, on a worker thread over the index's shared memory, where the store can and the search is
   * worth it (see DenseSegmentVectors.searchAsync); undefined where it runs synchronously. `allowed` gives
   * the point-slot predicate, asked only when the search goes to a worker. The hits are point slots as
   * searched: a slot deleted while the search ran may be among them, so callers check liveness.
   */
  searchAsync?(
    query: Vector,
    k: number,
    allowed: (() => (pointSlot: number) => boolean) | undefined,
    params: SearchParams | undefined,
  ): Promise<SlotHits> | undefined;
  /** Scores of the query against these point slots (skipping those without a vector). */
  score(query: Vector, pointSlots: ArrayLike<number>): SlotHits;
  save(): Uint8Array;
  /** Releases worker threads and memory held outside the JS heap. */
  dispose(): void;
}

/** The error every store answers a vector of another kind than its space's with. */
export function wrongKind(space: VectorSpace, vector: Vector): DomainError {
  const name = space.name === '' ? 'default vector' : `vector \`${space.name}\``;
  return DomainError.invalidArgument(`Wrong input: ${name} expects a ${space.kind} vector, got ${vector.kind}`);
}
