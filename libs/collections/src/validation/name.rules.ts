import { ValidationIssues, ValidationLocation } from '@vectorstore/common';

export const MAX_NAME_CHARS = 255;
/** Characters a new collection name may not contain (Qdrant's strict rule; they break file systems and URLs). */
const STRICT_FORBIDDEN = ['<', '>', ':', '"', '/', '\\', '|', '?', '*', '\0', '\u001f'];
/** Characters no name may contain, even names of collections created before the strict rule. */
const LEGACY_FORBIDDEN = ['/', '\0'];
export const MAX_VECTOR_NAME_BYTES = 200;

/** Rules for the name of a collection being created. */
export function checkNewCollectionName(issues: ValidationIssues, path: string, name: string): void {
  checkLength(issues, path, name);
  checkForbidden(issues, path, name, STRICT_FORBIDDEN, 'collection name');
}

/** Rules for a collection (or alias) name that refers to something that may already exist. */
export function checkCollectionNameReference(issues: ValidationIssues, path: string, name: string): void {
  checkLength(issues, path, name);
  checkForbidden(issues, path, name, LEGACY_FORBIDDEN, 'collection name');
}

/**
 * A collection named on its own, apart from any body (REST names it in the path): its rules alone,
 * thrown as a validation error reported at `location` (`new`: the stricter rules of a name being created).
 */
export function validateCollectionName(
  name: string,
  kind: 'new' | 'reference',
  location: ValidationLocation = 'body',
): void {
  const issues = new ValidationIssues();
  if (kind === 'new') checkNewCollectionName(issues, 'collection_name', name);
  else checkCollectionNameReference(issues, 'collection_name', name);
  issues.throwIfAny(location);
}

export function checkAliasName(issues: ValidationIssues, path: string, name: string): void {
  checkLength(issues, path, name);
  checkForbidden(issues, path, name, LEGACY_FORBIDDEN, 'alias name');
}

/** Vector names: at most 200 bytes, no characters a collection name may not hold. */
export function checkVectorName(issues: ValidationIssues, path: string, name: string, kind: 'dense' | 'sparse'): void {
  if (kind === 'sparse' && name.length === 0) {
    issues.add(path, 'Sparse vector name cannot be empty');
    return;
  }
  if (Buffer.byteLength(name, 'utf8') > MAX_VECTOR_NAME_BYTES) {
    issues.add(path, `Invalid ${kind} vector name \`${name}\`: must be at most ${MAX_VECTOR_NAME_BYTES} bytes`);
  }
  const bad = STRICT_FORBIDDEN.find((c) => name.includes(c));
  if (bad !== undefined) {
    issues.add(path, `Invalid ${kind} vector name \`${name}\`: cannot contain "${printable(bad)}" char`);
  }
}

/** A vector name that refers to an existing vector (of either kind): the same limits, in neutral words. */
export function checkVectorNameReference(issues: ValidationIssues, path: string, name: string): void {
  if (Buffer.byteLength(name, 'utf8') > MAX_VECTOR_NAME_BYTES) {
    issues.add(path, `Invalid vector name \`${name}\`: must be at most ${MAX_VECTOR_NAME_BYTES} bytes`);
  }
  const bad = STRICT_FORBIDDEN.find((c) => name.includes(c));
  if (bad !== undefined) issues.add(path, `Invalid vector name \`${name}\`: cannot contain "${printable(bad)}" char`);
}

function checkLength(issues: ValidationIssues, path: string, name: string): void {
  const chars = [...name].length;
  if (chars < 1 || chars > MAX_NAME_CHARS) {
    issues.add(path, `length ${chars} invalid, must be from 1 to ${MAX_NAME_CHARS} characters`);
  }
}

function checkForbidden(issues: ValidationIssues, path: string, name: string, forbidden: string[], what: string): void {
  const bad = forbidden.find((c) => name.includes(c));
  if (bad !== undefined) issues.add(path, `${what} cannot contain "${printable(bad)}" char`);
}

/** Qdrant prints the character as is; control characters are shown escaped so the message stays readable. */
function printable(c: string): string {
  return c === '\0' ? '\\0' : c === '\u001f' ? '\\u{1f}' : c;
}
