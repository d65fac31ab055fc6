import { CollectionRecord, ShardKey, shardKeyEquals, describeShardKey } from '@vectorstore/collections';
import { DomainError, ReadWriteLock, stringifyJson } from '@vectorstore/common';
import { createHash } from 'node:crypto';
import * as path from 'node:path';
import { PointId, pointIdKey } from '../model/point-id.model';
import { ShardKeySelector } from '../model/selectors.model';
import { LocalShard } from './local-shard';
import { OpenShardLog } from './shard-log';
import { VectorSpace, vectorSpacesOf } from './vector-space';

/** A local shard with what routing needs to know about it. */
export interface ShardHandle {
  shardId: number;
  shardKey?: ShardKey;
  shard: LocalShard;
}

/**
 * The points of one collection on this node: one LocalShard per shard of the catalog record,
 * routing writes by point id (auto sharding) or shard key (custom sharding).
 */
export class CollectionStorage {
  private readonly shardHandles = new Map<number, ShardHandle>();
  private currentRecord: CollectionRecord;
  private currentSpaces: Map<string, VectorSpace>;
  private loadFailure: Error | undefined;
  /**
   * Writes hold the shared side from validation until applied; a change of the vector names takes
   * the exclusive side, so no write checked against the old names is applied after the change.
   */
  readonly schemaLock = new ReadWriteLock();
  /**
   * Vector names dropped since start, with the segment builds running then (per shard): such a
   * build may still carry the old vectors, so the name is not created again before it ends.
   */
  private readonly droppedVectors = new Map<string, Map<LocalShard, Set<string>>>();

  constructor(
    record: CollectionRecord,
    readonly dir: string,
    private readonly openLog: OpenShardLog,
  ) {
    this.currentRecord = record;
    this.currentSpaces = vectorSpacesOf(record.config);
  }

  /** The catalog record of the last reconcile. */
  get record(): CollectionRecord {
    return this.currentRecord;
  }

  /** The vector spaces of the collection's config (without names being dropped). */
  get spaces(): Map<string, VectorSpace> {
    return this.currentSpaces;
  }

  /** The open shards, by shard id. */
  get shards(): ReadonlyMap<number, ShardHandle> {
    return this.shardHandles;
  }

  /** Set when a shard could not be opened: the collection reports Red and refuses requests. */
  get failure(): Error | undefined {
    return this.loadFailure;
  }

  /** The last reconcile opened every shard. */
  markLoaded(): void {
    this.loadFailure = undefined;
  }

  /** The last reconcile failed to open a shard. */
  markFailed(error: Error): void {
    this.loadFailure = error;
  }

  /** Opens shards the record has and we don't; closes (and reports) shards it no longer has. */
  async reconcile(record: CollectionRecord): Promise<ShardHandle[]> {
    // A changed config may leave segments built with the old one: let the optimizer look again.
    const configChanged = stringifyJson(record.config) !== stringifyJson(this.record.config);
    this.currentRecord = record;
    const previous = this.currentSpaces;
    this.currentSpaces = vectorSpacesOf(record.config);
    // Names gone from the config, or whose vectors changed shape, lose their stored vectors.
    const droppedVectors = [...previous]
      .filter(([name, space]) => !sameVectorSchema(space, this.spaces.get(name)))
      .map(([name]) => name);
    droppedVectors.forEach((name) => this.rememberDrop(name));
    const wanted = new Map(record.shards.map((s) => [s.shardId, s]));
    const dropped: ShardHandle[] = [];
    for (const [shardId, handle] of this.shards) {
      if (!wanted.has(shardId)) {
        await handle.shard.close();
        this.shardHandles.delete(shardId);
        dropped.push(handle);
      }
    }
    for (const handle of this.shards.values()) {
      handle.shard.updateSpaces(this.spaces, droppedVectors);
      if (configChanged) handle.shard.optimization.trigger();
    }
    for (const shard of record.shards) {
      if (this.shards.has(shard.shardId)) continue;
      const wal = record.config.walConfig;
      const local = await LocalShard.open({
        dir: this.shardDir(shard.shardId),
        spaces: this.spaces,
        openLog: this.openLog,
        log: {
          segmentCapacityBytes: (wal.walCapacityMb ?? 32) * 1024 * 1024,
          segmentsAhead: wal.walSegmentsAhead ?? 0,
          retainClosed: Math.max(1, wal.walRetainClosed ?? 1),
        },
      });
      this.shardHandles.set(shard.shardId, { shardId: shard.shardId, shardKey: shard.shardKey, shard: local });
    }
    return dropped;
  }

  /**
   * Deletes a vector name's data from every shard and makes that durable (segments written again
   * without it, and the log acknowledged past it) before the catalog forgets the name, so neither a
   * restart nor a later vector of the same name can bring the old vectors back. From now on writes
   * and searches naming it are refused.
   */
  async dropVector(name: string): Promise<void> {
    const spaces = new Map(this.spaces);
    spaces.delete(name);
    this.currentSpaces = spaces;
    this.rememberDrop(name);
    for (const handle of this.shards.values()) handle.shard.updateSpaces(spaces, [name]);
    await this.flush();
  }

