// Vector search across a shard's segments: the per-segment bests merged into one top-k.
import { Filter } from '../../model/filter.model';
import { SearchParams } from '../../model/query.model';
import { Vector } from '../../model/vectors.model';
import { SparseCorpus } from '@vectorstore/engine';
import { Segment, SlotPredicate } from '../segment';
import { CorpusSearchParams } from '../vectors/sparse-vectors';
import { PointRef } from './shard-points';

/** A search hit inside a shard. */
export interface ShardHit extends PointRef {
  score: number;
}

/**
 * The `k` best hits for a query on vector space `name` among points passing `filter`, best
 * first. `higherIsBetter` orders scores (false for distances).
 */
export function searchSegments(
  segments: readonly Segment[],
  name: string,
  query: Vector,
  k: number,
  filter: Filter | undefined,
  params: SearchParams | undefined,
  higherIsBetter: boolean,
): ShardHit[] {
  const idf = params?.idf;
  if (idf !== undefined && idf !== 'global') {
    const corpus: CorpusSearchParams = { ...params, sparseCorpus: corpusOf(segments, name, idf.corpus) };
    params = corpus;
  }
  const hits: ShardHit[] = [];
  for (const segment of segments) {
    if (segment.pointCount === 0) continue;
    const allowed: SlotPredicate | undefined = filter ? segment.filterPredicate(filter) : undefined;
    const found = segment.search(name, query, k, allowed, params);
    for (let i = 0; i < found.slots.length; i++) hits.push({ segment, slot: found.slots[i], score: found.scores[i] });
  }
  hits.sort((a, b) => (higherIsBetter ? b.score - a.score : a.score - b.score));
  return hits.slice(0, k);
}

/**
 * IDF statistics over the points of `segments` that `filter` selects (Qdrant's `idf.corpus`): how
 * many have a vector `name`, and how many of those weigh each dimension. A corpus matching nothing
 * is empty, never the whole shard.
 */
function corpusOf(segments: readonly Segment[], name: string, filter: Filter): SparseCorpus {
  let documents = 0;
  const frequency = new Map<number, number>();
  for (const segment of segments) {
    const store = segment.vectorStore(name);
    if (!store) continue;
    for (const slot of segment.matchingSlots(filter)) {
      const vector = store.get(slot);
      if (vector?.kind !== 'sparse') continue;
      documents++;
      vector.indices.forEach((dim, i) => {
        if (vector.values[i] !== 0) frequency.set(dim, (frequency.get(dim) ?? 0) + 1);
      });
    }
  }
  return { documents, frequency: (dim) => frequency.get(dim) ?? 0 };
}
