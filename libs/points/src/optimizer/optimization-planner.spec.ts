import { CollectionConfig, OptimizersConfig } from '@vectorstore/collections';
import { LocalShard } from '../storage/local-shard';
import { Segment } from '../storage/segment';
import { diskLayoutOf, segmentProfile } from '../storage/segment-layout';
import { VectorSpace } from '../storage/vector-space';
import { planOptimizations } from './optimization-planner';

/** An indexed segment as the planner sees it: size figures only. */
function indexed(points: number, kb: number): Segment {
  return {
    appendable: false,
    pointCount: points,
    size: points,
    deletedCount: 0,
    vectorDataKb: () => kb,
  } as unknown as Segment;
}

const shardOf = (segments: Segment[]) => ({ segments }) as unknown as LocalShard;
const collection = (optimizerConfig: OptimizersConfig, onDiskPayload = false) =>
  ({ params: { onDiskPayload }, optimizerConfig }) as unknown as CollectionConfig;

const space = (m: number, onDisk = false): VectorSpace => ({
  name: '',
  kind: 'dense',
  dim: 8,
  distance: 'Dot',
  datatype: 'float32',
  onDisk,
  hnsw: { m, efConstruct: 100, fullScanThreshold: 10000, maxIndexingThreads: 1 },
});

describe(planOptimizations.name, () => {
  const segments = [indexed(100, 100), indexed(200, 200), indexed(300, 300), indexed(400, 400)];

  it('should index an appendable segment holding deferred points even below the indexing threshold', () => {
    const appendable = (deferredCount: number) =>
      ({
        appendable: true,
        pointCount: 5,
        size: 5,
        deletedCount: 0,
        deferredCount,
        vectorDataKb: () => 1,
      }) as unknown as Segment;
    const withDeferred = appendable(2);
    expect(planOptimizations(shardOf([withDeferred]), collection({ indexingThreshold: 100 }), new Set())).toEqual([
      { kind: 'indexing', sources: [withDeferred] },
    ]);
    expect(planOptimizations(shardOf([appendable(0)]), collection({ indexingThreshold: 100 }), new Set())).toEqual([]);
  });

  it('should merge the smallest segments down to default_segment_number', () => {
    const plans = planOptimizations(shardOf(segments), collection({ defaultSegmentNumber: 2 }), new Set());
    expect(plans).toEqual([{ kind: 'merge', sources: [segments[0], segments[1], segments[2]] }]);
  });

  it('should not merge past max_segment_size KB of vectors', () => {
    const plans = planOptimizations(
      shardOf(segments),
      collection({ defaultSegmentNumber: 2, maxSegmentSize: 350 }),
      new Set(),
    );
    expect(plans).toEqual([{ kind: 'merge', sources: [segments[0], segments[1]] }]);
    // nothing fits two at a time: no merge at all
    expect(
      planOptimizations(shardOf(segments), collection({ defaultSegmentNumber: 2, maxSegmentSize: 150 }), new Set()),
    ).toEqual([]);
  });

  describe('config mismatch', () => {
    const built = (spaces: VectorSpace[], payloadsOnDisk: boolean) => {
      const segment = indexed(100, 100);
      segment.profile = segmentProfile(spaces, diskLayoutOf(100, spaces, { payloadsOnDisk }));
      return segment;
    };
    const shardWith = (segments: Segment[], spaces: VectorSpace[]) =>
      ({ segments, spaces: new Map(spaces.map((s) => [s.name, s])) }) as unknown as LocalShard;
    const config = { defaultSegmentNumber: 5 };

    it('should leave segments built with the current config alone', () => {
      const segments = [built([space(16)], false), built([space(16)], false)];
      expect(planOptimizations(shardWith(segments, [space(16)]), collection(config), new Set())).toEqual([]);
    });

    it('should rebuild one segment at a time after HNSW, on_disk or on_disk_payload changed', () => {
      const segments = [built([space(16)], false), built([space(16)], false)];
      for (const [spaces, onDiskPayload] of [
        [[space(32)], false],
        [[space(16, true)], false],
        [[space(16)], true],
      ] as const) {
        const plans = planOptimizations(shardWith(segments, [...spaces]), collection(config, onDiskPayload), new Set());
        expect(plans).toEqual([{ kind: 'config', sources: [segments[0]] }]);
        // the next one once the first is busy
        expect(
          planOptimizations(
            shardWith(segments, [...spaces]),
            collection(config, onDiskPayload),
            new Set([segments[0]]),
          ),
        ).toEqual([{ kind: 'config', sources: [segments[1]] }]);
      }
    });

    it('should move a segment to disk once it exceeds memmap_threshold', () => {
      const segments = [built([space(16)], false)];
      expect(
        planOptimizations(shardWith(segments, [space(16)]), collection({ ...config, memmapThreshold: 50 }), new Set()),
      ).toEqual([{ kind: 'config', sources: [segments[0]] }]);
      expect(
        planOptimizations(shardWith(segments, [space(16)]), collection({ ...config, memmapThreshold: 500 }), new Set()),
      ).toEqual([]);
    });

    it('should keep a segment on disk that shrank below memmap_threshold, and move it back once memmap and on_disk are off', () => {
      // built on disk at 100 KB with a 50 KB threshold; deletes since took it down to 40 KB
      const segment = indexed(100, 40);
      segment.profile = segmentProfile(
        [space(16)],
        diskLayoutOf(100, [space(16)], { payloadsOnDisk: false, memmapThresholdKb: 50 }),
      );
      expect(
        planOptimizations(shardWith([segment], [space(16)]), collection({ ...config, memmapThreshold: 50 }), new Set()),
      ).toEqual([]);
      expect(planOptimizations(shardWith([segment], [space(16)]), collection(config), new Set())).toEqual([
        { kind: 'config', sources: [segment] },
      ]);
    });
  });
});
