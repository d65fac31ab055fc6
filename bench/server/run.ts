// npm run bench:server — what the server costs on top of the engine. The same points (Gaussian mixture,
// 128-d, Euclid) and the same queries at the same ef, searched: in-process through libs/engine ("engine
// alone"), and through a server child process over gRPC with the official @qdrant/js-client-grpc and
// with a lean raw @grpc/grpc-js client (Search, and Query as REST's query), and over REST
// (`POST …/points/query`) with a lean node:http keep-alive client and the official @qdrant/js-client-rest;
// 1 and 8 concurrent clients; plain and filtered (a keyword
// payload field with a payload index, 10% of the points match). The filtered search runs twice: under
// the default full_scan_threshold (10 000 KB), which scans the 10% exactly as Qdrant does, and as
// "filtered-graph" with the threshold lowered (UpdateCollection, as a user would) so the HNSW graph is
// walked with the filter, at BENCH_GRAPH_EF. Both sides build HNSW m=16,
// ef_construct=100; the server's points are bulk-loaded with indexing off, then indexed into one segment.
// Columns: recall@10 against exact brute force, QPS, p50/p99 latency, server CPU per query (from
// /proc/<pid>/stat, so whatever the client costs), the client's (this process's) CPU per query, the server's
// CPU per query ÷ that of the lean gRPC Query client in the same mode and clients, and server QPS ÷
// engine-alone QPS.
// Env: BENCH_POINTS (100000), BENCH_QUERIES (2000 per run), BENCH_EF (64), BENCH_GRAPH_EF (16: the ef of
// the filtered graph walk, the lowest at recall ≥ 0.99 here), BENCH_ON_DISK=1 (server keeps
// vectors on disk; the engine alone keeps them in memory), BENCH_SEARCH_OFFLOAD (auto, always or never: when
// the server searches on worker threads), BENCH_MODES (plain,filtered,filtered-graph) and BENCH_CLIENTS
// (official,raw,raw-query,rest,rest-official) to run a part only, e.g. for a profile of one kind of search.
// BENCH_PROFILE=1 runs the server under --cpu-prof (BENCH_PROFILE_INTERVAL µs, 250) and prints, per measured
// run, the main thread's self time by stage of a request in µs per query (profile-summary.ts); it defaults
// BENCH_MODES to plain and BENCH_CLIENTS to raw-query,rest. The profiler costs the server CPU: read that table
// for where the time goes, the others from a run without it.
import * as grpc from '@grpc/grpc-js';
import { VectorIndex } from '@vectorstore/engine';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer } from '../../test/e2e/support/server-harness';
import { Dataset, gaussianMixture } from '../engine/datasets';
import { table } from '../engine/report';
import {
  officialClient,
  processCpuMs,
  RawClient,
  rawClient,
  rawQueryClient,
  residentBytes,
  threadCpuMs,
  SearchClient,
  SearchOptions,
  TAG_MATCH,
} from './clients';
import { loadBenchCollection } from './load-server';
import { measure, MeasureOptions, progress, Run } from './measure';
import { loadProfile, profilesOf, selfTimes, stageTable, stageTimes, topFunctions } from './profile-summary';
import { leanRestClient, officialRestClient } from './rest-clients';

