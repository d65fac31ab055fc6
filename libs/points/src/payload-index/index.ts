export * from './cardinality';
export * from './tokenizer';
export * from './field-index';
export * from './payload-index-set';
export { KeywordIndex, BoolIndex } from './keyword-index';
export { IntegerIndex, FloatIndex, DatetimeIndex } from './numeric-index';
export { GeoIndex } from './geo-index';
export { TextIndex } from './text-index';
export { sortedSlots, intersectSlots, unionSlots } from './slot-sets';
