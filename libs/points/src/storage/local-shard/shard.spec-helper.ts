// Shared setup of the shard specs: one 4-d dense space, a shard on it, and points whose vector encodes the id.
import { WriteAheadLog } from '../../wal/write-ahead-log';
import { VectorSpace } from '../vector-space';
import { LocalShard, LocalShardOptions } from './local-shard';

export const DENSE_SPACES = new Map<string, VectorSpace>([
  [
    '',
    {
      name: '',
      kind: 'dense',
      dim: 4,
      distance: 'Dot',
      datatype: 'float32',
      hnsw: { m: 16, efConstruct: 100, fullScanThreshold: 10000, maxIndexingThreads: 1 },
      onDisk: false,
    },
  ],
]);

/** A shard in `dir` on {@link DENSE_SPACES} with a small WAL; `options` override any of it. */
export function openTestShard(dir: string, options: Partial<LocalShardOptions> = {}): Promise<LocalShard> {
  return LocalShard.open({
    dir,
    spaces: DENSE_SPACES,
    openLog: (logOptions) => WriteAheadLog.open(logOptions),
    log: { segmentCapacityBytes: 1 << 20, segmentsAhead: 0, retainClosed: 1 },
    ...options,
  });
}

/** A point of {@link DENSE_SPACES}: vector [id, 1, 0, 0]. */
export const densePoint = (id: number, payload: Record<string, string> = {}) => ({
  id: BigInt(id),
  vectors: { '': { kind: 'dense' as const, values: Float32Array.from([id, 1, 0, 0]) } },
  payload,
});
