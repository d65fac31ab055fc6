// A collection config that comes into the catalog from outside a create request (a cluster backup's record),
// checked by the very rules a create request is: no record should hold a config no collection could be made with.
import { ValidationIssues } from '@vectorstore/common';
import { CollectionConfig } from '../model/collection.model';
import { validateCreateCollection } from '../validation/collection-config.validator';
import { checkCollectionNameReference } from '../validation/name.rules';

/** A name the create rules accept, for checking the config alone (the stored name is checked as an existing one). */
const CONFIG_ONLY_NAME = 'stored-config';

/**
 * Throws INVALID_ARGUMENT listing every field (named as in a create request, e.g. `vectors_config.params.size`)
 * that a create request for `name` with this config would be refused for.
 */
export function validateStoredCollectionConfig(name: string, config: CollectionConfig): void {
  // A name collections already have may be one a create refuses today (e.g. `logs:2024`): the existing-name rule.
  const issues = new ValidationIssues();
  checkCollectionNameReference(issues, 'collection_name', name);
  issues.throwIfAny();
  const params = config.params;
  validateCreateCollection({
    name: CONFIG_ONLY_NAME,
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
