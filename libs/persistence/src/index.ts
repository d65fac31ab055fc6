// @vectorstore/persistence: durable files (atomic replace, fsync) and the locks that keep one writer per file.
export { writeFileAtomic, fsyncDirectory, readFileIfExists, removeStaleTemporaryFiles } from './atomic-file';
export { DataDirLock, DataDirInUseError, DataDirLockError } from './data-dir-lock';
export { tryLockFile, unlockFile, LockUnsupportedError } from './flock';
// Every file operation that changes what the server keeps goes through durableFs, so tests can fault any of them.
export { durableFs } from './durable-fs';
export {
  injectFaults,
  stopFaultInjection,
  FaultInjector,
  InjectedCrashError,
  FILE_OP_KINDS,
  type FaultPlan,
  type FileOp,
  type FileOpKind,
} from './fault-injection';
// For tests: crash an operation at each of its durable file operations in turn and check what a restart finds.
export { walkCrashPoints, type CrashWalkOperation, type CrashWalkResult } from './crash-walk';
// ... and fail each one with ENOSPC in turn, the disk staying full until the test frees it.
export {
  walkFullDiskPoints,
  FULL_DISK_OP_KINDS,
  type FullDiskWalkOperation,
  type FullDiskWalkOptions,
  type FullDiskWalkResult,
} from './crash-walk';
