import { JsonObject } from '@vectorstore/common';
import { DiskPayloads, PayloadFileLayout } from '../disk-payloads';

/** Where a segment's payloads are: in memory, or in the segment's payload file (`on_disk_payload`). */
export interface PayloadStore {
  /** Whether payloads are read from the segment's payload file. */
  readonly onDisk: boolean;
  /** The payload of a slot; undefined for a point without one. */
  get(slot: number): JsonObject | undefined;
  set(slot: number, payload: JsonObject | undefined): void;
  /** Room for the next slot (no payload yet). */
  append(): void;
  /** Every slot's payload in slot order (a file is read in large blocks, not record by record). */
  scan(visit: (slot: number, payload: JsonObject | undefined) => void): void;
}

/** Payloads held in memory, one entry per slot. */
export class MemoryPayloads implements PayloadStore {
  readonly onDisk = false;

  constructor(private readonly payloads: Array<JsonObject | undefined> = []) {}

  get(slot: number): JsonObject | undefined {
    return this.payloads[slot];
  }

  set(slot: number, payload: JsonObject | undefined): void {
    this.payloads[slot] = payload;
  }

  append(): void {
    this.payloads.push(undefined);
  }

  scan(visit: (slot: number, payload: JsonObject | undefined) => void): void {
    for (let slot = 0; slot < this.payloads.length; slot++) visit(slot, this.payloads[slot]);
  }

  /** The entries themselves, as a segment body saves them. */
  all(): Array<JsonObject | undefined> {
    return this.payloads;
  }
}

/** Payloads of an immutable segment read from its payload file; only the offsets are in memory. */
export class FilePayloads implements PayloadStore {
  readonly onDisk = true;

  constructor(
    /** Where the file is and where each slot's record is in it, as a segment body saves it. */
    readonly layout: PayloadFileLayout,
    private readonly file: DiskPayloads,
  ) {}

  get(slot: number): JsonObject | undefined {
    return this.file.get(slot);
  }

  set(): void {
    throw new Error('payloads of an immutable segment cannot be changed');
  }

  append(): void {
    throw new Error('an immutable segment takes no new points');
  }

  scan(visit: (slot: number, payload: JsonObject | undefined) => void): void {
    this.file.scan(visit);
  }
}
