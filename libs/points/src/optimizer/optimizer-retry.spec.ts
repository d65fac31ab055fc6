import { Logger } from '@nestjs/common';
import { CollectionConfig } from '@vectorstore/collections';
import { promises as fs, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { LocalShard } from '../storage/local-shard';
import { densePoint, openTestShard } from '../storage/local-shard/shard.spec-helper';
import { PointsStorage } from '../storage/points-storage';
import { OptimizerService } from './optimizer.service';
import { runSegmentBuild } from './segment-build-runner';

jest.mock('./segment-build-runner', () => {
  const actual = jest.requireActual<{ runSegmentBuild: typeof runSegmentBuild }>('./segment-build-runner');
  return { ...actual, runSegmentBuild: jest.fn(actual.runSegmentBuild) };
});
const build = runSegmentBuild as jest.MockedFunction<typeof runSegmentBuild>;

// A build that fails (here: as when a worker of its parallel build dies) fails that job cleanly: the shard keeps
// its segments and serves, the failure is reported, and the optimizer runs the job again after its back-off.
describe('OptimizerService, a failed build', () => {
  let dir: string;
  let shard: LocalShard;
  let now: number;
  // What the planner reads (the defaults, as a collection gets them), with an indexing threshold of 1 KB.
  const config = {
    params: { onDiskPayload: false, vectors: { params: { size: 4, distance: 'Dot' } } },
    optimizerConfig: {
      deletedThreshold: 0.2,
      vacuumMinVectorNumber: 1000,
      defaultSegmentNumber: 0,
      indexingThreshold: 1,
      flushIntervalSec: 5,
      maxOptimizationThreads: { setting: 'Auto' },
    },
  } as unknown as CollectionConfig;

  beforeEach(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'vs-optimizer-retry-'));
    shard = await openTestShard(dir);
    now = Date.now();
    jest.spyOn(Date, 'now').mockImplementation(() => now);
    jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
  });

  afterEach(async () => {
    jest.restoreAllMocks();
    build.mockClear();
    await shard.close();
    await fs.rm(dir, { recursive: true, force: true });
  });

  it('should report the failure, keep the points, and build again after the back-off', async () => {
    await shard.update({ upsert: { points: Array.from({ length: 200 }, (_, i) => densePoint(i + 1)) } });
    const storage = {
      openStorages: () => [{ record: { config }, shards: new Map([[0, { shard }]]) }],
    } as unknown as PointsStorage;
    const optimizer = new OptimizerService(storage);
    build.mockRejectedValueOnce(
      new Error('segment build failed: engine: 1 of 1 parallel build workers did not finish within 30000 ms'),
    );
    const settled = async () => {
      while (shard.optimization.running > 0) await new Promise((resolve) => setTimeout(resolve, 5));
    };

    optimizer.scan();
    await settled();
    expect(build).toHaveBeenCalledTimes(1);
    expect(shard.optimization.error).toMatch(/indexing optimization failed: .*did not finish/);
    expect(shard.segments.every((segment) => segment.appendable)).toBe(true);
    expect(shard.pointCount).toBe(200);
    expect(shard.buildsInProgress()).toEqual([]);

    optimizer.scan(); // within the back-off: nothing runs
    await settled();
    expect(build).toHaveBeenCalledTimes(1);

    now += 5_001;
    optimizer.scan();
    await settled();
    expect(build).toHaveBeenCalledTimes(2);
    expect(shard.optimization.error).toBeUndefined();
    expect(shard.segments.some((segment) => !segment.appendable)).toBe(true);
    expect(shard.pointCount).toBe(200);
    await optimizer.onApplicationShutdown();
  });
});
