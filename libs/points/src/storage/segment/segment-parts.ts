import { PayloadIndexSet } from '../../payload-index/payload-index-set';
import { IdTracker } from './id-tracker';
import { PayloadSizes } from './payload-sizes';
import { PayloadStore } from './payload-store';
import { VectorStores } from './vector-stores';

/** What a segment is made of; the reads (segment-query) and the body format (segment-body) work on these. */
export interface SegmentParts {
  readonly ids: IdTracker;
  readonly payloads: PayloadStore;
  readonly payloadSizes: PayloadSizes;
  readonly vectors: VectorStores;
  readonly payloadIndexes: PayloadIndexSet;
}
