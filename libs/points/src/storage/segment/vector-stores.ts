import { setOwn } from '@vectorstore/common';
import { NamedVectors, Vector } from '../../model/vectors.model';
import { SegmentColumns } from '../segment-columns';
import { VectorSpace } from '../vector-space';
import { DenseSegmentVectors } from '../vectors/dense-vectors';
import { SegmentVectors } from '../vectors/segment-vectors';
import { createSegmentVectors } from '../vectors/vector-store-factory';

/** The vector stores of a segment, one per vector name, and a point's vectors across them. */
export class VectorStores {
  private readonly stores = new Map<string, SegmentVectors>();

  /** Empty stores for `spaces`; `indexed` ones build full graphs (optimizer-built segments). */
  static create(spaces: ReadonlyMap<string, VectorSpace>, indexed: boolean): VectorStores {
    const stores = new VectorStores();
    for (const [name, space] of spaces) stores.add(name, createSegmentVectors(space, indexed));
    return stores;
  }

  add(name: string, store: SegmentVectors): void {
    this.stores.set(name, store);
  }

  get(name: string): SegmentVectors | undefined {
    return this.stores.get(name);
  }

  names(): string[] {
    return [...this.stores.keys()];
  }

  entries(): IterableIterator<[string, SegmentVectors]> {
    return this.stores.entries();
  }

  spaces(): VectorSpace[] {
    return [...this.stores.values()].map((store) => store.space);
  }

  /** Whether any store keeps its original vectors in the segment's file. */
  get onDisk(): boolean {
    return [...this.stores.values()].some((store) => store.onDisk);
  }

  /** Kilobytes of dense vector data (1 KB = one 256-dim float32 vector), as thresholds count them. */
  dataKb(): number {
    let bytes = 0;
    for (const store of this.stores.values()) {
      const space = store.space;
      if (space.kind === 'sparse') continue;
      const element = space.datatype === 'float16' ? 2 : space.datatype === 'uint8' ? 1 : 4;
      bytes += store.count * space.dim * (space.kind === 'multi' ? 1 : element);
    }
    return bytes / 1024;
  }

  /** Removes and releases a name's store; false when there was none. */
  drop(name: string): boolean {
    const store = this.stores.get(name);
    if (!store) return false;
    this.stores.delete(name);
    store.dispose();
    return true;
  }

  has(name: string, slot: number): boolean {
    return this.stores.get(name)?.has(slot) ?? false;
  }

  /** Vectors of a point, optionally only some names. */
  pointVectors(slot: number, names?: readonly string[]): NamedVectors {
    const result: NamedVectors = {};
    for (const [name, store] of this.stores) {
      if (names && !names.includes(name)) continue;
      const vector = store.get(slot);
      if (vector) setOwn(result, name, vector);
    }
    return result;
  }

  /** Every stored vector by name, store by store (vectors on disk are read in sequential batches). */
  forEachVector(visit: (name: string, slot: number, vector: Vector) => void): void {
    for (const [name, store] of this.stores) store.forEach((slot, vector) => visit(name, slot, vector));
  }

  /** Gives a point exactly `vectors`: a store whose name is missing drops the point's vector. */
  replace(slot: number, vectors: NamedVectors): void {
    for (const [name, store] of this.stores) {
      // Own properties only: a vector may be named like an Object.prototype member.
      const vector = Object.hasOwn(vectors, name) ? vectors[name] : undefined;
      if (vector) store.set(slot, vector);
      else store.remove(slot);
    }
  }

  /**
   * As {@link replace}, but vectors identical to `previous` ones are left alone: a payload-only
   * update must not leave a dead vector behind in the engine index.
   */
  rewrite(slot: number, previous: NamedVectors, vectors: NamedVectors): void {
    for (const [name, store] of this.stores) {
      const vector = Object.hasOwn(vectors, name) ? vectors[name] : undefined;
      const before = Object.hasOwn(previous, name) ? previous[name] : undefined;
      if (vector === before) continue;
      if (vector) store.set(slot, vector);
      else store.remove(slot);
    }
  }

  /** Sets the named vectors of a point, keeping its others; unknown names are ignored. */
  update(slot: number, vectors: NamedVectors): void {
    for (const [name, vector] of Object.entries(vectors)) this.stores.get(name)?.set(slot, vector);
  }

  /** Removes a point's vectors of these names. */
  remove(slot: number, names: readonly string[]): void {
    for (const name of names) this.stores.get(name)?.remove(slot);
  }

  /** Removes every vector of a point. */
  removeAll(slot: number): void {
    for (const store of this.stores.values()) store.remove(slot);
  }

  /**
   * Adds the vectors of a build's columns (point index = slot). Each dense space is added in one
   * engine call (which builds the graph on several threads), and its packed vectors are let go right
   * after, so the build holds them only once.
   */
  addColumns(columns: SegmentColumns): void {
    for (const packed of columns.dense) {
      const store = this.stores.get(packed.name);
      if (store instanceof DenseSegmentVectors) store.addPacked(packed.points, packed.values);
      packed.values = new Float32Array(0);
    }
    for (const { name, entries } of columns.other) {
      const store = this.stores.get(name);
      if (store) for (const [slot, vector] of entries) store.set(slot, vector);
    }
  }

  /** Releases engine resources (worker threads). */
  dispose(): void {
    for (const store of this.stores.values()) store.dispose();
  }
}
