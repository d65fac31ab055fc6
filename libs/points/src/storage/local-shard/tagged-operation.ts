import { DomainError } from '@vectorstore/common';
import { UpdateOperation } from '../../model/operations.model';

type KeyOfEach<T> = T extends unknown ? keyof T : never;

/** The kinds of operation: each is the one key of its UpdateOperation shape (`{ upsert: {...} }`). */
export type OperationKind = KeyOfEach<UpdateOperation>;

type BodyOf<K extends OperationKind> = Extract<UpdateOperation, Record<K, unknown>>[K];

/** An operation tagged with its kind, so that a switch on `kind` narrows `body` and can be exhaustive. */
export type TaggedOperation = { [K in OperationKind]: { kind: K; body: BodyOf<K> } }[OperationKind];

/** Every kind, in the order they were tested in before the tag existed (a Record: the compiler checks none is missing). */
const KINDS: Record<OperationKind, true> = {
  upsert: true,
  deletePoints: true,
  updateVectors: true,
  deleteVectors: true,
  setPayload: true,
  overwritePayload: true,
  deletePayload: true,
  clearPayload: true,
  createFieldIndex: true,
  deleteFieldIndex: true,
};
const KIND_ORDER = Object.keys(KINDS) as OperationKind[];

/**
 * The kind of an operation, read from its shape: operations are logged in the WAL untagged, and
 * that format does not change. Undefined for an operation of no known kind.
 */
export function tagOperation(operation: UpdateOperation): TaggedOperation | undefined {
  for (const kind of KIND_ORDER) {
    if (kind in operation)
      return { kind, body: (operation as Record<OperationKind, unknown>)[kind] } as TaggedOperation;
  }
  return undefined;
}

/**
 * What is wrong with the shape of `operation`, or undefined when it has one: an object with exactly one field,
 * a known kind, whose value is an object. Only the kind is checked here; the service validates the body.
 */
export function operationShapeProblem(operation: unknown): string | undefined {
  if (typeof operation !== 'object' || operation === null || Array.isArray(operation)) {
    return `an operation must be an object with one of the fields ${KIND_ORDER.join(', ')}`;
  }
  const fields = Object.keys(operation);
  const unknown = fields.filter((field) => !Object.hasOwn(KINDS, field));
  if (unknown.length > 0) {
    return `unknown operation field \`${unknown[0]}\`: expected exactly one of ${KIND_ORDER.join(', ')}`;
  }
  if (fields.length !== 1) {
    return fields.length === 0
      ? `an operation has no field: expected exactly one of ${KIND_ORDER.join(', ')}`
      : `an operation has ${fields.length} fields (${fields.join(', ')}): expected exactly one`;
  }
  const body = (operation as Record<string, unknown>)[fields[0]];
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return `operation field \`${fields[0]}\` must be an object`;
  }
  return undefined;
}

/**
 * `operation` tagged with its kind; a shape no kind has (a newer peer's operation, a bug) is refused with
 * INVALID_ARGUMENT naming the field, so that it is never logged: a logged operation must replay.
 */
export function requireKnownOperation(operation: UpdateOperation): TaggedOperation {
  const problem = operationShapeProblem(operation);
  if (problem !== undefined) throw DomainError.invalidArgument(`Bad request: ${problem}`);
  return tagOperation(operation)!;
}
