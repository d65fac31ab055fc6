import { CollectionConfig } from '../model/collection.model';

/**
 * Qdrant's warnings about a configuration it accepts but partly ignores, reported by Get: HNSW
 * `inline_storage` needs quantization and does not apply to multivectors.
 */
export function configWarnings(config: CollectionConfig): string[] {
  const vectors = config.params.vectors;
  const entries = 'params' in vectors ? [['', vectors.params] as const] : Object.entries(vectors.paramsMap);
  const warnings: string[] = [];
  for (const [name, params] of entries) {
    const inlineStorage = params.hnswConfig?.inlineStorage ?? config.hnswConfig.inlineStorage ?? false;
    if (!inlineStorage) continue;
    if (params.multivectorConfig) {
      warnings.push(
        `The \`hnsw_config.inline_storage\` option for vector '${name}' is not compatible with multivectors. This option will be ignored.`,
      );
    } else if (!params.quantizationConfig && !config.quantizationConfig) {
      warnings.push(
        `The \`hnsw_config.inline_storage\` option for vector '${name}' requires quantization to be enabled. This option will be ignored.`,
      );
    }
  }
  return warnings;
}
