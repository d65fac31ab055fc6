// Vector search across a shard's segments: the per-segment bests merged into one top-k.
import { Filter } from '../../model/filter.model';
import { SearchParams } from '../../model/query.model';
import { Vector } from '../../model/vectors.model';
import { SparseCorpus } from '@vectorstore/engine';
import { Segment, SlotPredicate } from '../segment';
import { CorpusSearchParams } from '../vectors/sparse-vectors';
import { SlotHits } from '../vectors/segment-vectors';
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

/** A search whose graph-indexed segments were searched off the event loop; `current` completes it. */
export interface SettledHits {
  /**
   * The hits, best first, at most k, as the shard is now: segments not searched on a worker (appendable
   * ones, and any an optimizer swap put in place meanwhile) are searched now, synchronously; a worker's hit
   * is kept only if its segment is still in place and its point still live there (such segments are
   * immutable: a changed point moved to the active segment, which was just searched), and a segment that
   * lost one of its hits meanwhile is searched again now. So a point deleted before the search is never
   * returned, nor one deleted or moved meanwhile at its old place, and no answer comes up short. Call it
   * with no await between it and reading the points.
   */
  current(): ShardHit[];
}

/**
 * `searchSegments` with graph-indexed segments searched on engine worker threads (see
 * SegmentVectors.searchAsync) and the rest when `current` is called (see SettledHits).
 */
export async function searchSegmentsAsync(
  segments: readonly Segment[],
  now: () => readonly Segment[],
  name: string,
  query: Vector,
  k: number,
  filter: Filter | undefined,
  params: SearchParams | undefined,
  higherIsBetter: boolean,
): Promise<SettledHits> {
  const idf = params?.idf;
  const offloaded = new Map<Segment, SlotHits>();
  if (idf === undefined || idf === 'global') {
    const pending: Promise<void>[] = [];
    for (const segment of segments) {
      if (segment.pointCount === 0) continue;
      const search = segment.searchAsync(name, query, k, filter, params);
      if (search) pending.push(search.then((found) => void offloaded.set(segment, found)));
    }
    await Promise.all(pending);
  }
  return {
    current: () => {
      const current = now();
      const live = new Set(current);
      // A worker's k hits of a segment that lost some since (deleted or moved meanwhile) may no longer be
      // its best k: such a segment is searched again now, as one not searched on a worker.
      const kept = new Map<Segment, ShardHit[]>();
      for (const [segment, found] of offloaded) {
        if (!live.has(segment)) continue; // swapped out: its points are in a segment of `rest`
        const hits: ShardHit[] = [];
        for (let i = 0; i < found.slots.length; i++) {
          const slot = found.slots[i];
          if (!segment.isDeleted(slot)) hits.push({ segment, slot, score: found.scores[i] });
        }
        if (hits.length === found.slots.length) kept.set(segment, hits);
      }
      const rest = current.filter((segment) => !kept.has(segment));
      const hits = searchSegments(rest, name, query, k, filter, params, higherIsBetter);
      for (const found of kept.values()) hits.push(...found);
      hits.sort((a, b) => (higherIsBetter ? b.score - a.score : a.score - b.score));
      return hits.slice(0, k);
    },
  };
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