const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const POINTS = env('BENCH_POINTS', 100_000);
const QUERIES = env('BENCH_QUERIES', 2_000);
const EF = env('BENCH_EF', 64);
const ON_DISK = process.env.BENCH_ON_DISK === '1';
const DIM = 128;
const K = 10;
const M = 16;
const EF_CONSTRUCT = 100;
const FULL_SCAN_THRESHOLD_KB = 10_000; // the server's default, given to the engine alone too
const GRAPH_EF = env('BENCH_GRAPH_EF', 16);
// filtered-graph: half the KB of vectors the 10% filter matches, so the graph is walked at any size
const GRAPH_THRESHOLD_KB = Math.max(1, Math.floor(((POINTS / 10) * DIM * 4) / 1024 / 2));
const UPLOAD_BATCH = 1_000;
const UPLOAD_CONCURRENCY = 4;
const WARMUP = 50; // queries per client before a measured run: its connection, the client's JIT
const MEASURE: MeasureOptions = { queries: QUERIES, k: K, warmup: WARMUP };
const SERVER_WARMUP = 600; // queries per client kind, plain and filtered alternating, before any run
type Mode = 'plain' | 'filtered' | 'filtered-graph';
const SEARCH: Record<Mode, SearchOptions> = {
  plain: { limit: K, ef: EF },
  filtered: { limit: K, ef: EF },
  'filtered-graph': { limit: K, ef: GRAPH_EF },
};
const PROFILE = process.env.BENCH_PROFILE === '1';
const PROFILE_INTERVAL_US = env('BENCH_PROFILE_INTERVAL', 250);
const list = (name: string, fallback: string) => (process.env[name] ?? fallback).split(',').filter((x) => x !== '');
const MODES = list('BENCH_MODES', PROFILE ? 'plain' : 'plain,filtered,filtered-graph') as Mode[];
const CLIENT_KINDS = list('BENCH_CLIENTS', PROFILE ? 'raw-query,rest' : 'official,raw,raw-query,rest,rest-official');
const KNOWN_CLIENTS = ['official', 'raw', 'raw-query', 'rest', 'rest-official'] as const;
type ClientKind = (typeof KNOWN_CLIENTS)[number];
/**
 * The row the server CPU ÷ gRPC column divides by: the lean gRPC client calling Query, as REST's query does (or,
 * when BENCH_CLIENTS leaves it out, calling Search).
 */
const REFERENCE_KIND: ClientKind = CLIENT_KINDS.includes('raw-query') ? 'raw-query' : 'raw';
for (const [name, values, known] of [
  ['BENCH_MODES', MODES, ['plain', 'filtered', 'filtered-graph']],
  ['BENCH_CLIENTS', CLIENT_KINDS, KNOWN_CLIENTS],
] as const) {
  const unknown = values.filter((v) => !(known as readonly string[]).includes(v));
  if (unknown.length > 0) throw new Error(`${name}: unknown ${unknown.join(', ')} (known: ${known.join(', ')})`);
}

/** Point `i` of the dataset is engine slot `i` and server point id `i + 1` with tag `t${i % 10}`. */
const tagged = (i: number) => `t${i % 10}` === TAG_MATCH;

/** Engine alone: build, exact ground truth (plain and filtered), and one single-threaded run of each mode. */
async function engineAlone(
  ds: Dataset,
  allowed: Uint8Array,
): Promise<{ truth: Record<Mode, Uint32Array>; runs: Record<Mode, Run> }> {
  progress('engine: build HNSW', 0, 1);
  const index = new VectorIndex({
    dim: DIM,
    distance: 'Euclid',
    m: M,
    efConstruct: EF_CONSTRUCT,
    fullScanThreshold: FULL_SCAN_THRESHOLD_KB,
    initialCapacity: ds.n,
    maxIndexingThreads: 2,
  });
  index.add(ds.base);
  progress('engine: build HNSW', 1, 1);
  const query = (q: number) => ds.queries.subarray(q * DIM, (q + 1) * DIM);
  const filteredTruth = new Uint32Array(QUERIES * K);
  const truth = { plain: new Uint32Array(QUERIES * K), filtered: filteredTruth, 'filtered-graph': filteredTruth };
  for (let q = 0; q < QUERIES; q++) {
    truth.plain.set(index.exactSearch(query(q), K).slots, q * K);
    filteredTruth.set(index.exactSearch(query(q), K, allowed).slots, q * K);
    if (q % 100 === 99) progress('engine: exact ground truth', q + 1, QUERIES);
  }
  // process.cpuUsage covers the bench process, which here does only the searches
  const ownCpuMs = () => {
    const { user, system } = process.cpuUsage();
    return (user + system) / 1000;
  };
  const runs = {
    plain: await measure(
      'engine alone, plain',
      1,
      (_, q) => index.search(query(q), { k: K, ef: EF }).slots,
      truth.plain,
      ownCpuMs,
      MEASURE,
    ),
    filtered: await measure(
      'engine alone, filtered',
      1,
      (_, q) => index.search(query(q), { k: K, ef: EF, allowed }).slots,
      truth.filtered,
      ownCpuMs,
      MEASURE,
    ),
    'filtered-graph': await measure(
      'engine alone, filtered graph',
      1,
      (_, q) => index.search(query(q), { k: K, ef: GRAPH_EF, allowed, fullScanThreshold: GRAPH_THRESHOLD_KB }).slots,
      truth.filtered,
      ownCpuMs,
      MEASURE,
    ),
  };
  await index.dispose();
  return { truth, runs };
}

