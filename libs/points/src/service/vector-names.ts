import { Inject, Injectable, Optional } from '@nestjs/common';
import {
  CollectionCatalog,
  CreateVectorNameRequest,
  DeleteVectorNameRequest,
  VectorNamesService,
} from '@vectorstore/collections';
import { UpdateStatus } from '../model/operations.model';
import { CollectionContexts } from './collection-context';
import { POINTS_CLUSTER, PointsCluster } from './replication-ports';

/**
 * CreateVectorName and DeleteVectorName over the catalog and the stored points. A new name is a
 * catalog change the storage follows (an empty store for it in the segment taking writes; other
 * segments hold none of its vectors). A deleted name's vectors are removed from every segment and
 * flushed before the catalog forgets the name, so reads lose them at once and a restart cannot
 * bring them back. Both complete before answering; `wait` only chooses the status reported, as for
 * every write.
 */
@Injectable()
export class VectorNameOperations {
  constructor(
    private readonly contexts: CollectionContexts,
    private readonly names: VectorNamesService,
    private readonly catalog: CollectionCatalog,
    @Optional() @Inject(POINTS_CLUSTER) private readonly cluster?: PointsCluster,
  ) {}

  async create(request: CreateVectorNameRequest, wait: boolean): Promise<UpdateStatus> {
    this.names.checkCreate(request);
    const { record, storage } = this.contexts.resolve(request.collectionName);
    // Exclusive: writes validated against the old names finish first, later ones see the new name.
    await storage.schemaLock.exclusive(async () => {
      // Created again after a delete: no build that started before the delete may still be running.
      await storage.settleDroppedVector(request.vectorName);
      await this.names.create({ ...request, collectionName: record.name });
    });
    return wait ? 'Completed' : 'Acknowledged';
  }

  async delete(request: DeleteVectorNameRequest, wait: boolean): Promise<UpdateStatus> {
    this.names.checkDelete(request);
    if (this.cluster) return this.deleteInCluster(request, wait);
    const { record, storage } = this.contexts.resolve(request.collectionName);
    await storage.schemaLock.exclusive(() =>
      this.names.delete({ ...request, collectionName: record.name }, async (current) => {
        // The catalog lock is held: the collection cannot change (or go) while its data is dropped.
        await this.contexts.resolve(current.name).storage.dropVector(request.vectorName);
      }),
    );
    return wait ? 'Completed' : 'Acknowledged';
  }

  /**
   * Cluster mode, in two phases (docs/cluster.md, "Deleting a vector name"): one catalog change takes the name out
   * of the config and keeps it as a drop waiting for every peer holding a replica; each peer then drops the
   * vectors durably and says so (VectorDropsRunner), and the last one ends the drop. With `wait`, answers
   * `Completed` once every peer has (within {@link DROP_WAIT_MS}), else `Acknowledged`: a peer that is down drops
   * them when it is back, and until then the name cannot be created again.
   */
  private async deleteInCluster(request: DeleteVectorNameRequest, wait: boolean): Promise<UpdateStatus> {
    const begun = await this.names.beginDrop(request, (record) =>
      record.shards.flatMap((shard) => (shard.peerId === undefined ? [] : [shard.peerId])),
    );
    if (!begun.begun || !wait) return wait ? 'Completed' : 'Acknowledged';
    const deadline = Date.now() + DROP_WAIT_MS;
    while (Date.now() < deadline) {
      const record = [...this.catalog.snapshot.collections.values()].find((r) => r.id === begun.collectionId);
      if (!record || !VectorNamesService.pendingDrops(record).some((drop) => drop.name === request.vectorName))
        return 'Completed';
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return 'Acknowledged';
  }
}

/** How long a delete with `wait` waits for every peer to drop the vectors. */
const DROP_WAIT_MS = 10_000;
