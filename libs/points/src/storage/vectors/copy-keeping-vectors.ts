import type { AllowedSlots } from '@vectorstore/engine';
import { deserialize, serialize } from 'node:v8';
import { SearchParams } from '../../model/query.model';
import { Vector } from '../../model/vectors.model';
import { VectorSpace } from '../vector-space';
import { SegmentVectors, SlotHits, wrongKind } from './segment-vectors';
import { SlotMap } from './slot-map';

/**
 * A store over an engine index that cannot read vectors back or save itself (sparse, multivector):
 * the segment keeps each vector, to return and persist it, and loading re-adds them.
 */
export abstract class CopyKeepingVectors<
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
    allowed: AllowedSlots | undefined,
    params?: SearchParams,
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

  search(
    query: Vector,
    k: number,
    allowed: ((pointSlot: number) => boolean) | undefined,
    params?: SearchParams,
  ): SlotHits {
    const typed = this.checked(query);
    if (this.vectors.size === 0) return { slots: new Uint32Array(0), scores: new Float32Array(0) };
    return this.engineSlots.toPointHits(this.searchIndex(typed, k, this.engineSlots.engineFilter(allowed), params));
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
