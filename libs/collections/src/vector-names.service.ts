import { Injectable } from '@nestjs/common';
import { CatalogState, resolveInState } from './catalog/catalog-state';
import { CollectionCatalog, collectionNotFound } from './catalog/collection-catalog';
import { addVectorName, hasVectorName, removeVectorName } from './config/vector-names';
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

  /** True when the vector was added; false when the same vector exists already (idempotent, as in Qdrant). */
  async create(request: CreateVectorNameRequest): Promise<boolean> {
    validateCreateVectorName(request);
    return this.catalog.mutate((draft) =>
      addVectorName(requireRecord(draft, request.collectionName).config.params, request.vectorName, request.config),
    );
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
}

function requireRecord(state: Readonly<CatalogState>, nameOrAlias: string): CollectionRecord {
  const record = resolveInState(state as CatalogState, nameOrAlias);
  if (!record) throw collectionNotFound(nameOrAlias);
  return record;
}
