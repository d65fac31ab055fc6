// @vectorstore/common: what every layer shares: the domain error and its two status mappers, JSON values, locks.

// Errors: one type with a closed set of kinds, mapped once per transport.
export {
  DomainError,
  type DomainErrorOptions,
  ErrorKind,
  isDomainError,
  type ValidationLocation,
} from './errors/domain-error';
export { ValidationIssues } from './errors/validation-issues';
export { DamagedFileError } from './errors/damaged-file-error';
export { insufficientStorageOf } from './errors/insufficient-storage';
export { toGrpcCode, toHttpStatus, httpStatusOf, httpMessageOf } from './errors/status-mappers';

// JSON values with exact 64-bit integers.
export {
  parseJson,
  stringifyJson,
  integersToNumbers,
  isJsonObject,
  setOwn,
  type JsonObject,
  type JsonValue,
} from './json/json-value';
// JSON files that carry a checksum of their content (catalog, manifests, auth files).
export {
  CHECKSUM_FIELD,
  checkSealedJson,
  crc32Checksum,
  describeSealCheck,
  hex32,
  sealJson,
  type SealCheck,
} from './json/sealed-json';

// Concurrency.
export { KeyedMutex } from './concurrency/keyed-mutex';
export { ReadWriteLock } from './concurrency/read-write-lock';
