import { deserialize, serialize } from 'node:v8';
import { UpdateOperation } from '../../model/operations.model';
import type { ClockTag } from './shard-clocks';

/**
 * WAL record encoding of an operation. The structured-clone format keeps bigint ids, typed-array
 * vectors and nested payloads exactly; newer Node versions read what older ones wrote.
 *
 * Format 2 adds the write's clock tag (cluster mode, shard-clocks.ts); format 1 records (no tag) are still read.
 */
export function encodeOperation(operation: UpdateOperation, tag?: ClockTag): Uint8Array {
  return tag ? serialize({ v: 2, operation, tag }) : serialize({ v: 1, operation });
}

/** The operation and, from format 2 on, its clock tag. */
export function decodeRecord(data: Uint8Array): { operation: UpdateOperation; tag?: ClockTag } {
  const record = deserialize(data) as { v: number; operation: UpdateOperation; tag?: ClockTag };
  if (record.v !== 1 && record.v !== 2) throw new Error(`WAL record format ${record.v} is not supported`);
  return record.v === 2 && record.tag
    ? { operation: record.operation, tag: record.tag }
    : { operation: record.operation };
}

export function decodeOperation(data: Uint8Array): UpdateOperation {
  return decodeRecord(data).operation;
}
