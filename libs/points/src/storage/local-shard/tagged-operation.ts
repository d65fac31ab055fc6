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
