// @vectorstore/persistence: durable files (atomic replace, fsync) and the locks that keep one writer per file.
export { writeFileAtomic, fsyncDirectory, readFileIfExists, removeStaleTemporaryFiles } from './atomic-file';
export { DataDirLock, DataDirInUseError, DataDirLockError } from './data-dir-lock';
export { tryLockFile, unlockFile, LockUnsupportedError } from './flock';
