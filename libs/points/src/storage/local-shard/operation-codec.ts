import { DomainError } from '@vectorstore/common';
import { deserialize, serialize } from 'node:v8';
import { UpdateOperation } from '../../model/operations.model';
import type { ClockTag } from './shard-clocks';
import { operationShapeProblem, requireKnownOperation } from './tagged-operation';

/**
 * WAL record encoding of an operation. The structured-clone format keeps bigint ids, typed-array
 * vectors and nested payloads exactly; newer Node versions read what older ones wrote.
 *
 * Format 2 adds the write's clock tag (cluster mode, shard-clocks.ts); format 1 records (no tag) are still read.
 * Only an operation of a known shape is encoded (INVALID_ARGUMENT otherwise): whatever is logged must replay.
 */
export function encodeOperation(operation: UpdateOperation, tag?: ClockTag): Uint8Array {
  requireKnownOperation(operation);
  return tag ? serialize({ v: 2, operation, tag }) : serialize({ v: 1, operation });
}

/** A WAL record that cannot be read back as an operation (the caller names the file and op number). */
export class UndecodableRecordError extends Error {
  constructor(reason: string, options?: ErrorOptions) {
    super(reason, options);
    this.name = 'UndecodableRecordError';
  }
}

/**
 * The operation and, from format 2 on, its clock tag. Throws {@link UndecodableRecordError} for bytes that are no
 * structured clone, a format this version does not know, an operation of no known shape or a malformed tag: a
 * record is applied as written or not at all, never skipped.
 */
export function decodeRecord(data: Uint8Array): { operation: UpdateOperation; tag?: ClockTag } {
  let record: unknown;
  try {
    record = deserialize(data);
  } catch (error) {
    throw new UndecodableRecordError(`not a structured clone (${(error as Error).message})`, { cause: error });
  }
  if (typeof record !== 'object' || record === null) throw new UndecodableRecordError('not a record object');
  const { v, operation, tag } = record as { v?: unknown; operation?: unknown; tag?: unknown };
  if (v !== 1 && v !== 2) throw new UndecodableRecordError(`record format ${String(v)} is not supported (1 or 2)`);
  const problem = operationShapeProblem(operation);
  if (problem !== undefined) throw new UndecodableRecordError(problem);
  if (v === 1 || tag === undefined) return { operation: operation as UpdateOperation };
  if (!isClockTag(tag)) throw new UndecodableRecordError('format 2 record with a malformed clock tag');
  return { operation: operation as UpdateOperation, tag };
}

/** An operation sent by a peer (encoded by `encodeOperation`); one this version cannot read is INVALID_ARGUMENT. */
export function decodeOperation(data: Uint8Array): UpdateOperation {
  try {
    return decodeRecord(data).operation;
  } catch (error) {
    if (!(error instanceof UndecodableRecordError)) throw error;
    throw DomainError.invalidArgument(`Bad request: the operation cannot be read: ${error.message}`);
  }
}

function isClockTag(tag: unknown): tag is ClockTag {
  if (typeof tag !== 'object' || tag === null) return false;
  const { peer, incarnation, seq } = tag as Record<string, unknown>;
  return typeof peer === 'string' && typeof incarnation === 'string' && Number.isSafeInteger(seq) && Number(seq) > 0;
}
