// Issue 28 item 3: a byte flipped on disk in an on-disk segment's vector file after the shard opened must not be
// copied by an optimizer job into a new segment (which would get a fresh, matching checksum and serve the damage for
// good). The job checks its sources' files first: it fails naming the file, builds nothing, and the shard is reopened
// as the scrub would (rebuilt from its log, or its collection refused).
import { Logger } from '@nestjs/common';
import {
  CollectionCatalog,
  CollectionsService,
  EmptyCollectionStatsProvider,
  FileCatalogStore,
} from '@vectorstore/collections';
import { JsonObject } from '@vectorstore/common';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { UpdateOperation } from '../model/operations.model';
import { CollectionStorage } from '../storage/collection-storage';
import { LocalShard } from '../storage/local-shard';
import { PointsStorage } from '../storage/points-storage';
import { WriteAheadLog } from '../wal/write-ahead-log';
import { OptimizerService } from './optimizer.service';
import { runSegmentBuild } from './segment-build-runner';

jest.mock('./segment-build-runner', () => {
  const actual = jest.requireActual<{ runSegmentBuild: typeof runSegmentBuild }>('./segment-build-runner');
  return { ...actual, runSegmentBuild: jest.fn(actual.runSegmentBuild) };
});
const build = runSegmentBuild as jest.MockedFunction<typeof runSegmentBuild>;

/** Points `from`..`to`, vector [id, 1, 0, 0], with `pad` characters of payload each. */
const upsert = (from: number, to: number, pad = 0): UpdateOperation => ({
  upsert: {
    points: Array.from({ length: to - from + 1 }, (_, i) => ({
      id: BigInt(from + i),
      vectors: { v: { kind: 'dense' as const, values: Float32Array.from([from + i, 1, 0, 0]) } },
      payload: pad > 0 ? { pad: 'x'.repeat(pad) } : ({} as JsonObject),
    })),
  },
});

const vectorOf = (shard: LocalShard, id: number): number[] => {
  const found = shard.find(BigInt(id))!;
  return Array.from((found.segment.pointVectors(found.slot).v as { values: Float32Array }).values);
};

/** Ids whose vector, as `shard` serves it, is not [id, 1, 0, 0]. */
const changedIds = (shard: LocalShard, upTo: number): number[] =>
  Array.from({ length: upTo }, (_, i) => i + 1).filter(
    (id) => JSON.stringify(vectorOf(shard, id)) !== JSON.stringify([id, 1, 0, 0]),
  );

