export * from './point-id.model';
export * from './filter.model';
export * from './vectors.model';
export * from './point.model';
export * from './selectors.model';
export * from './operations.model';
export * from './query.model';
