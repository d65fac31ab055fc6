import { CollectionConfig, OptimizersConfig } from '@vectorstore/collections';
import { LocalShard } from '../storage/local-shard';
import { Segment } from '../storage/segment';
import { diskLayoutOf, segmentProfile } from '../storage/segment-layout';
import { VectorSpace } from '../storage/vector-space';
import { planOptimizations } from './optimization-planner';

/** A segment as the planner sees it: size figures only (`kb` grows as writes come in). */
function fake(appendable: boolean, kb: number, extra: { deferredCount?: number; points?: number } = {}): Segment {
  const segment = {
    appendable,
    kb,
    get pointCount() {
      return extra.points ?? segment.kb;
    },
    get size() {
      return segment.pointCount;
    },
    deletedCount: 0,
    deferredCount: extra.deferredCount ?? 0,
    vectorDataKb: () => segment.kb,
  };
  return segment as unknown as Segment;
}
const indexed = (points: number, kb: number) => fake(false, kb, { points });
const appendable = (kb: number, deferredCount = 0) => fake(true, kb, { deferredCount });

const shardOf = (segments: Segment[], running = 0) =>
  ({ segments, spaces: new Map(), optimization: { running } }) as unknown as LocalShard;
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
    const withDeferred = appendable(1, 2);
    expect(planOptimizations(shardOf([withDeferred]), collection({ indexingThreshold: 100 }), new Set())).toEqual([
      { kind: 'indexing', sources: [withDeferred] },
    ]);
    expect(planOptimizations(shardOf([appendable(1)]), collection({ indexingThreshold: 100 }), new Set())).toEqual([]);
  });

  describe("merge (Qdrant's merge optimizer)", () => {
    it('should merge the smallest segments, the appendable one too, until the shard would have default_segment_number', () => {
      const plans = planOptimizations(shardOf(segments), collection({ defaultSegmentNumber: 2 }), new Set());
      // 4 segments, target 2: Qdrant counts the appendable segment a merge may have to create, so it merges all 4
      expect(plans).toEqual([{ kind: 'merge', sources: segments }]);
      const active = appendable(10);
      const withActive = [active, ...segments];
      expect(
        planOptimizations(
          shardOf(withActive),
          collection({ defaultSegmentNumber: 3, indexingThreshold: 200 }),
          new Set(),
        ),
      ).toEqual([{ kind: 'merge', sources: [active, segments[0], segments[1], segments[2]] }]);
    });

    it('should never merge just the appendable segment and one other: the count would stay the same', () => {
      const active = appendable(1);
      const three = [active, indexed(100, 100), indexed(200, 200)];
      expect(planOptimizations(shardOf(three), collection({ defaultSegmentNumber: 1 }), new Set())).toEqual([
        { kind: 'merge', sources: three },
      ]);
      // what that merge leaves: a fresh appendable segment and the merged one, which is as far as it goes
      expect(
        planOptimizations(
          shardOf([appendable(0), indexed(300, 300)]),
          collection({ defaultSegmentNumber: 1 }),
          new Set(),
        ),
      ).toEqual([]);
    });

    it('should not merge past max_segment_size KB of vectors, and take two batches of two together', () => {
      expect(
        planOptimizations(shardOf(segments), collection({ defaultSegmentNumber: 2, maxSegmentSize: 650 }), new Set()),
      ).toEqual([{ kind: 'merge', sources: [segments[0], segments[1], segments[2]] }]);
      // only pairs fit, and the second pair fits too: both
      const equal = [indexed(30, 30), indexed(30, 30), indexed(30, 30), indexed(30, 30)];
      expect(
        planOptimizations(shardOf(equal), collection({ defaultSegmentNumber: 2, maxSegmentSize: 70 }), new Set()),
      ).toEqual([
        { kind: 'merge', sources: [equal[0], equal[1]] },
        { kind: 'merge', sources: [equal[2], equal[3]] },
      ]);
      // one pair fits, and no second one: a lone pair would not lower the count
      expect(
        planOptimizations(shardOf(segments), collection({ defaultSegmentNumber: 2, maxSegmentSize: 350 }), new Set()),
      ).toEqual([]);
    });

    it('should count the segments running jobs will produce and leave busy ones alone', () => {
      const busy = new Set([segments[3]]);
      // 3 free + 1 job's result = 4 against a target of 3: merge the 3 smallest free ones
      expect(planOptimizations(shardOf(segments, 1), collection({ defaultSegmentNumber: 3 }), busy)).toEqual([
        { kind: 'merge', sources: [segments[0], segments[1], segments[2]] },
      ]);
      expect(planOptimizations(shardOf(segments, 1), collection({ defaultSegmentNumber: 4 }), busy)).toEqual([]);
    });
  });

  describe("indexing (Qdrant's indexing optimizer)", () => {
    const config = { indexingThreshold: 200, defaultSegmentNumber: 2 };

    it('should index a full appendable segment alone while the shard has fewer than default_segment_number segments', () => {
      const active = appendable(300);
      expect(planOptimizations(shardOf([active]), collection(config), new Set())).toEqual([
        { kind: 'indexing', sources: [active] },
      ]);
      const other = indexed(1000, 1000);
      expect(
        planOptimizations(shardOf([active, other]), collection({ ...config, defaultSegmentNumber: 3 }), new Set()),
      ).toEqual([{ kind: 'indexing', sources: [active] }]);
    });

    it('should index it together with the smallest other segment once the shard has default_segment_number', () => {
      const active = appendable(300);
      const [small, large] = [indexed(1000, 1000), indexed(2000, 2000)];
      expect(planOptimizations(shardOf([active, small]), collection(config), new Set())).toEqual([
        { kind: 'indexing', sources: [active, small] },
      ]);
      // another segment waiting for indexing goes first
      const sealed = appendable(500);
      expect(
        planOptimizations(
          shardOf([sealed, active, small, large]),
          collection({ ...config, defaultSegmentNumber: 4 }),
          new Set(),
        ),
      ).toEqual([{ kind: 'indexing', sources: [sealed, active] }]);
      // running jobs count: 2 free segments and 1 job's result reach a target of 3
      expect(
        planOptimizations(
          shardOf([active, small, large], 1),
          collection({ ...config, defaultSegmentNumber: 3 }),
          new Set([large]),
        ),
      ).toEqual([{ kind: 'indexing', sources: [active, small] }]);
    });

    it('should index it alone when the pair would pass max_segment_size', () => {
      const active = appendable(300);
      const other = indexed(1000, 1000);
      expect(
        planOptimizations(shardOf([active, other]), collection({ ...config, maxSegmentSize: 1200 }), new Set()),
      ).toEqual([{ kind: 'indexing', sources: [active] }]);
    });
  });

  it('should keep the segment count at default_segment_number under sustained writes with one job at a time', () => {
    // A model of the optimizer loop: each tick writes 100 KB into the appendable segment; one job runs at a time and
    // takes 2 ticks plus one per 1000 KB it rebuilds; its sources then become one segment. Issue 28: with indexing
    // always planned before merges, every free slot went to indexing and the indexed segments piled up.
    let active = appendable(0);
    let shard: Segment[] = [active];
    let job: { sources: Segment[]; doneAt: number } | undefined;
    const counts: number[] = [];
    for (let tick = 0; tick < 400; tick++) {
      (active as unknown as { kb: number }).kb += 100;
      if (job && tick >= job.doneAt) {
        const kb = job.sources.reduce((sum, s) => sum + s.vectorDataKb(), 0);
        shard = [...shard.filter((s) => !job!.sources.includes(s)), indexed(kb, kb)];
        job = undefined;
      }
      if (!job) {
        const [plan] = planOptimizations(
          shardOf(shard, 0),
          collection({ indexingThreshold: 200, defaultSegmentNumber: 2 }),
          new Set(),
        );
        if (plan) {
          if (plan.sources.includes(active)) {
            active = appendable(0);
            shard = [active, ...shard];
          }
          const kb = plan.sources.reduce((sum, s) => sum + s.vectorDataKb(), 0);
          job = { sources: plan.sources, doneAt: tick + 2 + Math.floor(kb / 1000) };
        }
      }
      counts.push(shard.length - (job ? job.sources.length - 1 : 0));
    }
    // the count once the running job has swapped its sources for one segment, over the last 300 ticks
    expect(Math.max(...counts.slice(100))).toBeLessThanOrEqual(3);
  });

  describe('config mismatch', () => {
    const built = (spaces: VectorSpace[], payloadsOnDisk: boolean) => {
      const segment = indexed(100, 100);
      segment.profile = segmentProfile(spaces, diskLayoutOf(100, spaces, { payloadsOnDisk }));
      return segment;
    };
    const shardWith = (segments: Segment[], spaces: VectorSpace[]) =>
      ({
        segments,
        spaces: new Map(spaces.map((s) => [s.name, s])),
        optimization: { running: 0 },
      }) as unknown as LocalShard;
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