describe('OptimizerService, a source file damaged on disk after open', () => {
  let dir: string;
  let storage: CollectionStorage;
  let optimizer: OptimizerService;

  beforeAll(() => Logger.overrideLogger(false));

  afterEach(async () => {
    await optimizer?.onApplicationShutdown();
    await storage?.close().catch(() => undefined);
    build.mockClear();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /** A standalone collection with on-disk vectors, one shard, indexing from 1 KB, one segment wanted. */
  const openCollection = async (options: { walCapacityMb?: number; onDiskPayload?: boolean } = {}) => {
    const { walCapacityMb, onDiskPayload } = options;
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vs-optimizer-damage-'));
    const catalog = new CollectionCatalog(new FileCatalogStore(dir));
    await catalog.load();
    await new CollectionsService(catalog, new EmptyCollectionStatsProvider()).create({
      name: 'c',
      vectors: { paramsMap: { v: { size: 4, distance: 'Dot' as const, onDisk: true } } },
      optimizersConfig: { indexingThreshold: 1, defaultSegmentNumber: 1 },
      onDiskPayload: onDiskPayload ?? false,
      ...(walCapacityMb ? { walConfig: { walCapacityMb } } : {}),
    });
    const record = catalog.require('c');
    storage = new CollectionStorage(record, path.join(dir, 'collections', record.id), (options) =>
      WriteAheadLog.open(options),
    );
    await storage.reconcile(record);
    optimizer = new OptimizerService({ openStorages: () => [storage] } as unknown as PointsStorage);
    return storage.shards.get(0)!.shard;
  };

  /** Runs the jobs the shard needs now to their end (a job ends after the reopen a damaged file asks for). */
  const optimize = async (shard: LocalShard) => {
    optimizer.scan();
    while (shard.optimization.running > 0) await new Promise((resolve) => setTimeout(resolve, 5));
  };

  /** Indexes the points into an on-disk segment; returns its vector file (and payload file, if on disk). */
  const onDiskSegment = async (shard: LocalShard, onDiskPayload = false): Promise<string[]> => {
    await optimize(shard);
    expect(build).toHaveBeenCalledTimes(1);
    const indexed = shard.segments.find((segment) => !segment.appendable)!;
    expect(indexed.vectorsOnDisk).toBe(true);
    const files = shard.diskFilesOf(indexed).map((file) => path.basename(file.path));
    expect(files.sort()).toEqual(onDiskPayload ? [`${indexed.id}.pay`, `${indexed.id}.vec`] : [`${indexed.id}.vec`]);
    return files.map((file) => path.join(shard.segmentsDir, file));
  };

  /** Flips the high byte of a float in the middle of `file`: one vector changes a lot. */
  const flip = (file: string) => {
    const bytes = fs.readFileSync(file);
    bytes[Math.floor(bytes.length / 32) * 16 + 3] ^= 0x40;
    fs.writeFileSync(file, bytes);
  };

  const escaped = (text: string) => text.replace(/[.()]/g, (c) => `\\${c}`);

  it.each([
    [
      'a flipped byte in the vector file',
      '.vec',
      flip,
      'checksum mismatch \\(crc32 [0-9a-f]{8} written, [0-9a-f]{8} read\\): its bytes changed on disk',
    ],
    [
      'a torn vector file',
      '.vec',
      (file: string) => fs.truncateSync(file, 1000),
      '1000 bytes where \\d+ were written \\(truncated\\)',
    ],
    ['a flipped byte in the payload file', '.pay', flip, 'checksum mismatch .*'],
  ])(
    'should fail the job naming the file (%s), build nothing, and rebuild the shard from its log',
    async (_case, ext, damage, reason) => {
      const onDiskPayload = ext === '.pay';
      const shard = await openCollection({ onDiskPayload });
      await shard.update(upsert(1, 200, 10));
      const file = (await onDiskSegment(shard, onDiskPayload)).find((name) => name.endsWith(ext))!;
      damage(file);
      // More points: the next indexing job takes the appendable segment with the on-disk one (one segment wanted).
      await shard.update(upsert(201, 300, 10));
      await optimize(shard);

      expect(build).toHaveBeenCalledTimes(1);
      expect(shard.optimization.error).toMatch(
        new RegExp(`^indexing optimization failed: ${escaped(file)} is damaged: ${reason}$`),
      );
      const reopened = storage.shards.get(0)!.shard;
      expect(reopened).not.toBe(shard);
      expect(storage.failure).toBeUndefined();
      expect(reopened.pointCount).toBe(300);
      expect(changedIds(reopened, 300)).toEqual([]);
      for (let id = 1; id <= 300; id++) {
        const found = reopened.find(BigInt(id))!;
        expect(found.segment.payload(found.slot)).toEqual({ pad: 'x'.repeat(10) });
      }
      // The rebuild replaced the damaged file on disk; no segment holds a changed vector or payload.
      expect(fs.readdirSync(path.dirname(file)).filter((name) => /\.(vec|pay)$/.test(name))).toEqual([]);
    },
  );

  it('should refuse the collection naming the file when the log no longer covers the shard', async () => {
    // 1 MiB log files and about 2.5 MiB of operations: the flush after the first job drops the log's first file.
    const shard = await openCollection({ walCapacityMb: 1 });
    for (let id = 1; id <= 200; id += 2) await shard.update(upsert(id, id + 1, 12_000));
    const [vec] = await onDiskSegment(shard);
    flip(vec);
    // The source serves the changed vector: what a job without the check would copy.
    expect(changedIds(shard, 200)).toHaveLength(1);
    const before = fs.readdirSync(path.dirname(vec)).sort();
    await shard.update(upsert(201, 300));
    await optimize(shard);

    expect(build).toHaveBeenCalledTimes(1);
    expect(shard.optimization.error).toMatch(`${vec} is damaged: checksum mismatch`);
    expect(storage.shards.has(0)).toBe(false);
    expect(storage.failure?.message).toMatch(
      new RegExp(`^${escaped(vec)} is damaged: checksum mismatch .*cannot be rebuilt`),
    );
    // No new segment: the segment files are the ones before the job, the damaged one kept for whoever repairs it.
    const after = fs.readdirSync(path.dirname(vec)).sort();
    expect(after.filter((name) => !/\.(seg|del)$/.test(name))).toEqual(
      before.filter((name) => !/\.(seg|del)$/.test(name)),
    );
  });
});
