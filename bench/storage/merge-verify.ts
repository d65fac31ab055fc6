// What checking a merge's sources costs (docs/reliability.md, "Merges verify their sources"): a shard of 5 000
// 128-d vectors kept on disk (`on_disk`), in 4 indexed segments plus the empty appendable one, merged into one by the
// optimizer as the server runs it; the check's share of the job, from the job's own log line. Median of BENCH_ROUNDS (5).
// Run: npx tsx bench/storage/merge-verify.ts
import { Logger, LoggerService } from '@nestjs/common';
import { CollectionConfig } from '@vectorstore/collections';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { OptimizerService } from '../../libs/points/src/optimizer/optimizer.service';
import { SourceCheck } from '../../libs/points/src/optimizer/source-verification';
import { LocalShard } from '../../libs/points/src/storage/local-shard';
import { PointsStorage } from '../../libs/points/src/storage/points-storage';
import { VectorSpace } from '../../libs/points/src/storage/vector-space';
import { WriteAheadLog } from '../../libs/points/src/wal/write-ahead-log';

const POINTS = 5_000;
const DIM = 128;
const SEGMENTS = 4;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);

const spaces = new Map<string, VectorSpace>([
  [
    '',
    {
      name: '',
      kind: 'dense',
      dim: DIM,
      distance: 'Cosine',
      datatype: 'float32',
      hnsw: { m: 16, efConstruct: 100, fullScanThreshold: 10_000, maxIndexingThreads: 1 },
      onDisk: true,
    },
  ],
]);

const config = (defaultSegmentNumber: number) =>
  ({
    params: { onDiskPayload: false, vectors: { params: { size: DIM, distance: 'Cosine', onDisk: true } } },
    optimizerConfig: {
      deletedThreshold: 0.2,
      vacuumMinVectorNumber: 1000,
      defaultSegmentNumber,
      indexingThreshold: 1,
      flushIntervalSec: 5,
      maxOptimizationThreads: { value: 1 },
    },
  }) as unknown as CollectionConfig;

/** The `verified` of each 'optimization finished' line. */
const checks: SourceCheck[] = [];
const capture: LoggerService = {
  log: (message: unknown) => {
    const verified = (message as { verified?: SourceCheck }).verified;
    if (verified) checks.push(verified);
  },
  error: (message: unknown) => console.error(message),
  warn: () => undefined,
};

async function settle(shard: LocalShard): Promise<void> {
  while (shard.optimization.running > 0) await new Promise((resolve) => setTimeout(resolve, 5));
}

async function round(): Promise<{ jobMs: number; check: SourceCheck }> {
  const dir = mkdtempSync(path.join(tmpdir(), 'vs-bench-merge-verify-'));
  const shard = await LocalShard.open({
    dir,
    spaces,
    openLog: (options) => WriteAheadLog.open(options),
    log: { segmentCapacityBytes: 32 << 20, segmentsAhead: 0, retainClosed: 1 },
  });
  try {
    let collection = config(SEGMENTS + 2);
    const optimizer = new OptimizerService({
      openStorages: () => [{ record: { config: collection }, shards: new Map([[0, { shard }]]) }],
    } as unknown as PointsStorage);
    const perSegment = POINTS / SEGMENTS;
    for (let s = 0; s < SEGMENTS; s++) {
      const points = Array.from({ length: perSegment }, (_, i) => ({
        id: BigInt(s * perSegment + i + 1),
        vectors: { '': { kind: 'dense' as const, values: Float32Array.from({ length: DIM }, () => Math.random()) } },
        payload: {},
      }));
      await shard.update({ upsert: { points } });
      optimizer.scan();
      await settle(shard);
    }
    if (shard.segments.filter((s) => s.vectorsOnDisk).length !== SEGMENTS) throw new Error('setup: segments missing');
    collection = config(1);
    checks.length = 0;
    const started = performance.now();
    optimizer.scan();
    await settle(shard);
    const jobMs = performance.now() - started;
    if (shard.segments.filter((s) => s.vectorsOnDisk).length !== 1 || checks.length !== 1)
      throw new Error(`the merge did not run: ${shard.optimization.error ?? ''}`);
    await optimizer.onApplicationShutdown();
    return { jobMs, check: checks[0] };
  } finally {
    await shard.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  Logger.overrideLogger(capture);
  const results: Array<{ jobMs: number; check: SourceCheck }> = [];
  for (let r = 0; r < ROUNDS; r++) results.push(await round());
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  const jobMs = median(results.map((r) => r.jobMs));
  const checkMs = median(results.map((r) => r.check.ms));
  const { files, bytes } = results[0].check;
  const mb = bytes / 2 ** 20;
  console.log(
    `merge of ${POINTS} x ${DIM}-d on-disk vectors (${SEGMENTS} segments, medians of ${ROUNDS}, Node ${process.version}):`,
  );
  console.log(`  job ${jobMs.toFixed(0)} ms; sources checked: ${files} files, ${mb.toFixed(2)} MiB`);
  console.log(
    `  check ${checkMs.toFixed(2)} ms = ${(checkMs / mb).toFixed(2)} ms/MiB, ${((100 * checkMs) / jobMs).toFixed(2)} % of the job`,
  );
  for (const r of results)
    console.log(`  round: job ${r.jobMs.toFixed(0)} ms, check ${r.check.ms.toFixed(2)} ms (${r.check.bytes} bytes)`);
}

void main();