async function main(): Promise<void> {
  const ds = gaussianMixture(POINTS, QUERIES, DIM);
  const queries = Array.from({ length: QUERIES }, (_, q) => Array.from(ds.queries.subarray(q * DIM, (q + 1) * DIM)));
  const allowed = new Uint8Array(Math.ceil(POINTS / 8));
  for (let i = 0; i < POINTS; i++) if (tagged(i)) allowed[i >> 3] |= 1 << (i & 7);
  const engine = await engineAlone(ds, allowed);

  // BENCH_SERVER_NODE_ARGS go to the server's node only, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof" for a profile.
  const nodeArgs = (process.env.BENCH_SERVER_NODE_ARGS ?? '').split(' ').filter((arg) => arg !== '');
  const profileDir = PROFILE ? mkdtempSync(join(tmpdir(), 'vectorstore-rest-prof-')) : undefined;
  if (profileDir)
    nodeArgs.push('--cpu-prof', `--cpu-prof-dir=${profileDir}`, `--cpu-prof-interval=${PROFILE_INTERVAL_US}`);
  // BENCH_SEARCH_OFFLOAD=auto|always|never compares the server's search paths (see docs/performance.md).
  const offload = process.env.BENCH_SEARCH_OFFLOAD;
  const server = await startServer({
    env: { VECTORSTORE_LOG_LEVEL: 'error', ...(offload ? { VECTORSTORE_TEST_SEARCH_OFFLOAD: offload } : {}) },
    nodeArgs,
  });
  const measured: { mode: Mode; kind: ClientKind; who: string; clients: number; run: Run }[] = [];
  let notes = '';
  try {
    const { loadSeconds, indexSeconds, segments } = await loadBenchCollection(server, ds, {
      m: M,
      efConstruct: EF_CONSTRUCT,
      fullScanThreshold: FULL_SCAN_THRESHOLD_KB,
      onDisk: ON_DISK,
      batch: UPLOAD_BATCH,
      concurrency: UPLOAD_CONCURRENCY,
    });
    const idleRss = residentBytes(server.pid);
    const metadata = new grpc.Metadata();
    metadata.set('api-key', server.apiKey);
    const collections = new RawClient(server.grpcAddress, metadata, 'qdrant.Collections');

    const serverCpuMs = () => processCpuMs(server.pid);
    const allMakers: Record<ClientKind, [string, (options: SearchOptions) => SearchClient]> = {
      official: [
        'official @qdrant/js-client-grpc',
        (options) => officialClient(server.grpcPort, server.apiKey, options),
      ],
      raw: ['raw @grpc/grpc-js', (options) => rawClient(server.grpcAddress, server.apiKey, options)],
      'raw-query': [
        'raw @grpc/grpc-js, Query',
        (options) => rawQueryClient(server.grpcAddress, server.apiKey, options),
      ],
      rest: ['REST, lean node:http', (options) => leanRestClient(server.httpUrl, server.apiKey, options)],
      'rest-official': [
        'REST, @qdrant/js-client-rest',
        (options) => officialRestClient(server.httpUrl, server.apiKey, options),
      ],
    };
    const makers = KNOWN_CLIENTS.filter((kind) => CLIENT_KINDS.includes(kind)).map(
      (kind) => [kind, ...allMakers[kind]] as const,
    );
    // The first measured run paid for the server's JIT and the indexing garbage (seen as ~50% more CPU
    // per query than the same run placed later), so the plain and filtered paths are warmed before any is
    // measured (the filtered walk, by its runs' own WARMUP queries).
    for (const [kind, , make] of makers) {
      const client = make(SEARCH.plain);
      for (let q = 0; q < SERVER_WARMUP; q++) await client.search(queries[q % QUERIES], q % 2 === 1);
      client.close();
      progress(`server warm-up, ${kind}`, 1, 1);
    }
    const setThreshold = (kb: number) =>
      collections.unary('Update', { collectionName: 'bench', hnswConfig: { fullScanThreshold: kb } });
    for (const mode of MODES) {
      if (mode === 'filtered-graph') await setThreshold(GRAPH_THRESHOLD_KB);
      for (const [kind, who, make] of makers) {
        for (const concurrency of [1, 8]) {
          const clients = Array.from({ length: concurrency }, () => make(SEARCH[mode]));
          const run = await measure(
            `${mode} ${kind} ×${concurrency}`,
            concurrency,
            async (w, q) => (await clients[w].search(queries[q], mode !== 'plain')).map((id) => id - 1),
            engine.truth[mode],
            serverCpuMs,
            { ...MEASURE, clocks: { mainThread: () => threadCpuMs(server.pid) } },
          );
          for (const client of clients) client.close();
          measured.push({ mode, kind, who, clients: concurrency, run });
        }
      }
      if (mode === 'filtered-graph') await setThreshold(FULL_SCAN_THRESHOLD_KB); // for any mode after it
    }
    collections.close();
    const matchingKb = (POINTS / 10) * DIM * 4;
    notes = [
      `upload ${Math.round(POINTS / loadSeconds)} points/s (batches of ${UPLOAD_BATCH}, ${UPLOAD_CONCURRENCY} clients, indexing off); ` +
        `index to Green ${indexSeconds.toFixed(1)} s; segments: ` +
        segments
          .map((s) => `${s.segment_type}${s.is_appendable ? ' appendable' : ''} ${s.num_points} points`)
          .join(', ') +
        `; server RSS ${(idleRss / 2 ** 20).toFixed(0)} MiB indexed, ${(residentBytes(server.pid) / 2 ** 20).toFixed(0)} MiB after the searches.`,
      matchingKb / 1024 < FULL_SCAN_THRESHOLD_KB
        ? `Filtered: the 10% that match hold ${(matchingKb / 2 ** 20).toFixed(1)} MiB of vectors, under full_scan_threshold ` +
          `(${FULL_SCAN_THRESHOLD_KB} KB), so engine and server both scan them exactly instead of walking the graph (as Qdrant does).`
        : 'Filtered: the graph is walked with the filter applied.',
      MODES.includes('filtered-graph')
        ? `Filtered, graph: full_scan_threshold set to ${GRAPH_THRESHOLD_KB} KB (UpdateCollection; the engine alone ` +
          `gets it per search), so the 10% are found by walking the graph with the filter, at ef ${GRAPH_EF}.`
        : '',
    ]
      .filter((line) => line !== '')
      .join('\n');
  } catch (error) {
    // The server's own account (logs at error level, a crash) is what explains most failures here.
    const alive = existsSync(`/proc/${server.pid}`) ? 'still running' : 'gone';
    process.stderr.write(`\nserver pid ${server.pid} ${alive}; its output (tail):\n${server.output().slice(-4000)}\n`);
    throw error;
  } finally {
    await server.stop();
    rmSync(server.dataDir, { recursive: true, force: true }); // the harness leaves it
  }
  console.log(
    `\nvectorstore server vs engine alone — ${POINTS} × ${DIM}-d (Gaussian mixture, Euclid), m=${M}, ef_construct=${EF_CONSTRUCT}, ` +
      `ef=${EF}, top-${K}, ${QUERIES} queries per run, vectors ${ON_DISK ? 'on disk' : 'in memory'}; ` +
      `${cpus()[0]?.model ?? 'cpu'} × ${availableParallelism()}, Node ${process.version}\n`,
  );
  console.log(notes);
  const modeName = (mode: Mode) => (mode === 'filtered-graph' ? `filtered, graph ef ${GRAPH_EF}` : mode);
  const rows: (string | number)[][] = [];
  for (const mode of MODES) {
    const base = engine.runs[mode];
    const row = (who: string, clients: number, run: Run, cpuNote: string, vsGrpc: string) => [
      modeName(mode),
      who,
      clients,
      run.recall.toFixed(3),
      Math.round(run.qps),
      run.p50.toFixed(2),
      run.p99.toFixed(2),
      `${run.cpuPerQuery.toFixed(3)}${cpuNote}`,
      run.clientCpuPerQuery.toFixed(3),
      vsGrpc,
      `${(run.qps / base.qps).toFixed(2)}×`,
      run.otherCores.toFixed(2),
    ];
    // (its CPU clock and the client's are the same process here, so others' cores would be counted wrong)
    rows.push([...row('engine alone (in-process)', 1, base, ' (own)', '').slice(0, -1), '']);
    for (const m of measured.filter((x) => x.mode === mode)) {
      const reference = measured.find((x) => x.mode === mode && x.clients === m.clients && x.kind === REFERENCE_KIND);
      const vsGrpc = reference ? `${(m.run.cpuPerQuery / reference.run.cpuPerQuery).toFixed(2)}×` : '';
      rows.push(row(`server, ${m.who}`, m.clients, m.run, '', vsGrpc));
    }
  }
  console.log(
    'CPU/query: the server process (utime + stime from /proc, all threads, 10 ms ticks over the run); ' +
      'for the engine alone, the bench process itself. Client CPU/query: this bench process (the client; for ' +
      `the engine alone, the search itself). Server CPU ÷ gRPC: server CPU/query ÷ the ${REFERENCE_KIND} row's ` +
      `(lean grpc-js client calling ${REFERENCE_KIND === 'raw-query' ? 'Query' : 'Search'}, same search and clients). ` +
      "Others' cores: what other jobs kept busy meanwhile (/proc/stat), the run's noise.\n",
  );
  console.log(
    table(
      [
        'search',
        'who',
        'clients',
        'recall@10',
        'QPS',
        'p50 ms',
        'p99 ms',
        'CPU/query ms',
        'client CPU/query ms',
        'server CPU ÷ gRPC',
        'QPS ÷ engine alone',
        "others' cores",
      ],
      rows,
    ),
  );
  if (profileDir) printProfile(profileDir, server.pid, measured);
}

