export * from './errors/domain-error';
export * from './errors/status-mappers';
export * from './json/json-value';
export * from './concurrency/keyed-mutex';
export * from './concurrency/read-write-lock';
export * from './errors/validation-issues';
