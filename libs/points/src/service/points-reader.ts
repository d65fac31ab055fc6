import { Injectable } from '@nestjs/common';
import { DomainError } from '@vectorstore/common';
import { validateFilter } from '../filter/filter-validation';
import { parseDatetimeMicros } from '../filter/datetime';
import { valuesAt } from '../filter/payload-path';
import { Filter } from '../model/filter.model';
import { comparePointIds, PointId, pointIdKey } from '../model/point-id.model';
import { OrderValue, RetrievedPoint } from '../model/point.model';
import {
  CountRequest,
  FacetHit,
  FacetRequest,
  FacetValue,
  GetRequest,
  OrderBy,
  ScrollRequest,
} from '../model/query.model';
import { CollectionContext, CollectionContexts } from './collection-context';
import { filterRateCost, ReadLimits } from './strict-mode';
import { PointLocation, retrievedPoint } from './point-materializer';

const RANGE_INDEX_TYPES = new Set(['Integer', 'Float', 'Datetime']);
const FACET_INDEX_TYPES = new Set(['Keyword', 'Integer', 'Bool', 'Uuid']);

/** Reads that are not similarity searches: retrieve by id, scroll, count, facet. */
@Injectable()
export class PointsReader {
  constructor(private readonly contexts: CollectionContexts) {}

  get(collectionName: string, request: GetRequest): RetrievedPoint[] {
    const context = this.checkedContext(collectionName, { timeout: request.timeout }, request.ids.length);
    if ('include' in request.withVectors) {
      const missing = request.withVectors.include.find((name) => !context.storage.spaces.has(name));
      if (missing !== undefined) {
        throw DomainError.invalidArgument(`Wrong input: Not existing vector name error: ${missing}`);
      }
    }
    const seen = new Set<string>();
    const result: RetrievedPoint[] = [];
    for (const id of request.ids) {
      const key = pointIdKey(id);
      if (seen.has(key)) continue;
      seen.add(key);
      const location = this.locate(context, id, request.shardKeySelector);
      if (location) result.push(retrievedPoint(location, request.withPayload, request.withVectors));
    }
    return result;
  }

  scroll(collectionName: string, request: ScrollRequest): { points: RetrievedPoint[]; nextPageOffset?: PointId } {
    const context = this.checkedContext(collectionName, {
      limit: request.limit,
      timeout: request.timeout,
      filter: request.filter,
    });
    if (request.orderBy && request.offset !== undefined) {
      throw DomainError.invalidArgument(
        "Wrong input: Cannot use an `offset` when using `order_by`. The alternative for paging is to use `order_by.start_from` and a filter to exclude the IDs that you've already seen for the `order_by.start_from` value",
      );
    }
    const matches = this.matching(context, request.filter, request.shardKeySelector);
    if (request.orderBy) {
      const ordered = orderedPoints(context, matches, request.orderBy).slice(0, request.limit);
      return {
        points: ordered.map((o) => retrievedPoint(o.location, request.withPayload, request.withVectors, o.orderValue)),
      };
    }
    matches.sort((a, b) => comparePointIds(a.segment.pointId(a.slot), b.segment.pointId(b.slot)));
    const offset = request.offset;
    const start = offset === undefined ? 0 : lowerBound(matches, offset);
    const page = matches.slice(start, start + request.limit + 1);
    const next = page.length > request.limit ? page.pop() : undefined;
    return {
      points: page.map((location) => retrievedPoint(location, request.withPayload, request.withVectors)),
      nextPageOffset: next ? next.segment.pointId(next.slot) : undefined,
    };
  }

  count(collectionName: string, request: CountRequest): number {
    const context = this.checkedContext(collectionName, { timeout: request.timeout, filter: request.filter });
    if (request.exact || !request.filter)
      return this.matching(context, request.filter, request.shardKeySelector).length;
    let estimate = 0;
    for (const handle of context.readShards(request.shardKeySelector)) {
      for (const segment of handle.shard.segments) estimate += segment.estimate(request.filter).exp;
    }
    return estimate;
  }

  facet(collectionName: string, request: FacetRequest): FacetHit[] {
    return this.facetAll(collectionName, request).slice(0, request.limit);
  }

  /** Every value of the facet with its count, best first (the limit is checked, not applied). */
  facetAll(collectionName: string, request: FacetRequest): FacetHit[] {
    const context = this.checkedContext(collectionName, {
      limit: request.limit,
      timeout: request.timeout,
      filter: request.filter,
    });
    const schema = [...context.storage.shards.values()][0]?.shard.fieldIndexes.get(request.key);
    // A peer holding none of the collection's shards (cluster mode) has no index to check: it counts nothing.
    const holdsNone = context.storage.shards.size === 0 && context.record.shards.length > 0;
    if (!holdsNone && (!schema || !FACET_INDEX_TYPES.has(schema.type))) {
      throw DomainError.invalidArgument(
        `Bad request: Index required but not found for "${request.key}" of one of the following types: [keyword, integer, bool, uuid]. Help: Create an index for this key`,
      );
    }
    const counts = new Map<string, { value: FacetValue; count: number }>();
    for (const location of this.matching(context, request.filter, request.shardKeySelector)) {
      const distinct = new Map<string, FacetValue>();
      for (const value of valuesAt(location.segment.payload(location.slot), request.key)) {
        const facet = facetValue(value);
        if (facet) distinct.set(facetKey(facet), facet);
      }
      for (const [key, value] of distinct) {
        const entry = counts.get(key);
        if (entry) entry.count++;
        else counts.set(key, { value, count: 1 });
      }
    }
    return [...counts.values()].sort(compareFacetHits);
  }

