import { DomainError } from '@vectorstore/common';

/**
 * A snapshot archive that is refused (bad structure, unsafe entry, wrong checksum, unknown version): 400 /
 * INVALID_ARGUMENT with Qdrant's `Bad request: ` prefix and a message that names the problem.
 */
export function invalidSnapshot(detail: string): DomainError {
  return DomainError.invalidArgument(`Bad request: invalid snapshot archive: ${detail}`);
}

/** Qdrant's wording for a checksum that does not match (`lib/storage/src/content_manager/errors.rs`). */
export function checksumMismatch(expected: string, actual: string): DomainError {
  return DomainError.invalidArgument(`Checksum mismatch: expected ${expected}, actual ${actual}`);
}

/** Qdrant's 404 for a snapshot name that does not exist or is not a plain file name. */
export function snapshotNotFound(name: string): DomainError {
  return DomainError.notFound(`Not found: Snapshot ${name}`);
}

/** The message of any thrown value, for wrapping causes into messages (errors from another realm included). */
export function messageOf(error: unknown): string {
  const message = (error as { message?: unknown } | null)?.message;
  return typeof message === 'string' ? message : String(error);
}
