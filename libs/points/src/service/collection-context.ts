import { Injectable } from '@nestjs/common';
import { DomainError } from '@vectorstore/common';
import { CollectionCatalog, CollectionRecord } from '@vectorstore/collections';
import { ShardKeySelector } from '../model/selectors.model';
import { CollectionStorage, ShardHandle } from '../storage/collection-storage';
import { FieldIndexSchema } from '../storage/local-shard/field-index-schema';
import { PointsStorage } from '../storage/points-storage';
import { StrictModeGuard } from './strict-mode';

/** A collection resolved for one request: its record, its storage, and what strict mode needs. */
export interface CollectionContext {
  record: CollectionRecord;
  storage: CollectionStorage;
  /** The shards a read of this request sees: the selected ones, within the read's scope (see `scoped`). */
  readShards(selector: ShardKeySelector | undefined): ShardHandle[];
  /** Whether `key` has a tenant index (`is_tenant`), for strict mode's full-scan rule. */
  isTenantKey(key: string): boolean;
  /** The payload index on `key` (or on `key` without `[]`), for strict mode's filter rules. */
  indexSchemaOf(key: string): FieldIndexSchema | undefined;
}

/** Resolves names (or aliases) to collections with open storage; holds the strict-mode guard. */
@Injectable()
export class CollectionContexts {
  readonly strict = new StrictModeGuard();
  /** While a scoped read runs: the one collection it is for, and the shards of it that it may see. */
  private scope: { collectionId: string; shardIds: ReadonlySet<number> } | undefined;

  constructor(
    private readonly catalog: CollectionCatalog,
    private readonly storage: PointsStorage,
  ) {}

  /**
   * Runs a coordinator's part of a read (cluster mode): it may see only shards `shardIds` of collection
   * `collectionId` (the replicas the coordinator chose; a Dead replica held here must not answer), and
   * strict mode is off for that collection, as the coordinator checked and charged the whole request
   * (a part asks for more: offset + limit, merged filters). `read` is synchronous, as every local
   * evaluation is, so no other request can resolve a context while the scope is set.
   */
  scoped<T>(collectionId: string, shardIds: readonly number[], read: () => T): T {
    this.scope = { collectionId, shardIds: new Set(shardIds) };
    try {
      return read();
    } finally {
      this.scope = undefined;
    }
  }

  resolve(nameOrAlias: string): CollectionContext {
    const record = this.catalog.require(nameOrAlias);
    const storage = this.storage.findStorage(record);
    // The catalog is published before its listeners open storage: a collection just created or restored is
    // refused as not ready (retry), never served half-opened (standalone: every shard of the record is here).
    const opening =
      storage === undefined ||
      (storage.failure === undefined &&
        storage.record.id === record.id &&
        storage.record.shards.some(
          (s) => s.peerId === undefined && !storage.shards.has(s.shardId) && !storage.damaged.has(s.shardId),
        ));
    if (opening)
      throw DomainError.unavailable(`Service unavailable: collection \`${record.name}\` is being opened; retry`);
    if (storage.failure) {
      throw DomainError.internal(
        `Service internal error: collection \`${record.name}\` could not be loaded: ${storage.failure.message}`,
        storage.failure,
      );
    }
    const scope = this.scope?.collectionId === record.id ? this.scope.shardIds : undefined;
    return {
      record: scope ? { ...record, config: { ...record.config, strictModeConfig: undefined } } : record,
      storage,
      readShards: (selector) => {
        const all = storage.readShards(selector);
        const selected = scope ? all.filter((handle) => scope.has(handle.shardId)) : all;
        // A shard closed to be opened again (a restore, or a scrub that found a damaged file): retried, never read.
        const closed = selected.find((handle) => handle.shard.isClosed);
        if (closed)
          throw DomainError.unavailable(
            `Service unavailable: shard ${closed.shardId} of collection \`${record.name}\` is being opened again; retry`,
          );
        return selected;
      },
      indexSchemaOf: (key: string) => {
        for (const h of storage.shards.values()) {
          const schema = h.shard.fieldIndexes.get(key) ?? h.shard.fieldIndexes.get(stripArrays(key));
          if (schema) return schema;
        }
        return undefined;
      },
      isTenantKey: (key: string) =>
        [...storage.shards.values()].some((h) => {
          const params = (h.shard.fieldIndexes.get(key) ?? h.shard.fieldIndexes.get(stripArrays(key)))?.params;
          return params !== undefined && Object.values(params).some((p) => (p as { isTenant?: boolean }).isTenant);
        }),
    };
  }
}

/** `a[].b` is indexed as `a[].b` or, as Qdrant allows, `a.b`. */
function stripArrays(key: string): string {
  return key.replace(/\[\]/g, '');
}
