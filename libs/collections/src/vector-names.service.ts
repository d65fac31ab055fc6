import { Injectable } from '@nestjs/common';
import { DomainError } from '@vectorstore/common';
import { CatalogState, resolveInState } from './catalog/catalog-state';
import { CollectionCatalog, collectionNotFound } from './catalog/collection-catalog';
import { setVectorDrops, VectorDrop, vectorDropsOf } from './config/vector-drops';
import { addVectorName, hasVectorName, removeVectorName, vectorConfigOf } from './config/vector-names';
import { CollectionRecord } from './model/collection.model';
import { CreateVectorNameRequest, DeleteVectorNameRequest } from './model/requests.model';
import { validateCreateVectorName, validateDeleteVectorName } from './validation/collection-config.validator';

/**
 * Adds named vectors to existing collections and removes them (Qdrant 1.18's CreateVectorName and
 * DeleteVectorName), as catalog changes. Names may be aliases. Storage follows the catalog: a new
 * name starts with no vectors; deleting one first runs the caller's `dropData` under the catalog
 * lock, so the vectors are gone for good before the catalog forgets the name.
 */
@Injectable()
export class VectorNamesService {
  constructor(private readonly catalog: CollectionCatalog) {}

  /** Validates a create request (INVALID_ARGUMENT listing every problem), before anything is looked up. */
  checkCreate(request: CreateVectorNameRequest): void {
    validateCreateVectorName(request);
  }

  /** Validates a delete request, before anything is looked up. */
  checkDelete(request: DeleteVectorNameRequest): void {
    validateDeleteVectorName(request);
  }

  /**
   * True when the vector was added; false when the same vector exists already (idempotent, as in Qdrant). A name
   * still being deleted (cluster mode) is refused until every peer has dropped its old vectors.
   */
  async create(request: CreateVectorNameRequest): Promise<boolean> {
    validateCreateVectorName(request);
    return this.catalog.mutate((draft) => {
      const record = requireRecord(draft, request.collectionName);
      const pending = vectorDropsOf(record).find((drop) => drop.name === request.vectorName);
      if (pending)
        throw DomainError.failedPrecondition(
          `Vector \`${request.vectorName}\` of collection \`${record.name}\` is still being deleted: peers ${pending.waitingFor.join(', ')} have not dropped its vectors yet; create it again once they have`,
        );
      return addVectorName(record.config.params, request.vectorName, request.config);
    });
  }

  /** True when the vector was removed; false when the collection has no vector of that name (a no-op, as in Qdrant). */
  async delete(
    request: DeleteVectorNameRequest,
    dropData: (record: CollectionRecord) => Promise<void> = async () => undefined,
  ): Promise<boolean> {
    validateDeleteVectorName(request);
    return this.catalog.mutateAfter(
      async (state) => {
        const record = requireRecord(state, request.collectionName);
        if (!hasVectorName(record.config.params, request.vectorName)) return false;
        await dropData(record);
        return true;
      },
      (draft, present) =>
        present && removeVectorName(requireRecord(draft, request.collectionName).config.params, request.vectorName),
    );
  }

  /**
   * Cluster mode, first phase of a delete (one catalog change): the name leaves the config (so every peer stops
   * taking and serving its vectors as its catalog shows the change) and is kept as a pending drop, with its config,
   * waiting for each peer in `holders` (those holding replicas) to drop its vectors durably. A second delete while
   * it is pending joins it. `begun: false` when the collection has no such vector (a no-op, as in Qdrant).
   */
  async beginDrop(
    request: DeleteVectorNameRequest,
    holders: (record: CollectionRecord) => string[],
  ): Promise<DropBegun> {
    validateDeleteVectorName(request);
    return this.catalog.mutate((draft): DropBegun => {
      const record = requireRecord(draft, request.collectionName);
      const drops = [...vectorDropsOf(record)];
      if (drops.some((drop) => drop.name === request.vectorName)) return { begun: true, collectionId: record.id };
      const config = vectorConfigOf(record.config.params, request.vectorName);
      if (!config) return { begun: false };
      removeVectorName(record.config.params, request.vectorName);
      const waitingFor = [...new Set(holders(record))].sort();
      // No peer holds a replica: nothing is left to drop, and no one would end the drop.
      if (waitingFor.length === 0) return { begun: true, collectionId: record.id };
      drops.push({ name: request.vectorName, ...config, waitingFor });
      setVectorDrops(record, drops);
      return { begun: true, collectionId: record.id };
    });
  }

  /**
   * Second phase, one peer at a time: `peerIds` have dropped vector `name` durably (or hold no replica of the
   * collection any more) and leave its pending drop; when no peer is left the record forgets the drop, and the
   * name may be created again. Nothing when the drop or the collection is gone.
   */
  async confirmDrop(collectionId: string, name: string, peerIds: readonly string[]): Promise<void> {
    await this.catalog.mutate((draft) => {
      const record = [...draft.collections.values()].find((r) => r.id === collectionId);
      if (!record) return;
      const drops = vectorDropsOf(record).map((drop) =>
        drop.name === name ? { ...drop, waitingFor: drop.waitingFor.filter((p) => !peerIds.includes(p)) } : drop,
      );
      setVectorDrops(
        record,
        drops.filter((drop) => drop.waitingFor.length > 0),
      );
    });
  }

  /** The vector names being deleted from `record` in cluster mode, with the peers each still waits for. */
  static pendingDrops(record: CollectionRecord): readonly VectorDrop[] {
    return vectorDropsOf(record);
  }
}

/** What the first phase of a delete in cluster mode did. */
export type DropBegun =
  | { begun: false }
  /** The name left the config (or was already leaving it): `collectionId`'s peers now drop its vectors. */
  | { begun: true; collectionId: string };

function requireRecord(state: Readonly<CatalogState>, nameOrAlias: string): CollectionRecord {
  const record = resolveInState(state as CatalogState, nameOrAlias);
  if (!record) throw collectionNotFound(nameOrAlias);
  return record;
}
