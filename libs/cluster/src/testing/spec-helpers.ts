// Small helpers the cluster specs share: waiting for state that arrives through watches, and the
// DomainError a promise rejects with.
import { DomainError } from '@vectorstore/common';

/** Polls `condition` every 5 ms until it holds, failing after `timeoutMs` with `what` in the message. */
export async function until(condition: () => boolean, what: string, timeoutMs = 3000): Promise<void> {
  const started = Date.now();
  while (!condition()) {
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** The DomainError `promise` rejects with; any other outcome fails the test. */
export async function rejectionOf(promise: Promise<unknown>): Promise<DomainError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof DomainError) return error;
    throw error;
  }
  throw new Error('expected a DomainError');
}