  /**
   * A read's admission (cluster mode: at the coordinator, before its parts go out): the filter's
   * structure and strict mode's limits, and the read's rate cost charged.
   */
  admit(collectionName: string, limits: ReadLimits, cost?: number): void {
    this.checkedContext(collectionName, limits, cost);
  }

  /** The collection, after the filter's structure and strict mode's read limits are checked. */
  private checkedContext(
    collectionName: string,
    limits: ReadLimits,
    cost = 1 + filterRateCost(limits.filter),
  ): CollectionContext {
    const context = this.contexts.resolve(collectionName);
    if (limits.filter) validateFilter(limits.filter);
    const strict = context.record.config.strictModeConfig;
    this.contexts.strict.checkRead(context.record.name, strict, limits, context.indexSchemaOf);
    // Qdrant's costs: a retrieve its ids, a scroll, count or facet 1 plus its filter's conditions.
    this.contexts.strict.chargeRead(context.record.id, strict, cost);
    return context;
  }

  /** Live points passing `filter` across the selected shards. */
  matching(
    context: CollectionContext,
    filter: Filter | undefined,
    selector: ScrollRequest['shardKeySelector'],
  ): PointLocation[] {
    const result: PointLocation[] = [];
    for (const handle of context.readShards(selector)) {
      for (const segment of handle.shard.segments) {
        for (const slot of segment.matchingSlots(filter)) result.push({ segment, slot, shardKey: handle.shardKey });
      }
    }
    return result;
  }

  locate(
    context: CollectionContext,
    id: PointId,
    selector?: ScrollRequest['shardKeySelector'],
  ): PointLocation | undefined {
    for (const handle of context.readShards(selector)) {
      const found = handle.shard.findVisible(id);
      if (found) return { ...found, shardKey: handle.shardKey };
    }
    return undefined;
  }
}

function lowerBound(sorted: PointLocation[], offset: PointId): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (comparePointIds(sorted[mid].segment.pointId(sorted[mid].slot), offset) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Points ordered by a payload key's values (one entry per value, as Qdrant does). Needs a range index. */
export function orderedPoints(
  context: CollectionContext,
  locations: PointLocation[],
  orderBy: OrderBy,
): Array<{ location: PointLocation; orderValue: OrderValue; sortKey: number }> {
  const schema = [...context.storage.shards.values()][0]?.shard.fieldIndexes.get(orderBy.key);
  if (!schema || !RANGE_INDEX_TYPES.has(schema.type)) {
    throw DomainError.invalidArgument(
      `Bad request: No range index for \`order_by\` key: \`${orderBy.key}\`. Please create one to use \`order_by\`. Check https://qdrant.tech/documentation/concepts/indexing/#payload-index to see which payload schemas support Range conditions`,
    );
  }
  const desc = orderBy.direction === 'Desc';
  const start =
    orderBy.startFrom === undefined
      ? undefined
      : 'float' in orderBy.startFrom
        ? orderBy.startFrom.float
        : 'integer' in orderBy.startFrom
          ? Number(orderBy.startFrom.integer)
          : orderBy.startFrom.datetime;
  const entries: Array<{ location: PointLocation; orderValue: OrderValue; sortKey: number }> = [];
  for (const location of locations) {
    for (const value of valuesAt(location.segment.payload(location.slot), orderBy.key)) {
      const ordered = orderValueOf(value, schema.type);
      if (!ordered) continue;
      if (start !== undefined && (desc ? ordered.sortKey > start : ordered.sortKey < start)) continue;
      entries.push({ location, ...ordered });
    }
  }
  entries.sort((a, b) =>
    desc
      ? b.sortKey - a.sortKey ||
        -comparePointIds(a.location.segment.pointId(a.location.slot), b.location.segment.pointId(b.location.slot))
      : a.sortKey - b.sortKey ||
        comparePointIds(a.location.segment.pointId(a.location.slot), b.location.segment.pointId(b.location.slot)),
  );
  return entries;
}

function orderValueOf(value: unknown, type: string): { orderValue: OrderValue; sortKey: number } | undefined {
  if (type === 'Datetime') {
    if (typeof value !== 'string') return undefined;
    const micros = parseDatetimeMicros(value);
    return micros === undefined ? undefined : { orderValue: { int: BigInt(Math.trunc(micros)) }, sortKey: micros };
  }
  if (typeof value === 'bigint')
    return { orderValue: type === 'Float' ? { float: Number(value) } : { int: value }, sortKey: Number(value) };
  if (typeof value === 'number')
    return { orderValue: type === 'Integer' ? { int: BigInt(Math.trunc(value)) } : { float: value }, sortKey: value };
  return undefined;
}

function facetValue(value: unknown): FacetValue | undefined {
  if (typeof value === 'string') return { keyword: value };
  if (typeof value === 'bigint') return { integer: value };
  if (typeof value === 'boolean') return { bool: value };
  return undefined;
}

/** Facet order: higher counts first, then by value. */
export function compareFacetHits(a: FacetHit, b: FacetHit): number {
  return b.count - a.count || compareFacet(a.value, b.value);
}

export function facetKey(value: FacetValue): string {
  return 'keyword' in value ? `s:${value.keyword}` : 'integer' in value ? `i:${value.integer}` : `b:${value.bool}`;
}

function compareFacet(a: FacetValue, b: FacetValue): number {
  const ka = facetKey(a);
  const kb = facetKey(b);
  return ka < kb ? -1 : ka > kb ? 1 : 0;
}
