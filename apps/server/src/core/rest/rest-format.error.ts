import { DomainError } from '@vectorstore/common';

/**
 * What Qdrant answers 400 for: a body, query or path that does not deserialize (a wrong type, a
 * missing required field, an unknown enum value, malformed JSON). Rule violations are 422 instead.
 */
export function bodyFormatError(path: string, message: string): DomainError {
  return DomainError.invalidArgument(`Format error in JSON body: ${path ? `${path}: ` : ''}${message}`);
}

export function queryFormatError(name: string, message: string): DomainError {
  return DomainError.invalidArgument(`Deserialize error in query parameters: ${name}: ${message}`);
}

export function pathFormatError(name: string, message: string): DomainError {
  return DomainError.invalidArgument(`Deserialize error in path parameters: ${name}: ${message}`);
}
