import { Inject, Injectable, Optional } from '@nestjs/common';
import { DomainError } from '@vectorstore/common';
import { CreateVectorNameRequest, DeleteVectorNameRequest, VectorNamesService } from '@vectorstore/collections';
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
    // Every peer holding shards would have to drop the vectors durably before the catalog forgets
    // the name; only this one can here, so another peer could bring them back after a restart.
    if (this.cluster)
      throw DomainError.unimplemented(
        'Cluster mode does not delete vector names yet: every peer must drop the vectors first (docs/cluster.md)',
      );
    const { record, storage } = this.contexts.resolve(request.collectionName);
    await storage.schemaLock.exclusive(() =>
      this.names.delete({ ...request, collectionName: record.name }, async (current) => {
        // The catalog lock is held: the collection cannot change (or go) while its data is dropped.
        await this.contexts.resolve(current.name).storage.dropVector(request.vectorName);
      }),
    );
    return wait ? 'Completed' : 'Acknowledged';
  }
}
