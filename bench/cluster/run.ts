// npm run bench:cluster — what cluster mode costs on one machine. The same points (seeded Gaussian mixture,
// 128-d, Euclid) and the same queries against: a standalone server, etcd + 1 cluster peer, and etcd + 3
// cluster peers (one shard each). Every setup's collection has shard_number 3, so the shards are the same and
// only where they live differs. Writes: upserts in batches of 256 with wait=true from 4 concurrent writers, batch
// b sent to peer b mod P (indexing off while loading, then indexed to Green and timed). Reads: HNSW search at a
// fixed ef, limit 10, query q sent to peer q mod P, at 1 and 4 concurrent clients; recall@10 against the same
// setup's params.exact=true answers, whose own agreement with a brute force computed here is the `exact` row.
// Ratios: each setup ÷ 1 peer and ÷ standalone, measured in the same run. On the 3-peer setup, hedged reads
// (hedged.ts): searches through one peer while the replica it asks first stalls, fan-out off vs on.
// Env: BENCH_POINTS (20000), BENCH_QUERIES (1000 per run), BENCH_EF (64),
// BENCH_SETUPS (standalone,1,3: any of them, comma-separated), BENCH_HEDGED (1; 0 skips hedged reads) and the
// BENCH_HEDGED_* of hedged.ts.
import * as grpc from '@grpc/grpc-js';
import { availableParallelism, cpus, loadavg } from 'node:os';
import { gaussianMixture } from '../engine/datasets';
import { table } from '../engine/report';
import { processCpuMs, RawClient, residentBytes } from '../server/clients';
import { HEDGED_SETTINGS, HedgedResult, measureHedged, thawAll } from './hedged';
import { Setup, startCluster, startStandalone, stopAll } from './setups';

const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const POINTS = env('BENCH_POINTS', 20_000);
const QUERIES = env('BENCH_QUERIES', 1_000);
const EF = env('BENCH_EF', 64);
const SETUPS = (process.env.BENCH_SETUPS ?? 'standalone,1,3').split(',').map((s) => s.trim());
const HEDGED = process.env.BENCH_HEDGED !== '0';
const DIM = 128;
const K = 10;
const SHARDS = 3;
const M = 16;
const EF_CONSTRUCT = 100;
const BATCH = 256;
const WRITERS = 4;
const CLIENT_COUNTS = [1, 4];
const WARMUP = 50; // queries per client before each measured run
const SERVER_WARMUP = 300; // HNSW queries spread over the peers before any HNSW run
const INDEX_TIMEOUT_MS = 600_000;
const COLLECTION = 'bench';

interface SearchRun {
  qps: number;
  p50: number;
  p99: number;
  /** CPU of all server processes of the setup (not etcd) per query, ms. */
  cpuPerQuery: number;
  /** Ids (point id - 1) per query. */
  results: number[][];
}

interface SetupResult {
  name: string;
  upsert: { pointsPerSecond: number; p50: number; p99: number };
  indexSeconds: number;
  /** Keyed `${search} ${clients}`. */
  runs: Map<string, SearchRun & { recall: number }>;
  rssMiB: number;
  problems: string[];
}

