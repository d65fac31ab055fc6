import { Injectable } from '@nestjs/common';
import { DomainError } from '@vectorstore/common';
import { CollectionCatalog, CollectionRecord } from '@vectorstore/collections';
import { CollectionStorage } from '../storage/collection-storage';
import { FieldIndexSchema } from '../storage/local-shard/field-index-schema';
import { PointsStorage } from '../storage/points-storage';
import { StrictModeGuard } from './strict-mode';

/** A collection resolved for one request: its record, its storage, and what strict mode needs. */
export interface CollectionContext {
  record: CollectionRecord;
  storage: CollectionStorage;
  /** Whether `key` has a tenant index (`is_tenant`), for strict mode's full-scan rule. */
  isTenantKey(key: string): boolean;
  /** The payload index on `key` (or on `key` without `[]`), for strict mode's filter rules. */
  indexSchemaOf(key: string): FieldIndexSchema | undefined;
}

/** Resolves names (or aliases) to collections with open storage; holds the strict-mode guard. */
@Injectable()
export class CollectionContexts {
  readonly strict = new StrictModeGuard();

  constructor(
    private readonly catalog: CollectionCatalog,
    private readonly storage: PointsStorage,
  ) {}

  resolve(nameOrAlias: string): CollectionContext {
    const record = this.catalog.require(nameOrAlias);
    const storage = this.storage.storageOf(record);
    if (storage.failure) {
      throw DomainError.internal(
        `Service internal error: collection \`${record.name}\` could not be loaded: ${storage.failure.message}`,
      );
    }
    return {
      record,
      storage,
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
