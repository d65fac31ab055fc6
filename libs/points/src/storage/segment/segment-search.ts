// A segment's vector search: the best slots of one vector space among the allowed ones.
import { SearchParams } from '../../model/query.model';
import { Vector } from '../../model/vectors.model';
import { SlotHits } from '../vectors/segment-vectors';
import type { SlotPredicate } from './segment-filter';
import { SegmentParts } from './segment-parts';

/** The `k` best slots for a query on vector space `name` among `allowed` ones (all live points when absent). */
export function searchVectors(
  parts: SegmentParts,
  name: string,
  query: Vector,
  k: number,
  allowed: SlotPredicate | undefined,
  params: SearchParams | undefined,
): SlotHits {
  const store = parts.vectors.get(name);
  if (!store || k <= 0) return { slots: new Uint32Array(0), scores: new Float32Array(0) };
  return store.search(query, k, allowed, params);
}
