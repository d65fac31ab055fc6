export * from './atomic-file';
export * from './data-dir-lock';
export { tryLockFile, unlockFile } from './flock';
