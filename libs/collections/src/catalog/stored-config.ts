// A collection config that comes into the catalog from outside a create request (a cluster backup's record),
// checked by the very rules a create request is: no record should hold a config no collection could be made with.
import { CollectionConfig } from '../model/collection.model';
import { validateCreateCollection } from '../validation/collection-config.validator';

/**
 * Throws INVALID_ARGUMENT listing every field (named as in a create request, e.g. `vectors_config.params.size`)
 * that a create request for `name` with this config would be refused for.
 */
export function validateStoredCollectionConfig(name: string, config: CollectionConfig): void {
  const params = config.params;
  validateCreateCollection({
    name,
    vectors: params.vectors,
    sparseVectors: params.sparseVectors,
    hnswConfig: config.hnswConfig,
    walConfig: config.walConfig,
    optimizersConfig: config.optimizerConfig,
    shardNumber: params.shardNumber,
    onDiskPayload: params.onDiskPayload,
    payload: params.payload,
    replicationFactor: params.replicationFactor,
    writeConsistencyFactor: params.writeConsistencyFactor,
    quantizationConfig: config.quantizationConfig,
    shardingMethod: params.shardingMethod,
    strictModeConfig: config.strictModeConfig,
    metadata: config.metadata,
  });
}
