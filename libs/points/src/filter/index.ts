export * from './payload-path';
export * from './datetime';
export * from './geo';
export * from './text-match';
export * from './filter-evaluator';
export * from './filter-validation';