function progress(label: string, done: number, total: number): void {
  const width = 30;
  const filled = Math.round((done / total) * width);
  process.stderr.write(`\r${label.padEnd(30)} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total}`);
  if (done >= total) process.stderr.write('\n');
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/** Exact top-K slots per query by squared L2, computed here: the yardstick for the servers' exact answers. */
function bruteForce(base: Float32Array, queries: Float32Array): number[][] {
  const n = base.length / DIM;
  const truth: number[][] = [];
  for (let q = 0; q < QUERIES; q++) {
    const best: { slot: number; d: number }[] = [];
    for (let i = 0; i < n; i++) {
      let d = 0;
      for (let j = 0; j < DIM; j++) {
        const x = base[i * DIM + j] - queries[q * DIM + j];
        d += x * x;
      }
      if (best.length < K || d < best[K - 1].d) {
        let at = Math.min(best.length, K - 1);
        while (at > 0 && best[at - 1].d > d) at--;
        best.splice(at, 0, { slot: i, d });
        if (best.length > K) best.pop();
      }
    }
    truth.push(best.map((b) => b.slot));
    if (q % 100 === 99) progress('brute-force ground truth', q + 1, QUERIES);
  }
  return truth;
}

function recall(got: number[][], expected: number[][]): number {
  let hits = 0;
  for (let q = 0; q < expected.length; q++) {
    const want = new Set(expected[q]);
    for (const id of got[q].slice(0, K)) if (want.has(id)) hits++;
  }
  return hits / (expected.length * K);
}

/** gRPC clients: one per (worker, peer), each its own channel. */
function clientsFor(setup: Setup, workers: number, service = 'qdrant.Points'): RawClient[][] {
  return Array.from({ length: workers }, () =>
    setup.peers.map((peer) => {
      const metadata = new grpc.Metadata();
      metadata.set('api-key', peer.apiKey);
      return new RawClient(peer.grpcAddress, metadata, service);
    }),
  );
}

const closeAll = (clients: RawClient[][]) => clients.flat().forEach((client) => client.close());

const serverCpuMs = (setup: Setup) => setup.peers.reduce((sum, peer) => sum + processCpuMs(peer.pid), 0);

/** Creates the collection on the first peer and waits until every peer has it. */
async function createCollection(setup: Setup): Promise<void> {
  const [collections] = clientsFor(setup, 1, 'qdrant.Collections');
  try {
    await collections[0].unary('Create', {
      collectionName: COLLECTION,
      vectorsConfig: { params: { size: DIM, distance: 'Euclid' } },
      shardNumber: SHARDS,
      hnswConfig: { m: M, efConstruct: EF_CONSTRUCT },
      // Bulk load with indexing off, as bench:server does; indexed afterwards (indexToGreen).
      optimizersConfig: { indexingThreshold: 0, defaultSegmentNumber: 1 },
    });
    const deadline = Date.now() + 10_000;
    for (const client of collections) {
      for (;;) {
        try {
          await client.unary('Get', { collectionName: COLLECTION });
          break;
        } catch (error) {
          if (Date.now() > deadline) throw error;
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      }
    }
  } finally {
    closeAll([collections]);
  }
}

/** Upserts every point (ids 1..POINTS) with wait=true: points/s and batch latency. */
async function upsertAll(setup: Setup, base: Float32Array): Promise<SetupResult['upsert']> {
  const clients = clientsFor(setup, WRITERS);
  const batches = Math.ceil(POINTS / BATCH);
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  try {
    await Promise.all(
      clients.map(async (peers) => {
        for (let b = next++; b < batches; b = next++) {
          const points = [];
          for (let i = b * BATCH; i < Math.min(POINTS, (b + 1) * BATCH); i++) {
            points.push({
              id: { num: i + 1 },
              vectors: { vector: { dense: { data: Array.from(base.subarray(i * DIM, (i + 1) * DIM)) } } },
            });
          }
          const start = performance.now();
          await peers[b % peers.length].unary('Upsert', { collectionName: COLLECTION, points, wait: true });
          latencies.push(performance.now() - start);
          if (latencies.length % 10 === 0 || latencies.length === batches) {
            progress(`${setup.name}: upsert`, latencies.length, batches);
          }
        }
      }),
    );
  } finally {
    closeAll(clients);
  }
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return { pointsPerSecond: POINTS / seconds, p50: percentile(latencies, 50), p99: percentile(latencies, 99) };
}

/** Segment info from REST telemetry (details level 4), Qdrant's shape; only the shards this peer holds. */
interface SegmentInfo {
  segment_type: string;
  num_points: number;
}

async function localSegments(peer: Setup['peers'][number]): Promise<SegmentInfo[]> {
  const response = await fetch(`${peer.httpUrl}/telemetry?details_level=4`, { headers: { 'api-key': peer.apiKey } });
  const body = (await response.json()) as {
    result: {
      collections: {
        collections?: { id: string; shards?: { local?: { segments?: { info: SegmentInfo }[] } | null }[] }[];
      };
    };
  };
  const collection = body.result.collections.collections?.find((c) => c.id === COLLECTION);
  return (collection?.shards ?? []).flatMap((shard) => (shard.local?.segments ?? []).map((s) => s.info));
}

interface CollectionInfo {
  result: { status: string; pointsCount?: string; indexedVectorsCount?: string };
}

/**
 * Turns indexing on and waits until every peer reports Green and the peers' own segments hold every point, all
 * in indexed segments. Resolves to the seconds taken.
 */
async function indexToGreen(setup: Setup): Promise<number> {
  const [collections] = clientsFor(setup, 1, 'qdrant.Collections');
  const started = performance.now();
  try {
    await collections[0].unary('Update', { collectionName: COLLECTION, optimizersConfig: { indexingThreshold: 1 } });
    for (;;) {
      const statuses = await Promise.all(
        collections.map(
          async (client) => (await client.unary<CollectionInfo>('Get', { collectionName: COLLECTION })).result.status,
        ),
      );
      const segments = (await Promise.all(setup.peers.map(localSegments))).flat();
      const indexed = segments.filter((s) => s.segment_type === 'indexed').reduce((sum, s) => sum + s.num_points, 0);
      const unindexed = segments.filter((s) => s.segment_type !== 'indexed' && s.num_points > 0).length;
      progress(`${setup.name}: index (optimizer)`, Math.min(indexed, POINTS), POINTS);
      if (statuses.every((s) => s === 'Green') && indexed === POINTS && unindexed === 0) break;
      if (performance.now() - started > INDEX_TIMEOUT_MS) {
        throw new Error(
          `${setup.name}: not indexed within ${INDEX_TIMEOUT_MS / 1000} s: statuses ${statuses.join(', ')}, ` +
            `segments ${JSON.stringify(segments)}`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  } finally {
    closeAll([collections]);
  }
  return (performance.now() - started) / 1000;
}

/** Exact counts of the collection as each peer answers them. */
async function counts(setup: Setup): Promise<number[]> {
  const [points] = clientsFor(setup, 1);
  try {
    return await Promise.all(
      points.map(async (client) =>
        Number(
          (await client.unary<{ result: { count: string } }>('Count', { collectionName: COLLECTION, exact: true }))
            .result.count,
        ),
      ),
    );
  } finally {
    closeAll([points]);
  }
}

/** Wire shape of a search answer under proto-loader's options (uint64 as string). */
interface SearchResponse {
  result: { id: { num?: string } }[];
}

/**
 * QUERIES searches from `concurrency` workers, query q sent to peer q mod P, after WARMUP unmeasured ones per
 * worker. `exact` asks for params.exact=true, otherwise HNSW at ef=EF.
 */
async function searchAll(
  setup: Setup,
  label: string,
  concurrency: number,
  exact: boolean,
  queries: number[][],
): Promise<SearchRun> {
  const clients = clientsFor(setup, concurrency);
  const params = exact ? { exact: true } : { hnswEf: EF };
  const search = async (worker: number, q: number) => {
    const peers = clients[worker];
    const response = await peers[q % peers.length].unary<SearchResponse>('Search', {
      collectionName: COLLECTION,
      vector: queries[q],
      limit: K,
      params,
    });
    return response.result.map((p) => Number(p.id.num) - 1);
  };
  try {
    await Promise.all(
      clients.map(async (_, w) => {
        for (let i = 0; i < WARMUP; i++) await search(w, (w * WARMUP + i) % QUERIES);
      }),
    );
    const results: number[][] = new Array<number[]>(QUERIES);
    const latencies: number[] = [];
    let next = 0;
    const cpu0 = serverCpuMs(setup);
    const t0 = performance.now();
    await Promise.all(
      clients.map(async (_, w) => {
        for (let q = next++; q < QUERIES; q = next++) {
          const start = performance.now();
          results[q] = await search(w, q);
          latencies.push(performance.now() - start);
          if (latencies.length % 100 === 0) progress(label, latencies.length, QUERIES);
        }
      }),
    );
    const seconds = (performance.now() - t0) / 1000;
    const cpu = serverCpuMs(setup) - cpu0;
    progress(label, QUERIES, QUERIES);
    latencies.sort((a, b) => a - b);
    return {
      qps: QUERIES / seconds,
      p50: percentile(latencies, 50),
      p99: percentile(latencies, 99),
      cpuPerQuery: cpu / QUERIES,
      results,
    };
  } finally {
    closeAll(clients);
  }
}

async function measureSetup(
  setup: Setup,
  base: Float32Array,
  queries: number[][],
  truth: number[][],
): Promise<SetupResult> {
  const problems: string[] = [];
  await createCollection(setup);
  const upsert = await upsertAll(setup, base);
  const indexSeconds = await indexToGreen(setup);
  const counted = await counts(setup);
  if (counted.some((c) => c !== POINTS)) problems.push(`exact count per peer ${counted.join(', ')}, not ${POINTS}`);

  const runs: SetupResult['runs'] = new Map();
  const exact = await searchAll(setup, `${setup.name}: exact ×${WRITERS}`, WRITERS, true, queries);
  runs.set(`exact ${WRITERS}`, { ...exact, recall: recall(exact.results, truth) });
  // Warm every peer's HNSW path (JIT, connections) before the first measured HNSW run.
  const warm = clientsFor(setup, 1)[0];
  for (let q = 0; q < SERVER_WARMUP; q++) {
    await warm[q % warm.length].unary('Search', {
      collectionName: COLLECTION,
      vector: queries[q % QUERIES],
      limit: K,
      params: { hnswEf: EF },
    });
  }
  closeAll([warm]);
  for (const concurrency of CLIENT_COUNTS) {
    const run = await searchAll(setup, `${setup.name}: hnsw ×${concurrency}`, concurrency, false, queries);
    runs.set(`hnsw ${concurrency}`, { ...run, recall: recall(run.results, exact.results) });
  }
  const rssMiB = setup.peers.reduce((sum, peer) => sum + residentBytes(peer.pid), 0) / 2 ** 20;
  // Servers run at log level error: anything they wrote is worth a look.
  for (const [i, peer] of setup.peers.entries()) {
    const lines = peer
      .output()
      .split('\n')
      .filter((line) => line.trim() !== '');
    if (lines.length > 0) problems.push(`server ${i} logged ${lines.length} line(s), first: ${lines[0].slice(0, 300)}`);
  }
  return { name: setup.name, upsert, indexSeconds, runs, rssMiB, problems };
}

async function startSetup(which: string): Promise<Setup> {
  if (which === 'standalone') return startStandalone();
  const peers = Number(which);
  if (!Number.isInteger(peers) || peers < 1) throw new Error(`BENCH_SETUPS: unknown setup ${which}`);
  return startCluster(peers);
}

/** `a ÷ b` to two decimals, or a dash when there is no b. */
const ratio = (a: number, b: number | undefined) => (b === undefined ? '—' : `${(a / b).toFixed(2)}×`);

async function main(): Promise<void> {
  const began = performance.now();
  const loadAtStart = loadavg()[0];
  const ds = gaussianMixture(POINTS, QUERIES, DIM);
  const queries = Array.from({ length: QUERIES }, (_, q) => Array.from(ds.queries.subarray(q * DIM, (q + 1) * DIM)));
  const truth = bruteForce(ds.base, ds.queries);

  const results: SetupResult[] = [];
  let hedged: HedgedResult | undefined;
  for (const which of SETUPS) {
    process.stderr.write(`starting ${which === 'standalone' ? 'a standalone server' : `etcd + ${which} peer(s)`}\n`);
    const setup = await startSetup(which);
    try {
      results.push(await measureSetup(setup, ds.base, queries, truth));
      // Hedging needs a shard the coordinator reads from elsewhere, with a second replica: 3 peers, rf 2.
      if (HEDGED && which === '3') hedged = await measureHedged(setup, ds.base, DIM, queries, progress);
    } catch (error) {
      thawAll();
      // The servers' own account (error-level logs, a crash) is what explains most failures here.
      for (const [i, peer] of setup.peers.entries()) {
        process.stderr.write(
          `\n${setup.name}, server ${i} (pid ${peer.pid}) output (tail):\n${peer.output().slice(-3000)}\n`,
        );
      }
      throw error;
    } finally {
      await setup.stop();
    }
  }

  const byName = (name: string) => results.find((r) => r.name === name);
  const onePeer = byName('1 peer');
  const standalone = byName('standalone');
  const writeRows = results.map((r) => [
    r.name,
    Math.round(r.upsert.pointsPerSecond),
    r.upsert.p50.toFixed(1),
    r.upsert.p99.toFixed(1),
    r.indexSeconds.toFixed(1),
    Math.round(r.rssMiB),
    ratio(r.upsert.pointsPerSecond, onePeer?.upsert.pointsPerSecond),
    ratio(r.upsert.pointsPerSecond, standalone?.upsert.pointsPerSecond),
  ]);
  const searchRows: (string | number)[][] = [];
  for (const key of [`exact ${WRITERS}`, ...CLIENT_COUNTS.map((c) => `hnsw ${c}`)]) {
    for (const r of results) {
      const run = r.runs.get(key);
      if (!run) continue;
      const [search, clients] = key.split(' ');
      searchRows.push([
        r.name,
        search === 'hnsw' ? `hnsw ef=${EF}` : 'exact',
        clients,
        Math.round(run.qps),
        run.p50.toFixed(2),
        run.p99.toFixed(2),
        run.recall.toFixed(3),
        run.cpuPerQuery.toFixed(2),
        ratio(run.qps, onePeer?.runs.get(key)?.qps),
        ratio(run.qps, standalone?.runs.get(key)?.qps),
      ]);
    }
  }

  console.log(
    `\nvectorstore cluster mode — ${POINTS} × ${DIM}-d (seeded Gaussian mixture, Euclid), shard_number ${SHARDS} in ` +
      `every setup, m=${M}, ef_construct=${EF_CONSTRUCT}, top-${K}, ${QUERIES} queries per run; ` +
      `${cpus()[0]?.model ?? 'cpu'} × ${availableParallelism()}, Node ${process.version}; everything on this machine\n`,
  );
  console.log(
    `Writes: upsert batches of ${BATCH}, wait=true, ${WRITERS} concurrent writers, batch b to peer b mod P, indexing ` +
      'off while loading; then indexing on and the time until every peer is Green with all points in indexed ' +
      'segments. RSS: all server processes (not etcd) after the searches.\n',
  );
  console.log(
    table(
      [
        'setup',
        'upsert points/s',
        'batch p50 ms',
        'batch p99 ms',
        'index to Green s',
        'RSS MiB',
        '÷ 1 peer',
        '÷ standalone',
      ],
      writeRows,
    ),
  );
  console.log(
    `\nSearch: query q to peer q mod P; recall@10 of hnsw rows against the same setup's params.exact=true answers; ` +
      'of the exact row against a brute force computed by the bench. CPU/query: all server processes ' +
      '(utime + stime from /proc), not etcd.\n',
  );
  console.log(
    table(
      [
        'setup',
        'search',
        'clients',
        'QPS',
        'p50 ms',
        'p99 ms',
        'recall@10',
        'CPU/query ms',
        'QPS ÷ 1 peer',
        'QPS ÷ standalone',
      ],
      searchRows,
    ),
  );
  if (hedged) {
    const h = HEDGED_SETTINGS;
    console.log(
      `\nHedged reads (3 peers): collection of ${hedged.points} points, shard_number 3, replication_factor 2; gRPC Search ` +
        `(limit ${K}, a full scan of unindexed segments) through peer ${hedged.coordinator}, ${h.clients} clients, ` +
        `${h.queries} queries per run. "stalls": peer ${hedged.slowed}, the replica that peer asks first for the ` +
        `shard it lacks, SIGSTOPped ${h.stallMs} ms every ${h.periodMs} ms. CPU/query: all server processes. ` +
        '÷ off: divided by the "stalls, fan-out off" row.\n',
    );
    const off = hedged.runs.find((run) => run.stalls && run.factor === 0 && run.delayMs === 0);
    console.log(
      table(
        [
          'slowed replica',
          'fan-out',
          'stalls',
          'QPS',
          'p50 ms',
          'p99 ms',
          'max ms',
          'CPU/query ms',
          'p50 ÷ off',
          'p99 ÷ off',
        ],
        hedged.runs.map((run) => [
          run.stalls ? 'stalls' : 'none',
          run.factor > 0 ? `factor ${run.factor}` : run.delayMs > 0 ? `delay ${run.delayMs} ms` : 'off',
          run.stallCount,
          Math.round(run.qps),
          run.p50.toFixed(2),
          run.p99.toFixed(2),
          run.max.toFixed(1),
          run.cpuPerQuery.toFixed(2),
          ratio(run.p50, off?.p50),
          ratio(run.p99, off?.p99),
        ]),
      ),
    );
  }
  const problems = results.flatMap((r) => r.problems.map((p) => `${r.name}: ${p}`));
  if (problems.length > 0) console.log(`\nProblems:\n${problems.map((p) => `- ${p}`).join('\n')}`);
  // Other work on the machine shifts every row: the 1-minute load average says whether there was any.
  console.log(
    `\nbench:cluster took ${((performance.now() - began) / 1000).toFixed(0)} s; 1-minute load average ` +
      `${loadAtStart.toFixed(1)} at the start, ${loadavg()[0].toFixed(1)} at the end (${availableParallelism()} cores)`,
  );
}

for (const [signal, code] of [
  ['SIGINT', 130],
  ['SIGTERM', 143],
] as const) {
  process.once(signal, () => {
    process.stderr.write(`\n${signal}: stopping servers and etcd\n`);
    thawAll();
    void stopAll().finally(() => process.exit(code));
  });
}

main().catch(async (error: unknown) => {
  console.error(error);
  thawAll();
  await stopAll();
  process.exit(1);
});
