import { deserialize, serialize } from 'node:v8';
import { UpdateOperation } from '../../model/operations.model';

/**
 * WAL record encoding of an operation. The structured-clone format keeps bigint ids, typed-array
 * vectors and nested payloads exactly; newer Node versions read what older ones wrote.
 */
export function encodeOperation(operation: UpdateOperation): Uint8Array {
  return serialize({ v: 1, operation });
}

export function decodeOperation(data: Uint8Array): UpdateOperation {
  const record = deserialize(data) as { v: number; operation: UpdateOperation };
  if (record.v !== 1) throw new Error(`WAL record format ${record.v} is not supported`);
  return record.operation;
}
