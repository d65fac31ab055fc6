import { DomainError, ErrorKind } from './domain-error';

/** The errno codes that mean "no room for this write": the device is full, or the user's disk quota is. */
const NO_SPACE: Record<string, string> = {
  ENOSPC: 'No space left on device',
  EDQUOT: 'Disk quota exceeded',
};

/** How deep a wrapped failure is searched: wrappers nest a few levels at most; a cycle must not loop forever. */
const MAX_DEPTH = 8;

/**
 * The failure behind `error` as an InsufficientStorage DomainError when it is a full disk or quota (the error itself
 * or one it wraps through `cause` or an AggregateError); undefined for any other failure.
 *
 * Storage code lets the file system's error travel up unchanged, so the transports ask here before they answer an
 * unexpected failure with 500: a full disk is the operator's to fix, not a bug, and the client may retry the same
 * request once space is freed. The message names the cause (errno text and code) but no path: paths stay in the log.
 * A DomainError of another kind than Internal is already a decided answer and is kept.
 */
export function insufficientStorageOf(error: unknown): DomainError | undefined {
  if (error instanceof DomainError && error.kind === ErrorKind.InsufficientStorage) return error;
  const code = noSpaceCode(error, 0, new Set());
  if (code === undefined) return undefined;
  return DomainError.insufficientStorage(
    `${NO_SPACE[code]} (${code}): the write could not be stored; free disk space and retry`,
    error,
  );
}

function noSpaceCode(error: unknown, depth: number, seen: Set<unknown>): string | undefined {
  if (typeof error !== 'object' || error === null || depth > MAX_DEPTH || seen.has(error)) return undefined;
  seen.add(error);
  if (error instanceof DomainError && error.kind !== ErrorKind.Internal) return undefined;
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (typeof code === 'string' && Object.hasOwn(NO_SPACE, code)) return code;
  // An error rebuilt from a worker thread's message keeps Node's text (`ENOSPC: no space left on device, write`)
  // but not its `code`.
  const fromMessage = typeof message === 'string' ? /^(ENOSPC|EDQUOT):/.exec(message)?.[1] : undefined;
  if (fromMessage !== undefined) return fromMessage;
  const inner = [(error as { cause?: unknown }).cause, ...(error instanceof AggregateError ? error.errors : [])];
  for (const wrapped of inner) {
    const found = noSpaceCode(wrapped, depth + 1, seen);
    if (found !== undefined) return found;
  }
  return undefined;
}
