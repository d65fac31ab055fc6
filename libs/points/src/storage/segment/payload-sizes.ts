import { JsonObject, stringifyJson } from '@vectorstore/common';

/**
 * The serialized (JSON) size of each slot's payload, and their sum over live points: strict mode
 * limits the payload bytes a collection holds.
 */
export class PayloadSizes {
  private liveBytes = 0;

  /** `sizes`: known sizes by slot (a payload file's layout keeps them); count live ones with {@link countLive}. */
  constructor(private readonly sizes: number[] = []) {}

  /** Bytes of payload held by live points. */
  get total(): number {
    return this.liveBytes;
  }

  /** Measures a live slot's new payload (undefined: none). */
  set(slot: number, payload: JsonObject | undefined): void {
    const size = payload === undefined ? 0 : Buffer.byteLength(stringifyJson(payload));
    this.liveBytes += size - (this.sizes[slot] ?? 0);
    this.sizes[slot] = size;
  }

  /** Counts a live slot whose size was given to the constructor. */
  countLive(slot: number): void {
    this.liveBytes += this.sizes[slot];
  }

  /** A slot's point was deleted: its payload no longer counts. */
  release(slot: number): void {
    this.liveBytes -= this.sizes[slot] ?? 0;
  }

  /** Sizes of slots 0..count-1 (0 where none was measured), as a payload file's layout keeps them. */
  table(count: number): Uint32Array {
    const sizes = new Uint32Array(count);
    for (let slot = 0; slot < count; slot++) sizes[slot] = this.sizes[slot] ?? 0;
    return sizes;
  }
}