/**
 * The stage table of every measured run from the server's CPU profiles (BENCH_PROFILE=1): the main thread's self
 * time by stage in µs per query, its busy total beside the server CPU per query /proc measured (the profiler's
 * cost included), the other threads' busy time, and the main thread's top functions in the first REST run.
 */
function printProfile(dir: string, pid: number, runs: { mode: Mode; kind: ClientKind; clients: number; run: Run }[]) {
  const files = profilesOf(dir, pid);
  if (files.length === 0 || files[0].thread !== 0) {
    console.log(`\nno CPU profile of the server's main thread in ${dir} (did it exit cleanly?)`);
    return;
  }
  const main = loadProfile(files[0].file);
  const workers = files.slice(1).map((f) => loadProfile(f.file));
  const columns = runs.map(({ mode, kind, clients, run }) => {
    const self = selfTimes(main, run.window);
    return { label: `${mode} ${kind} ×${clients}`, ...stageTimes(main, self), queries: QUERIES, self };
  });
  const perQuery = (us: number) => (us / QUERIES).toFixed(0);
  const otherThreads = runs.map(({ run }) =>
    workers.reduce((sum, w) => sum + stageTimes(w, selfTimes(w, run.window)).busy, 0),
  );
  console.log(
    `\nWhere the server's main thread spends a query, by stage (--cpu-prof every ${PROFILE_INTERVAL_US} µs; self ` +
      "time of the innermost frame that names a stage; node's and V8's own frames count for the stage that called " +
      'them). The profiler samples wall time: where main thread busy exceeds its CPU from /proc, the thread was ' +
      'descheduled while inside a frame (other jobs, the client woken by a socket write) and that frame is ' +
      `overcounted; the profiler's own cost is in both. Profiles: ${dir} ` +
      '(npx tsx bench/server/profile-summary.ts <file> 40 --from=<µs> --to=<µs>).\n',
  );
  console.log(
    [
      stageTable(columns),
      `| other threads busy (workers, optimizer) | ${otherThreads.map(perQuery).join(' | ')} |`,
      `| main thread CPU/query from /proc | ${runs.map(({ run }) => (run.perQuery.mainThread * 1000).toFixed(0)).join(' | ')} |`,
      `| server CPU/query from /proc, all threads | ${runs.map(({ run }) => (run.cpuPerQuery * 1000).toFixed(0)).join(' | ')} |`,
    ].join('\n'),
  );
  const rest = columns.find((c) => c.label.includes(' rest'));
  if (rest) {
    console.log(`\nTop functions of the main thread, ${rest.label} (µs per query):\n`);
    console.log('| function | µs/query |\n|---|---:|');
    for (const [name, us] of topFunctions(main, rest.self, 30)) console.log(`| ${name} | ${perQuery(us)} |`);
  }
  console.log(
    `\nwindows (µs, CLOCK_MONOTONIC): ${runs.map((r, i) => `${columns[i].label} ${r.run.window.fromUs}-${r.run.window.toUs}`).join('; ')}`,
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
