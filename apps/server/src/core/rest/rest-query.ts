import { ValidationIssues } from '@vectorstore/common';
import { queryFormatError } from './rest-format.error';

/** The query string as express parses it. */
export type RestQuery = Record<string, unknown>;

function single(query: RestQuery, name: string): string | undefined {
  const value = query[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw queryFormatError(name, 'expected a single value');
  return value;
}

/** `true` or `false` exactly, as serde reads a bool (`1`, `True` are 400). */
export function readBoolParam(query: RestQuery, name: string): boolean | undefined {
  const value = single(query, name);
  if (value === undefined) return undefined;
  if (value === 'true') return true;
  if (value === 'false') return false;
  throw queryFormatError(name, `provided string was not \`true\` or \`false\``);
}

/** An unsigned integer parameter. */
export function readUintParam(query: RestQuery, name: string): number | undefined {
  const value = single(query, name);
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(Number(value))) {
    throw queryFormatError(name, `invalid digit found in string \`${value}\``);
  }
  return Number(value);
}

/** `?wait`: writes default to not waiting. */
export function readWait(query: RestQuery): boolean {
  return readBoolParam(query, 'wait') ?? false;
}

/**
 * `?timeout` of collection, alias and cluster operations: seconds, at least 1 (422 otherwise, in
 * Qdrant's words); accepted and ignored on a single node.
 */
export function readMetaTimeout(query: RestQuery): number | undefined {
  const timeout = readUintParam(query, 'timeout');
  const issues = new ValidationIssues();
  issues.range('timeout', timeout, 1);
  issues.throwIfAny('query');
  return timeout;
}

/** `?timeout` of point-level writes such as index changes: any unsigned number of seconds. */
export function readWriteTimeout(query: RestQuery): number | undefined {
  return readUintParam(query, 'timeout');
}
