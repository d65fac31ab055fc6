import { DynamicModule, Module, OnModuleInit, Provider } from '@nestjs/common';
import { AliasesService } from './aliases.service';
import { CATALOG_STORE, CatalogStore } from './catalog/catalog.store';
import { CollectionCatalog } from './catalog/collection-catalog';
import { FileCatalogStore } from './catalog/file-catalog.store';
import { CLUSTER_MEMBERSHIP, ClusterMembership } from './cluster/cluster-membership';
import { loadOrCreatePeerId, PEER_ID } from './cluster/node-identity';
import { ClusterService } from './cluster.service';
import { CollectionsService } from './collections.service';
import { COLLECTION_STATS_PROVIDER, CollectionStatsRegistry } from './stats/collection-stats.provider';
import { VectorNamesService } from './vector-names.service';

export interface CollectionsModuleOptions {
  dataDir: string;
  /** Overrides the catalog store (the cluster's metadata store in cluster mode). */
  catalogStore?: CatalogStore;
  /** Cluster mode: the peers and this peer's standing. */
  membership?: ClusterMembership;
}

/** The collections domain: catalog, aliases, shards. Transport-free; apps mount it behind gRPC or REST. */
@Module({})
export class CollectionsModule implements OnModuleInit {
  constructor(private readonly catalog: CollectionCatalog) {}

  static forRoot(options: CollectionsModuleOptions): DynamicModule {
    const providers: Provider[] = [
      { provide: CATALOG_STORE, useValue: options.catalogStore ?? new FileCatalogStore(options.dataDir) },
      { provide: PEER_ID, useFactory: () => loadOrCreatePeerId(options.dataDir) },
      CollectionStatsRegistry,
      { provide: COLLECTION_STATS_PROVIDER, useExisting: CollectionStatsRegistry },
      ...(options.membership ? [{ provide: CLUSTER_MEMBERSHIP, useValue: options.membership }] : []),
      CollectionCatalog,
      CollectionsService,
      AliasesService,
      ClusterService,
      VectorNamesService,
    ];
    return {
      module: CollectionsModule,
      // Global: storage modules depend on the catalog without re-importing this module.
      global: true,
      providers,
      exports: [
        CollectionsService,
        AliasesService,
        ClusterService,
        VectorNamesService,
        CollectionCatalog,
        PEER_ID,
        ...(options.membership ? [CLUSTER_MEMBERSHIP] : []),
        COLLECTION_STATS_PROVIDER,
        CollectionStatsRegistry,
      ],
    };
  }

  async onModuleInit(): Promise<void> {
    await this.catalog.load();
  }
}
