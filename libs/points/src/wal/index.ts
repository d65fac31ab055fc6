export * from './crc32c';
export * from './wal.errors';
export * from './wal-files';
export * from './wal-record';
export * from './wal-recovery';
export * from './write-ahead-log';
