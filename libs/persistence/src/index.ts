export * from './atomic-file';
export * from './data-dir-lock';
