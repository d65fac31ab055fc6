import { queryFormatError } from '../../core/rest/rest-format.error';
import { ValidationIssues } from '@vectorstore/common';
import type { RecoverRequest } from '@vectorstore/snapshots';

/** The body of `PUT /collections/{c}/snapshots/recover` (Qdrant's `SnapshotRecover`). */
export function recoverFromRest(collection: string, body: unknown): RecoverRequest {
  const issues = new ValidationIssues();
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    issues.add('body', 'expected an object with `location`');
    issues.throwIfAny();
  }
  const fields = body as Record<string, unknown>;
  const text = (name: string, required: boolean): string | undefined => {
    const value = fields[name];
    if (value === undefined || value === null) {
      if (required) issues.add(name, 'field is required');
      return undefined;
    }
    if (typeof value !== 'string') issues.add(name, 'expected a string');
    return typeof value === 'string' ? value : undefined;
  };
  const request: RecoverRequest = {
    collection,
    location: text('location', true) ?? '',
    priority: text('priority', false),
    checksum: text('checksum', false),
    apiKey: text('api_key', false),
  };
  issues.throwIfAny();
  return request;
}

/** A query parameter given at most once, as text. */
export function readTextParam(query: Record<string, unknown>, name: string): string | undefined {
  const value = query[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw queryFormatError(name, 'must be given once, as text');
  return value;
}
