import { OptimizersConfig } from '@vectorstore/collections';
import { LocalShard } from '../storage/local-shard';
import { Segment } from '../storage/segment';
import { planOptimizations } from './optimization-planner';

/** An indexed segment as the planner sees it: size figures only. */
function indexed(points: number, kb: number): Segment {
  return { appendable: false, pointCount: points, size: points, deletedCount: 0, vectorDataKb: () => kb } as unknown as Segment;
}

const shardOf = (segments: Segment[]) => ({ segments }) as unknown as LocalShard;

describe(planOptimizations.name, () => {
  const segments = [indexed(100, 100), indexed(200, 200), indexed(300, 300), indexed(400, 400)];

  it('should merge the smallest segments down to default_segment_number', () => {
    const plans = planOptimizations(shardOf(segments), { defaultSegmentNumber: 2 } as OptimizersConfig, new Set());
    expect(plans).toEqual([{ kind: 'merge', sources: [segments[0], segments[1], segments[2]] }]);
  });

  it('should not merge past max_segment_size KB of vectors', () => {
    const plans = planOptimizations(shardOf(segments), { defaultSegmentNumber: 2, maxSegmentSize: 350 } as OptimizersConfig, new Set());
    expect(plans).toEqual([{ kind: 'merge', sources: [segments[0], segments[1]] }]);
    // nothing fits two at a time: no merge at all
    expect(planOptimizations(shardOf(segments), { defaultSegmentNumber: 2, maxSegmentSize: 150 } as OptimizersConfig, new Set())).toEqual([]);
  });
});
