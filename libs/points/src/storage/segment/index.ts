export { Segment } from './segment';
export type { SegmentPoint } from './segment';
export type { SlotPredicate } from './segment-filter';
