import { Injectable } from '@nestjs/common';
import { DomainError } from '@vectorstore/common';
import { CollectionCatalog, CollectionRecord } from '@vectorstore/collections';
import { CollectionStorage } from '../storage/collection-storage';
import { PointsStorage } from '../storage/points-storage';
import { StrictModeGuard } from './strict-mode';

/** A collection resolved for one request: its record, its storage, and what strict mode needs. */
export interface CollectionContext {
  record: CollectionRecord;
  storage: CollectionStorage;
  isIndexed(key: string): boolean;
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
      isIndexed: (key: string) =>
        [...storage.shards.values()].some(
          (h) => h.shard.fieldIndexes.has(key) || h.shard.fieldIndexes.has(stripArrays(key)),
        ),
    };
  }
}

/** `a[].b` is indexed as `a[].b` or, as Qdrant allows, `a.b`. */
function stripArrays(key: string): string {
  return key.replace(/\[\]/g, '');
}
