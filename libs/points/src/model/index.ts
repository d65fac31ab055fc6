export * from './point-id.model';
export * from './filter.model';
