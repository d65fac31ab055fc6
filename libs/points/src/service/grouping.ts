import { JsonObject } from '@vectorstore/common';
import { valuesAt } from '../filter/payload-path';
import { Condition, Filter } from '../model/filter.model';
import { canonicalUuid, MAX_U64, PointId, pointIdFromKey } from '../model/point-id.model';
import { GroupId } from '../model/query.model';

/**
 * Grouping of query hits by a payload key (Qdrant's SearchGroups / RecommendGroups / QueryGroups).
 * The query runs in rounds: first to find `limit` groups (excluding groups already full and points
 * already seen), then to fill the best groups that still lack hits. Each round asks for
 * `limit * groupSize` hits, so groups fill whenever the data allows within the rounds.
 */

/** Rounds that look for new groups, then rounds that fill the best ones (Qdrant's numbers). */
export const GROUP_FINDING_ROUNDS = 5;
export const GROUP_FILLING_ROUNDS = 5;

/** What a grouped query needs from a hit. */
export interface GroupableHit {
  /** `pointIdKey` of the point. */
  key: string;
  score: number;
}

export interface GroupingOptions {
  groupBy: string;
  groupSize: number;
  /** Number of groups. */
  limit: number;
  /** Score order of the query: true when higher scores are better. */
  higherIsBetter: boolean;
}

export interface HitGroup<H> {
  id: GroupId;
  /** Best first, at most `groupSize`. */
  hits: H[];
}

/** A Map key for a group id (keywords and integers never collide). */
export function groupIdKey(id: GroupId): string {
  return typeof id === 'bigint' ? `i:${id}` : `s:${id}`;
}

/**
 * The groups a payload belongs to: the distinct values at `groupBy`, each element of an array
 * counting. Undefined when there are none, or when a value is neither a keyword nor an integer
 * (Qdrant skips such points).
 */
export function groupIdsOf(payload: JsonObject, groupBy: string): GroupId[] | undefined {
  const ids = new Map<string, GroupId>();
  for (const value of valuesAt(payload, groupBy)) {
    if (typeof value !== 'string' && typeof value !== 'bigint') return undefined;
    ids.set(groupIdKey(value), value);
  }
  return ids.size === 0 ? undefined : [...ids.values()];
}

/**
 * The point id a group id names, for `with_lookup`: a non-negative integer up to 2^64 - 1, or a
 * UUID in canonical form (hyphenated, lower case), which is how Qdrant matches looked-up points
 * back to groups. Anything else has no lookup.
 */
export function groupPointId(id: GroupId): PointId | undefined {
  if (typeof id === 'bigint') return id >= 0n && id <= MAX_U64 ? id : undefined;
  return canonicalUuid(id) === id ? id : undefined;
}

interface GroupState<H> {
  id: GroupId;
  hits: Map<string, H>;
  best: number;
}

/** Collects hits into groups; the best groups are those with the best single hit. */
export class GroupsAggregator<H extends GroupableHit> {
  private readonly groups = new Map<string, GroupState<H>>();
  private readonly full = new Set<string>();
  private readonly seen = new Set<string>();

  constructor(
    private readonly limit: number,
    private readonly groupSize: number,
    private readonly higherIsBetter: boolean,
  ) {}

  /** Adds a hit to each of its groups (a point may belong to several). */
  add(hit: H, ids: readonly GroupId[]): void {
    this.seen.add(hit.key);
    for (const id of ids) {
      const key = groupIdKey(id);
      let group = this.groups.get(key);
      if (!group) {
        group = { id, hits: new Map(), best: hit.score };
        this.groups.set(key, group);
      } else if (this.better(hit.score, group.best)) {
        group.best = hit.score;
      }
      if (!group.hits.has(hit.key)) group.hits.set(hit.key, hit);
      if (group.hits.size >= this.groupSize) this.full.add(key);
    }
  }

  /** Keys of the points added so far. */
  get pointKeys(): ReadonlySet<string> {
    return this.seen;
  }

  /** Ids of the groups that have `groupSize` hits. */
  filledGroupIds(): GroupId[] {
    return [...this.full].map((key) => this.groups.get(key)!.id);
  }

  /** How many of the best `limit` groups are full. */
  filledBestCount(): number {
    return this.bestKeys().filter((key) => this.full.has(key)).length;
  }

  /** Ids of the best `limit` groups that are not full yet. */
  unfilledBestGroupIds(): GroupId[] {
    return this.bestKeys()
      .filter((key) => !this.full.has(key))
      .map((key) => this.groups.get(key)!.id);
  }

  /** The best `limit` groups, best first, each with its best `groupSize` hits. */
  distill(): Array<HitGroup<H>> {
    return this.bestKeys().map((key) => {
      const group = this.groups.get(key)!;
      const hits = [...group.hits.values()].sort((a, b) => this.compare(a.score, b.score)).slice(0, this.groupSize);
      return { id: group.id, hits };
    });
  }

