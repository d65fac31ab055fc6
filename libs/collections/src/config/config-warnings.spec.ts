import { buildCollectionConfig } from './collection-config.builder';
import { configWarnings } from './config-warnings';
import { dense } from '../testing/collections-fixtures';

describe('configWarnings', () => {
  it('should warn about inline_storage without quantization, and with multivectors, per vector', () => {
    const config = buildCollectionConfig({
      name: 'c',
      vectors: {
        paramsMap: {
          plain: dense(),
          inline: dense({ hnswConfig: { inlineStorage: true } }),
          quantized: dense({ hnswConfig: { inlineStorage: true }, quantizationConfig: { scalar: { type: 'Int8' } } }),
          multi: dense({ hnswConfig: { inlineStorage: true }, multivectorConfig: { comparator: 'MaxSim' } }),
        },
      },
    });

    expect(configWarnings(config)).toEqual([
      "The `hnsw_config.inline_storage` option for vector 'inline' requires quantization to be enabled. This option will be ignored.",
      "The `hnsw_config.inline_storage` option for vector 'multi' is not compatible with multivectors. This option will be ignored.",
    ]);
  });

  it('should read the collection-level HNSW and quantization configs', () => {
    const inline = { name: 'c', vectors: { params: dense() }, hnswConfig: { inlineStorage: true } };
    expect(configWarnings(buildCollectionConfig(inline))).toHaveLength(1);
    expect(configWarnings(buildCollectionConfig({ ...inline, quantizationConfig: { binary: {} } }))).toEqual([]);
  });
});
