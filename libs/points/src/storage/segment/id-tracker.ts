import { PointId, pointIdKey } from '../../model/point-id.model';
import { clearBitsOf } from './slot-bitmap';

/**
 * The points of a segment by slot: each slot's id and version, which slots are deleted, and the
 * live slot of each id. Slots are dense internal ids and never reused: a deleted slot stays until
 * the optimizer rebuilds the segment.
 */
export class IdTracker {
  private readonly slotByKey = new Map<string, number>();
  private live = 0;

  private constructor(
    private readonly ids: PointId[],
    private readonly versions: number[],
    /** One bit per slot, grown by doubling. */
    private deleted: Uint8Array,
  ) {}

  static empty(): IdTracker {
    return new IdTracker([], [], new Uint8Array(64));
  }

  /** The ids, versions and delete bitmap a segment body saved (see {@link saved}). */
  static restore(ids: PointId[], versions: number[], deleted: Uint8Array): IdTracker {
    const bitmap = new Uint8Array(Math.max(64, deleted.length * 2));
    bitmap.set(deleted);
    const tracker = new IdTracker(ids, versions, bitmap);
    for (let slot = 0; slot < ids.length; slot++) {
      if (tracker.isDeleted(slot)) continue;
      tracker.live++;
      tracker.slotByKey.set(pointIdKey(ids[slot]), slot);
    }
    return tracker;
  }

  /** Slots ever allocated, deleted ones included. */
  get size(): number {
    return this.ids.length;
  }

  get liveCount(): number {
    return this.live;
  }

  /** Live slot of a point, if it is here. */
  slotOf(id: PointId): number | undefined {
    const slot = this.slotByKey.get(pointIdKey(id));
    return slot === undefined || this.isDeleted(slot) ? undefined : slot;
  }

  isDeleted(slot: number): boolean {
    return (this.deleted[slot >> 3] & (1 << (slot & 7))) !== 0;
  }

  /** Clears the bits of deleted slots in a bitmap over slots (bit s of byte s >> 3), word by word. */
  clearDeleted(bitmap: Uint8Array): void {
    if (this.live < this.ids.length) clearBitsOf(bitmap, this.deleted);
  }

  pointId(slot: number): PointId {
    return this.ids[slot];
  }

  pointVersion(slot: number): number {
    return this.versions[slot];
  }

  /** A new live slot for `id` (version 0). */
  allocate(id: PointId): number {
    const slot = this.ids.length;
    this.ids.push(id);
    this.versions.push(0);
    if (slot >> 3 >= this.deleted.length) {
      const grown = new Uint8Array(this.deleted.length * 2);
      grown.set(this.deleted);
      this.deleted = grown;
    }
    this.slotByKey.set(pointIdKey(id), slot);
    this.live++;
    return slot;
  }

  setVersion(slot: number, version: number): void {
    this.versions[slot] = version;
  }

  /** Marks a slot deleted; false when it already was. */
  delete(slot: number): boolean {
    if (this.isDeleted(slot)) return false;
    this.deleted[slot >> 3] |= 1 << (slot & 7);
    this.live--;
    this.slotByKey.delete(pointIdKey(this.ids[slot]));
    return true;
  }

  /** What a segment body saves: the arrays themselves and the used part of the bitmap. */
  saved(): { ids: PointId[]; versions: number[]; deleted: Uint8Array } {
    return {
      ids: this.ids,
      versions: this.versions,
      deleted: this.deleted.subarray(0, Math.ceil(this.ids.length / 8)),
    };
  }
}