  /**
   * Before a vector name dropped since start is created again: waits (up to `maxWaitMs`) until the
   * segment builds that were running when it was dropped have ended, and flushes, so operations that
   * still carried the old vectors are behind the log's replay point.
   */
  async settleDroppedVector(name: string, maxWaitMs = 60_000): Promise<void> {
    const building = this.droppedVectors.get(name);
    if (!building) return;
    const deadline = Date.now() + maxWaitMs;
    for (const [shard, ids] of building) {
      // only the builds that were running at the drop; later ones (such as the config-mismatch
      // rebuilds the drop itself causes) were planned without the name
      while (!shard.isClosed && [...ids].some((id) => shard.isBuilding(id))) {
        if (Date.now() > deadline) {
          throw DomainError.failedPrecondition(
            `Segment optimizations that started before vector \`${name}\` was deleted are still running; retry once they finish`,
          );
        }
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    }
    await this.flush();
    this.droppedVectors.delete(name);
  }

  private rememberDrop(name: string): void {
    const building = this.droppedVectors.get(name) ?? new Map<LocalShard, Set<string>>();
    for (const handle of this.shards.values()) {
      const ids = building.get(handle.shard) ?? new Set<string>();
      for (const id of handle.shard.buildsInProgress()) ids.add(id);
      building.set(handle.shard, ids);
    }
    this.droppedVectors.set(name, building);
  }

  shardDir(shardId: number): string {
    return path.join(this.dir, 'shards', String(shardId));
  }

  /** Shards a read fans out to: all of them, or those of the selected shard keys. */
  readShards(selector: ShardKeySelector | undefined): ShardHandle[] {
    if (!selector || selector.shardKeys.length === 0) return [...this.shards.values()];
    return this.keyShards(selector);
  }

  /** The shard each point is written to. */
  routeWrite(ids: readonly PointId[], selector: ShardKeySelector | undefined): Map<ShardHandle, PointId[]> {
    const routes = new Map<ShardHandle, PointId[]>();
    const add = (handle: ShardHandle, id: PointId) => {
      const list = routes.get(handle);
      if (list) list.push(id);
      else routes.set(handle, [id]);
    };
    if (this.record.config.params.shardingMethod === 'Custom') {
      if (!selector || selector.shardKeys.length === 0) {
        throw DomainError.invalidArgument(
          'Bad request: shard_key_selector is required for a collection with custom sharding',
        );
      }
      const candidates = this.keyShards(selector);
      // Within a key's shards, points spread by id; with several keys each point goes to each key.
      const byKey = new Map<string, ShardHandle[]>();
      for (const handle of candidates) {
        const k = JSON.stringify(handle.shardKey);
        byKey.set(k, [...(byKey.get(k) ?? []), handle]);
      }
      for (const id of ids) for (const group of byKey.values()) add(group[hashToShard(id, group.length)], id);
      return routes;
    }
    if (selector && selector.shardKeys.length > 0) {
      throw DomainError.invalidArgument(
        'Bad request: shard_key_selector is only valid for a collection with custom sharding',
      );
    }
    const handles = [...this.shards.values()].sort((a, b) => a.shardId - b.shardId);
    if (handles.length === 0) throw DomainError.failedPrecondition(`Collection \`${this.record.name}\` has no shards`);
    for (const id of ids) add(handles[hashToShard(id, handles.length)], id);
    return routes;
  }

  /** Every shard, for writes chosen by filter (they touch whatever shard holds a matching point). */
  writeShardsForFilter(selector: ShardKeySelector | undefined): ShardHandle[] {
    if (this.record.config.params.shardingMethod === 'Custom' && selector && selector.shardKeys.length > 0) {
      return this.keyShards(selector);
    }
    return [...this.shards.values()];
  }

  private keyShards(selector: ShardKeySelector): ShardHandle[] {
    const result: ShardHandle[] = [];
    for (const key of selector.shardKeys) {
      let matched = [...this.shards.values()].filter((h) => h.shardKey && shardKeyEquals(h.shardKey, key));
      if (matched.length === 0 && selector.fallback) {
        const fallback = selector.fallback;
        matched = [...this.shards.values()].filter((h) => h.shardKey && shardKeyEquals(h.shardKey, fallback));
      }
      if (matched.length === 0)
        throw DomainError.notFound(`Not found: Shard key ${describeShardKey(key)} does not exist`);
      for (const handle of matched) if (!result.includes(handle)) result.push(handle);
    }
    return result;
  }

  async flush(): Promise<void> {
    for (const handle of this.shards.values()) await handle.shard.flush();
  }

  /** Closes every shard, even when one fails; the first failure is rethrown after. */
  async close(): Promise<void> {
    const results = await Promise.allSettled([...this.shards.values()].map((handle) => handle.shard.close()));
    this.shardHandles.clear();
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw failed.reason;
  }
}

/** Whether `next` stores the same vectors as `space` (index settings aside); false when it is gone. */
function sameVectorSchema(space: VectorSpace, next: VectorSpace | undefined): boolean {
  if (!next || next.kind !== space.kind) return false;
  if (space.kind === 'sparse' || next.kind === 'sparse') return true;
  return space.dim === next.dim && space.distance === next.distance && space.datatype === next.datatype;
}

/** Stable placement of a point among `count` shards. */
export function hashToShard(id: PointId, count: number): number {
  if (count <= 1) return 0;
  const digest = createHash('sha1').update(pointIdKey(id)).digest();
  return digest.readUInt32BE(0) % count;
}
