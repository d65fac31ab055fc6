import type { AllowedSlots } from '@vectorstore/engine';
import { SlotHits } from './segment-vectors';

/** A point-slot filter, optionally carrying its bitmap (see SlotPredicate). */
type SlotFilter = ((pointSlot: number) => boolean) & { readonly bitmap?: Uint8Array };

/** Maps point slots to engine slots and back. */
export class SlotMap {
  private toEngine: Int32Array = new Int32Array(64).fill(-1);
  private toPoint: Int32Array = new Int32Array(64).fill(-1);
  private linked = 0;
  /** Every link so far joins equal slots (an optimizer-built segment): a point bitmap is an engine bitmap. */
  private identity = true;

  /** Number of point slots linked to an engine slot. */
  get live(): number {
    return this.linked;
  }

  /** Whether every link joins equal slots, so engine slots are point slots. */
  get isIdentity(): boolean {
    return this.identity;
  }

  engineSlot(pointSlot: number): number {
    return pointSlot < this.toEngine.length ? this.toEngine[pointSlot] : -1;
  }

  pointSlot(engineSlot: number): number {
    return engineSlot < this.toPoint.length ? this.toPoint[engineSlot] : -1;
  }

  link(pointSlot: number, engineSlot: number): void {
    this.toEngine = grow(this.toEngine, pointSlot);
    this.toPoint = grow(this.toPoint, engineSlot);
    if (pointSlot !== engineSlot) this.identity = false;
    if (this.toEngine[pointSlot] < 0) this.linked++;
    this.toEngine[pointSlot] = engineSlot;
    this.toPoint[engineSlot] = pointSlot;
  }

  unlink(pointSlot: number): number {
    const engineSlot = this.engineSlot(pointSlot);
    if (engineSlot >= 0) {
      this.toEngine[pointSlot] = -1;
      this.toPoint[engineSlot] = -1;
      this.linked--;
    }
    return engineSlot;
  }

  toJSON(): { toEngine: Int32Array; toPoint: Int32Array; live: number } {
    return { toEngine: this.toEngine, toPoint: this.toPoint, live: this.linked };
  }

  static from(state: { toEngine: Int32Array; toPoint: Int32Array; live: number }): SlotMap {
    const map = new SlotMap();
    map.toEngine = state.toEngine;
    map.toPoint = state.toPoint;
    map.linked = state.live;
    for (let engineSlot = 0; engineSlot < map.toPoint.length && map.identity; engineSlot++) {
      const pointSlot = map.toPoint[engineSlot];
      if (pointSlot >= 0 && pointSlot !== engineSlot) map.identity = false;
    }
    return map;
  }

  /** The point slots that have a vector here, and their engine slots (parallel). */
  withVectors(pointSlots: ArrayLike<number>): { kept: number[]; engineSlots: number[] } {
    const kept: number[] = [];
    const engineSlots: number[] = [];
    for (let i = 0; i < pointSlots.length; i++) {
      const engineSlot = this.engineSlot(pointSlots[i]);
      if (engineSlot >= 0) {
        kept.push(pointSlots[i]);
        engineSlots.push(engineSlot);
      }
    }
    return { kept, engineSlots };
  }

  /**
   * What the engine allows for a point-slot predicate: a bitmap over engine slots when the predicate
   * carries one over point slots (one pass over typed arrays, no call per slot), else a predicate.
   */
  engineFilter(allowed: SlotFilter | undefined): AllowedSlots | undefined {
    if (!allowed) return undefined;
    const pointBits = allowed.bitmap;
    if (pointBits === undefined) {
      return (engineSlot) => {
        const pointSlot = this.pointSlot(engineSlot);
        return pointSlot >= 0 && allowed(pointSlot);
      };
    }
    if (this.identity) return pointBits;
    // Walk the allowed point slots (zero bytes skipped) and set their engine slots.
    const toEngine = this.toEngine;
    const engineBits = new Uint8Array(Math.ceil(this.toPoint.length / 8));
    const bytes = Math.min(pointBits.length, Math.ceil(toEngine.length / 8));
    for (let byte = 0; byte < bytes; byte++) {
      let bitsLeft = pointBits[byte];
      while (bitsLeft !== 0) {
        const bit = 31 - Math.clz32(bitsLeft & -bitsLeft);
        bitsLeft &= bitsLeft - 1;
        const pointSlot = byte * 8 + bit;
        const engineSlot = pointSlot < toEngine.length ? toEngine[pointSlot] : -1;
        if (engineSlot >= 0) engineBits[engineSlot >> 3] |= 1 << (engineSlot & 7);
      }
    }
    return engineBits;
  }

  toPointHits(hits: { slots: Uint32Array; scores: Float32Array }): SlotHits {
    const slots = new Uint32Array(hits.slots.length);
    for (let i = 0; i < hits.slots.length; i++) slots[i] = this.pointSlot(hits.slots[i]);
    return { slots, scores: hits.scores };
  }
}

function grow(array: Int32Array, index: number): Int32Array {
  if (index < array.length) return array;
  let size = array.length;
  while (size <= index) size *= 2;
  const next = new Int32Array(size).fill(-1);
  next.set(array);
  return next;
}
