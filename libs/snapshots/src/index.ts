export * from './snapshot-checksum';
export { checksumMismatch, invalidSnapshot, snapshotNotFound } from './snapshot-errors';
export * from './snapshot-location';
export * from './snapshot-manifest';
export * from './snapshot-names';
export * from './snapshot-reader';
export * from './snapshot-store';
export * from './snapshot-work-names';
export * from './snapshot-writer';
