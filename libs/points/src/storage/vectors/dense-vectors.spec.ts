import { VectorIndex } from '@vectorstore/engine';
import { DenseSegmentVectors } from './dense-vectors';

describe('DenseSegmentVectors', () => {
  const space = {
    name: '',
    kind: 'dense' as const,
    dim: 4,
    distance: 'Euclid' as const,
    datatype: 'float32' as const,
    hnsw: { m: 16, efConstruct: 32, fullScanThreshold: 10000, maxIndexingThreads: 1 },
    onDisk: false,
  };

  it('should search with the full_scan_threshold it was last given, not the one it was built with', () => {
    const store = DenseSegmentVectors.create(space, true);
    for (let slot = 0; slot < 50; slot++) store.set(slot, { kind: 'dense', values: Float32Array.of(slot, 1, 2, 3) });
    const search = jest.spyOn(VectorIndex.prototype, 'search');
    const query = { kind: 'dense' as const, values: Float32Array.of(0, 1, 2, 3) };
    store.search(query, 3, (slot) => slot % 2 === 0, undefined);
    store.useFullScanThreshold(0);
    const hits = store.search(query, 3, (slot) => slot % 2 === 0, undefined);
    expect(search.mock.calls.map(([, params]) => params.fullScanThreshold)).toEqual([10000, 0]);
    expect(Array.from(hits.slots)).toEqual([0, 2, 4]);
    search.mockRestore();
    store.dispose();
  });
});
