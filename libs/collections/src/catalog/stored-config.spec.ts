import { DomainError, ErrorKind } from '@vectorstore/common';
import { buildCollectionConfig } from '../config/collection-config.builder';
import { validateStoredCollectionConfig } from './stored-config';

function refusalOf(run: () => void): DomainError | undefined {
  try {
    run();
    return undefined;
  } catch (error) {
    return error as DomainError;
  }
}

describe(validateStoredCollectionConfig.name, () => {
  it('accepts every config a create request builds, defaults included', () => {
    const configs = [
      buildCollectionConfig({ name: 'c', vectors: { params: { size: 4, distance: 'Cosine' } } }),
      buildCollectionConfig({ name: 'c' }),
      buildCollectionConfig({
        name: 'c',
        vectors: { paramsMap: { a: { size: 8, distance: 'Dot', onDisk: true } } },
        sparseVectors: { s: { modifier: 'Idf' } },
        shardingMethod: 'Custom',
        quantizationConfig: { scalar: { type: 'Int8', quantile: 0.99 } },
        strictModeConfig: { enabled: true, maxQueryLimit: 10 },
      }),
    ];

    for (const config of configs) expect(refusalOf(() => validateStoredCollectionConfig('c', config))).toBeUndefined();
  });

  it('refuses a config a create request would be refused for, naming each field as the request does', () => {
    const config = buildCollectionConfig({ name: 'c', vectors: { params: { size: 4, distance: 'Cosine' } } });
    (config.params.vectors as { params: { size: number } }).params.size = 0;
    config.walConfig.walCapacityMb = 0;

    const error = refusalOf(() => validateStoredCollectionConfig('c', config));

    expect(error?.kind).toBe(ErrorKind.InvalidArgument);
    expect(error?.validationIssues).toEqual([
      'vectors_config.params.size: value 0 invalid, must be from 1 to 65536',
      'wal_config.wal_capacity_mb: value 0 invalid, must be from 1 to 1048576',
    ]);
  });
});
