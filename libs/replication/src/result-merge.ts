import {
  comparePointIds,
  PointId,
  pointIdKey,
  OrderValue,
  RetrievedPoint,
  ScoredPoint,
  FacetHit,
  OrderBy,
  compareFacetHits,
  facetKey,
  type ResultOrder,
} from '@vectorstore/points';

// Coordinator merges of per-peer answers (docs/cluster.md, "Reads"). Each peer answers over its own
// shards exactly as a standalone server would over those shards; a point lives on one shard, so the
// merges only interleave lists and never combine two answers for one point.

/** Merges per-peer result lists (each already in `order`) into one, without duplicates; the first `limit`. */
export function mergeScored(lists: ScoredPoint[][], order: ResultOrder, limit: number): ScoredPoint[] {
  const all = dedupeById(lists.flat());
  if (order.by === 'random') return shuffle(all).slice(0, limit);
  return all.sort(comparator(order)).slice(0, limit);
}

function comparator(order: ResultOrder): (a: ScoredPoint, b: ScoredPoint) => number {
  switch (order.by) {
    case 'score':
      // Ties by id, so that every coordinator gives the same answer.
      return order.higherIsBetter
        ? (a, b) => b.score - a.score || comparePointIds(a.id, b.id)
        : (a, b) => a.score - b.score || comparePointIds(a.id, b.id);
    case 'orderValue':
      return (a, b) => compareOrdered(a, b, order.direction);
    default:
      return (a, b) => comparePointIds(a.id, b.id);
  }
}

/** By order value (as the local order_by sort: Desc puts higher values and higher ids first). */
function compareOrdered(a: RetrievedPoint, b: RetrievedPoint, direction: 'Asc' | 'Desc'): number {
  const byValue = orderKey(a.orderValue) - orderKey(b.orderValue) || comparePointIds(a.id, b.id);
  return direction === 'Desc' ? -byValue : byValue;
}

function orderKey(value: OrderValue | undefined): number {
  if (value === undefined) return 0;
  return 'int' in value ? Number(value.int) : value.float;
}

/** Points got by id from several peers, in the order the ids were asked for (each once). */
export function mergeGot(ids: readonly PointId[], lists: RetrievedPoint[][]): RetrievedPoint[] {
  const byKey = new Map<string, RetrievedPoint>();
  for (const point of lists.flat()) byKey.set(pointIdKey(point.id), point);
  const result: RetrievedPoint[] = [];
  const seen = new Set<string>();
  for (const id of ids) {
    const key = pointIdKey(id);
    const point = byKey.get(key);
    if (point === undefined || seen.has(key)) continue;
    seen.add(key);
    result.push(point);
  }
  return result;
}

/**
 * One scroll page from per-peer pages of the same `limit`, each in id order from the same offset: the
 * first `limit` points by id; the next offset is the smallest id not on the page, among the points the
 * peers returned and the next offsets they gave.
 */
export function mergeScrollPages(
  pages: Array<{ points: RetrievedPoint[]; nextPageOffset?: PointId }>,
  limit: number,
): { points: RetrievedPoint[]; nextPageOffset?: PointId } {
  const all = dedupeById(pages.flatMap((page) => page.points)).sort((a, b) => comparePointIds(a.id, b.id));
  const candidates = [
    ...all.slice(limit).map((point) => point.id),
    ...pages.flatMap((page) => (page.nextPageOffset === undefined ? [] : [page.nextPageOffset])),
  ];
  const next = candidates.sort(comparePointIds)[0];
  return { points: all.slice(0, limit), nextPageOffset: next };
}

/** A scroll page ordered by a payload key: the first `limit` entries over every peer. */
export function mergeOrderedPages(lists: RetrievedPoint[][], orderBy: OrderBy, limit: number): RetrievedPoint[] {
  // One point may appear once per value of the key (as Qdrant): no dedupe here.
  return lists
    .flat()
    .sort((a, b) => compareOrdered(a, b, orderBy.direction ?? 'Asc'))
    .slice(0, limit);
}

/** Facet counts summed over peers, best first, the first `limit`. */
export function mergeFacets(lists: FacetHit[][], limit: number): FacetHit[] {
  const counts = new Map<string, FacetHit>();
  for (const hit of lists.flat()) {
    const key = facetKey(hit.value);
    const entry = counts.get(key);
    if (entry) entry.count += hit.count;
    else counts.set(key, { value: hit.value, count: hit.count });
  }
  return [...counts.values()].sort(compareFacetHits).slice(0, limit);
}

function dedupeById<T extends RetrievedPoint>(points: T[]): T[] {
  const seen = new Set<string>();
  return points.filter((point) => {
    const key = pointIdKey(point.id);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

function shuffle<T>(items: T[]): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [items[i], items[j]] = [items[j], items[i]];
  }
  return items;
}