  /** Group keys by best hit (ties: first seen first), at most `limit`. */
  private bestKeys(): string[] {
    return [...this.groups.entries()]
      .sort(([, a], [, b]) => this.compare(a.best, b.best))
      .slice(0, this.limit)
      .map(([key]) => key);
  }

  private better(a: number, b: number): boolean {
    return this.higherIsBetter ? a > b : a < b;
  }

  private compare(a: number, b: number): number {
    return this.higherIsBetter ? b - a : a - b;
  }
}

/**
 * Runs a grouped query. `search(extra)` must answer the query's hits, best first, with `extra`
 * merged into its filter and at most `limit * groupSize` of them; `payloadOf` reads a hit's payload.
 */
export function collectGroups<H extends GroupableHit>(
  options: GroupingOptions,
  search: (extra: Filter) => H[],
  payloadOf: (hit: H) => JsonObject,
): Array<HitGroup<H>> {
  const aggregator = new GroupsAggregator<H>(options.limit, options.groupSize, options.higherIsBetter);
  const round = (extra: Condition[]): boolean => {
    const exclusions = aggregator.pointKeys.size > 0 ? [{ hasId: [...aggregator.pointKeys].map(pointIdFromKey) }] : [];
    const filter: Filter = {
      must: extra,
      // Points without the key would be dropped anyway; asking for them would waste the round.
      mustNot: [{ isEmpty: { key: options.groupBy } }, ...exclusions],
    };
    const hits = search(filter);
    for (const hit of hits) {
      const ids = groupIdsOf(payloadOf(hit), options.groupBy);
      if (ids) aggregator.add(hit, ids);
    }
    return hits.length > 0;
  };

  let filled = false;
  for (let i = 0; i < GROUP_FINDING_ROUNDS && !filled; i++) {
    if (!round(exceptGroups(options.groupBy, aggregator.filledGroupIds()))) break;
    filled = aggregator.filledBestCount() >= options.limit;
  }
  for (let i = 0; i < GROUP_FILLING_ROUNDS && !filled; i++) {
    if (!round(onlyGroups(options.groupBy, aggregator.unfilledBestGroupIds()))) break;
    filled = aggregator.filledBestCount() >= options.limit;
  }
  return aggregator.distill();
}

/** `collectGroups` over a search that answers asynchronously (a coordinator asking other peers). */
export async function collectGroupsAsync<H extends GroupableHit>(
  options: GroupingOptions,
  search: (extra: Filter) => Promise<H[]>,
  payloadOf: (hit: H) => JsonObject,
): Promise<Array<HitGroup<H>>> {
  const aggregator = new GroupsAggregator<H>(options.limit, options.groupSize, options.higherIsBetter);
  const round = async (extra: Condition[]): Promise<boolean> => {
    const exclusions = aggregator.pointKeys.size > 0 ? [{ hasId: [...aggregator.pointKeys].map(pointIdFromKey) }] : [];
    const filter: Filter = {
      must: extra,
      // Points without the key would be dropped anyway; asking for them would waste the round.
      mustNot: [{ isEmpty: { key: options.groupBy } }, ...exclusions],
    };
    const hits = await search(filter);
    for (const hit of hits) {
      const ids = groupIdsOf(payloadOf(hit), options.groupBy);
      if (ids) aggregator.add(hit, ids);
    }
    return hits.length > 0;
  };

  let filled = false;
  for (let i = 0; i < GROUP_FINDING_ROUNDS && !filled; i++) {
    if (!(await round(exceptGroups(options.groupBy, aggregator.filledGroupIds())))) break;
    filled = aggregator.filledBestCount() >= options.limit;
  }
  for (let i = 0; i < GROUP_FILLING_ROUNDS && !filled; i++) {
    if (!(await round(onlyGroups(options.groupBy, aggregator.unfilledBestGroupIds())))) break;
    filled = aggregator.filledBestCount() >= options.limit;
  }
  return aggregator.distill();
}

function split(ids: readonly GroupId[]): { keywords: string[]; integers: bigint[] } {
  return {
    keywords: ids.filter((id): id is string => typeof id === 'string'),
    integers: ids.filter((id): id is bigint => typeof id === 'bigint'),
  };
}

/** Conditions that let through points with at least one value outside `ids`. */
function exceptGroups(key: string, ids: readonly GroupId[]): Condition[] {
  const { keywords, integers } = split(ids);
  const conditions: Condition[] = [];
  if (integers.length > 0) conditions.push({ field: { key, match: { exceptIntegers: integers } } });
  if (keywords.length > 0) conditions.push({ field: { key, match: { exceptKeywords: keywords } } });
  return conditions;
}

/** A condition that lets through points in one of `ids` (none when `ids` is empty). */
function onlyGroups(key: string, ids: readonly GroupId[]): Condition[] {
  const { keywords, integers } = split(ids);
  const should: Condition[] = [];
  if (integers.length > 0) should.push({ field: { key, match: { integers } } });
  if (keywords.length > 0) should.push({ field: { key, match: { keywords } } });
  return should.length === 0 ? [] : [{ filter: { should } }];
}
