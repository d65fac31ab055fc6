/** Why the log refused an operation. */
export type WalErrorReason = 'closed' | 'failed';

/**
 * Raised for appends a log can no longer take: after `close()` (`closed`), or after an I/O error left the
 * on-disk state uncertain (`failed`; `cause` holds the original error, and only a fresh `open` — which
 * re-runs recovery — makes the log usable again). The appends whose write or fsync failed are rejected with
 * the original error itself (ENOSPC, EIO, …), so callers can tell disk-full from a dead log.
 */
export class WalError extends Error {
  override readonly name = 'WalError';

  constructor(
    readonly reason: WalErrorReason,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
