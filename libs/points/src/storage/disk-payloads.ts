import { DamagedFileError, JsonObject } from '@vectorstore/common';
import { decodePayload, encodePayload } from './payload-codec';
import { SegmentFile } from './segment-file';

/** Sequential scans read the payload file in blocks of about this size. */
const SCAN_BLOCK_BYTES = 1 << 20;

/** Where each slot's payload record lives in a payload file: slot i is bytes offsets[i]..offsets[i+1]. */
export interface PayloadFileLayout {
  file: string;
  offsets: Float64Array;
}

/**
 * Payloads of an immutable segment kept in a file (`on_disk_payload`): one record per slot, empty for
 * a point without payload. Records are JSON with tagged 64-bit integers (see payload-codec). Only the
 * offsets stay in memory.
 */
export class DiskPayloads {
  constructor(
    private readonly file: SegmentFile,
    private readonly offsets: Float64Array,
  ) {
    const needed = offsets[offsets.length - 1] ?? 0;
    if (file.byteLength < needed)
      throw new DamagedFileError(file.path, `${file.byteLength} bytes, but its payloads need ${needed} (truncated)`);
  }

  /** The file body and offsets for `payloads` (slot order). */
  static encode(
    payloads: ReadonlyArray<JsonObject | undefined>,
    slots: number,
  ): { body: Uint8Array; offsets: Float64Array } {
    const records: Uint8Array[] = [];
    const offsets = new Float64Array(slots + 1);
    let at = 0;
    for (let slot = 0; slot < slots; slot++) {
      offsets[slot] = at;
      const payload = payloads[slot];
      if (payload === undefined) continue;
      const record = encodePayload(payload);
      records.push(record);
      at += record.length;
    }
    offsets[slots] = at;
    const body = new Uint8Array(at);
    let pos = 0;
    for (const record of records) {
      body.set(record, pos);
      pos += record.length;
    }
    return { body, offsets };
  }

  get slots(): number {
    return this.offsets.length - 1;
  }

  get(slot: number): JsonObject | undefined {
    const start = this.offsets[slot];
    const length = this.offsets[slot + 1] - start;
    return length === 0 ? undefined : decodePayload(asBuffer(this.file.read(start, length)).toString('utf8'));
  }

  /** Visits slots from..to-1 in order, reading the file in large blocks rather than record by record. */
  scan(visit: (slot: number, payload: JsonObject | undefined) => void, from = 0, to = this.slots): void {
    let slot = from;
    while (slot < to) {
      const start = this.offsets[slot];
      let end = slot + 1;
      while (end < to && this.offsets[end + 1] - start <= SCAN_BLOCK_BYTES) end++;
      const block = asBuffer(this.file.read(start, this.offsets[end] - start));
      for (; slot < end; slot++) {
        const a = this.offsets[slot] - start;
        const b = this.offsets[slot + 1] - start;
        visit(slot, b === a ? undefined : decodePayload(block.toString('utf8', a, b)));
      }
    }
  }
}

function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
