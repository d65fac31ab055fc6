// npm run bench:pgvector — issue 12's peer on this machine: PostgreSQL 15 + pgvector, with bench/server/run.ts's
// data and queries (Gaussian mixture, 128-d, Euclid; point i is id i + 1, tag t${i % 10}; filtered: tag 't0',
// 10%). It starts its own cluster in a temporary folder, loads it with COPY, builds HNSW m=16, ef_construction=100
// with parallel maintenance workers, then sweeps hnsw.ef_search with 1 and 8 clients (node `pg`, a connection
// each), plain and filtered (hnsw.iterative_scan). Columns: recall@10 against brute force, QPS, p50/p99, CPU per
// query of postgres (all its processes) and of the client (this process), and the cores other jobs kept busy.
// BENCH_PG_COMPARE=1 also loads our server as run.ts does, measures each configuration on both back to back,
// and gives vectorstore ÷ pgvector at the nearest recall (docs/benchmarks-pgvector.md).
// Env: BENCH_POINTS (100000), BENCH_QUERIES (2000 per run), BENCH_PG_EF (40,64,100,200), BENCH_REPEATS (1),
// BENCH_PG_BUILD_WORKERS (2), BENCH_PG_ITERATIVE (relaxed_order), BENCH_PG_PARAM (binary|text),
// BENCH_PG_TCP=1 (connect over 127.0.0.1 instead of the unix socket), BENCH_PG_CLIENT (our server's clients in
// compare mode, comma-separated, each measured right after pgvector on every configuration: raw (lean grpc-js,
// Search; the default), raw-query (lean grpc-js, Query), official (@qdrant/js-client-grpc), rest (lean node:http
// keep-alive, POST …/points/query), rest-official (@qdrant/js-client-rest)), PG_BIN (/usr/lib/postgresql/15/bin).
import { closeSync, openSync, rmSync, writeSync } from 'node:fs';
import { availableParallelism, cpus } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { RunningServer, startServer } from '../../test/e2e/support/server-harness';
import { Dataset, gaussianMixture } from '../engine/datasets';
import { table } from '../engine/report';
import {
  officialClient,
  processCpuMs,
  rawClient,
  rawQueryClient,
  SearchClient,
  SearchOptions,
  TAG_MATCH,
} from './clients';
import { loadBenchCollection } from './load-server';
import { exactTruth, measure, MeasureOptions, progress, Run } from './measure';
import { PgCluster, postgresCpuMs, postgresMissing, startCluster } from './pg-cluster';
import { leanRestClient, officialRestClient } from './rest-clients';

const env = (name: string, fallback: string) => process.env[name] ?? fallback;
const POINTS = Number(env('BENCH_POINTS', '100000'));
const QUERIES = Number(env('BENCH_QUERIES', '2000'));
const EF_SEARCH = env('BENCH_PG_EF', '40,64,100,200').split(',').map(Number);
const REPEATS = Number(env('BENCH_REPEATS', '1'));
const BUILD_WORKERS = Number(env('BENCH_PG_BUILD_WORKERS', '2'));
const ITERATIVE = env('BENCH_PG_ITERATIVE', 'relaxed_order');
const BINARY_PARAM = env('BENCH_PG_PARAM', 'binary') === 'binary';
const TCP = process.env.BENCH_PG_TCP === '1';
const COMPARE = process.env.BENCH_PG_COMPARE === '1';
const SERVER_CLIENT_KINDS = env('BENCH_PG_CLIENT', 'raw')
  .split(',')
  .filter((kind) => kind !== '');
type ServerClientKind = 'raw' | 'raw-query' | 'official' | 'rest' | 'rest-official';
/** Our server's clients in compare mode, by BENCH_PG_CLIENT: what they are, and how one is made. */
const SERVER_CLIENTS: Record<ServerClientKind, [string, (server: RunningServer, o: SearchOptions) => SearchClient]> = {
  raw: ['lean grpc-js client, Search', (s, o) => rawClient(s.grpcAddress, s.apiKey, o)],
  'raw-query': ['lean grpc-js client, Query', (s, o) => rawQueryClient(s.grpcAddress, s.apiKey, o)],
  official: ['official @qdrant/js-client-grpc', (s, o) => officialClient(s.grpcPort, s.apiKey, o)],
  rest: ['lean node:http keep-alive client, REST …/points/query', (s, o) => leanRestClient(s.httpUrl, s.apiKey, o)],
  'rest-official': [
    'official @qdrant/js-client-rest, …/points/query',
    (s, o) => officialRestClient(s.httpUrl, s.apiKey, o),
  ],
};
const PG_BIN = env('PG_BIN', '/usr/lib/postgresql/15/bin');
const DIM = 128;
const K = 10;
const M = 16;
const EF_CONSTRUCT = 100;
const RUN: MeasureOptions = { queries: QUERIES, k: K, warmup: 50 };
const MODES = ['plain', 'filtered'] as const;
type Mode = (typeof MODES)[number];
const QUERY_TEXT: Record<Mode, string> = {
  plain: `SELECT id FROM items ORDER BY embedding <-> $1::vector LIMIT ${K}`,
  filtered: `SELECT id FROM items WHERE tag = '${TAG_MATCH}' ORDER BY embedding <-> $1::vector LIMIT ${K}`,
};

const SETTINGS = [
  'shared_buffers = 1GB', // holds table and index: searches never read from the OS cache
  'maintenance_work_mem = 1GB', // the whole graph is built in memory
  `max_parallel_maintenance_workers = ${BUILD_WORKERS}`,
  'fsync = off',
  'synchronous_commit = off',
  'full_page_writes = off',
  'autovacuum = off', // no background vacuum in the middle of a run; VACUUM ANALYZE is explicit
];

const INSTALL_HELP = `Build pgvector from source for PostgreSQL 15 (docs/benchmarks-pgvector.md):
  apt-get install postgresql-15 postgresql-server-dev-15
  cd <pgvector checkout, tag v0.8.x> && make PG_CONFIG=${PG_BIN}/pg_config && make PG_CONFIG=${PG_BIN}/pg_config install`;

/** pgvector's binary form (vector_recv): int16 dim, int16 unused, then float4 in network order. */
function vectorBinary(v: Float32Array): Buffer {
  const out = Buffer.allocUnsafe(4 + 4 * v.length);
  out.writeInt16BE(v.length, 0);
  out.writeInt16BE(0, 2);
  for (let j = 0; j < v.length; j++) out.writeFloatBE(v[j], 4 + 4 * j);
  return out;
}

/** A file for COPY ... (FORMAT binary): rows (id integer, tag text, embedding vector), floats exact. */
function writeCopyFile(path: string, ds: Dataset): void {
  const fd = openSync(path, 'wx'); // a fresh file: never through a link someone placed there
  writeSync(fd, Buffer.concat([Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1'), Buffer.alloc(8)])); // signature, flags, ext
  for (let i = 0; i < ds.n; i++) {
    const tag = Buffer.from(`t${i % 10}`);
    const vector = vectorBinary(ds.base.subarray(i * DIM, (i + 1) * DIM));
    const row = Buffer.allocUnsafe(2 + 8 + 4 + tag.length + 4 + vector.length);
    let at = row.writeInt16BE(3, 0);
    at = row.writeInt32BE(i + 1, row.writeInt32BE(4, at));
    at = row.writeInt32BE(tag.length, at);
    at += tag.copy(row, at);
    vector.copy(row, row.writeInt32BE(vector.length, at));
    writeSync(fd, row);
  }
  writeSync(fd, Buffer.from([0xff, 0xff])); // trailer: field count -1
  closeSync(fd);
}

async function connect(cluster: PgCluster): Promise<Client> {
  const client = new Client({
    host: cluster.host,
    port: cluster.port,
    user: 'postgres',
    password: cluster.password,
    database: 'postgres',
  });
  await client.connect();
  return client;
}

/** Loads the table with COPY and builds the index; returns the notes the table prints. */
async function loadAndIndex(cluster: PgCluster, ds: Dataset, admin: Client): Promise<string> {
  await admin.query('CREATE EXTENSION vector');
  const version = (
    await admin.query<{ v: string }>(`SELECT extversion AS v FROM pg_extension WHERE extname = 'vector'`)
  ).rows[0].v;
  await admin.query(`CREATE TABLE items (id integer, tag text, embedding vector(${DIM}))`);
  const file = join(cluster.dir, 'points.copy');
  writeCopyFile(file, ds);
  let start = performance.now();
  await admin.query(`COPY items FROM '${file}' WITH (FORMAT binary)`);
  const copySeconds = (performance.now() - start) / 1000;
  rmSync(file);
  // pgvector says at DEBUG1 how many workers it launched; the leader builds too.
  const messages: string[] = [];
  admin.on('notice', (notice) => messages.push(notice.message ?? ''));
  await admin.query('SET client_min_messages = debug1');
  progress('pgvector: build HNSW', 0, 1);
  const cpu0 = postgresCpuMs(cluster.postmaster);
  start = performance.now();
  await admin.query(
    `CREATE INDEX items_embedding_idx ON items USING hnsw (embedding vector_l2_ops) WITH (m = ${M}, ef_construction = ${EF_CONSTRUCT})`,
  );
  const buildSeconds = (performance.now() - start) / 1000;
  const buildCpu = (postgresCpuMs(cluster.postmaster) - cpu0) / 1000;
  progress('pgvector: build HNSW', 1, 1);
  await admin.query('RESET client_min_messages');
  await admin.query('VACUUM ANALYZE items');
  await admin.query('CREATE EXTENSION pg_prewarm');
  await admin.query(`SELECT pg_prewarm('items'), pg_prewarm('items_embedding_idx')`);
  const size = (await admin.query<{ s: string }>(`SELECT pg_size_pretty(pg_relation_size('items_embedding_idx')) s`))
    .rows[0].s;
  const workers = messages.find((m) => m.startsWith('using ')) ?? 'no parallel workers';
  return (
    `pgvector ${version}; COPY ${copySeconds.toFixed(1)} s; CREATE INDEX ${buildSeconds.toFixed(1)} s ` +
    `(${buildCpu.toFixed(1)} s postgres CPU, max_parallel_maintenance_workers=${BUILD_WORKERS}: ${workers}, plus the leader); index ${size}.`
  );
}

/** The planner must walk the HNSW index for both queries, else the bench measures something else. */
async function checkPlans(admin: Client, ds: Dataset): Promise<void> {
  const literal = `'[${Array.from(ds.queries.subarray(0, DIM)).join(',')}]'`;
  for (const mode of MODES) {
    const plan = await admin.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${QUERY_TEXT[mode].replace('$1', literal)}`);
    const text = plan.rows.map((r) => r['QUERY PLAN']).join('\n');
    if (!text.includes('Index Scan using items_embedding_idx')) throw new Error(`${mode}: not an HNSW scan:\n${text}`);
  }
}

interface Measured {
  /** 'pgvector', or 'vectorstore (<client kind>)'. */
  who: string;
  mode: Mode;
  ef: number;
  clients: number;
  repeat: number;
  run: Run;
}

/** A system under test, set up and loaded: clients for one configuration, its CPU clock, its shutdown. */
interface Peer {
  who: Measured['who'];
  /** `search` answers dataset indexes; `done` releases what `clients` opened. */
  clients(ef: number, mode: Mode, concurrency: number): Promise<{ search: Search; done(): void }>;
  cpuMs(): number;
  close(): Promise<void>;
}
type Search = (worker: number, query: number) => Promise<number[]>;

async function openPgvector(ds: Dataset, notes: string[]): Promise<Peer> {
  const cluster = await startCluster(PG_BIN, SETTINGS, TCP);
  const stopOnExit = () => cluster.stop();
  process.once('exit', stopOnExit);
  const connections: Client[] = [];
  const close = async () => {
    await Promise.all(connections.map((c) => c.end()));
    cluster.stop();
    process.off('exit', stopOnExit);
  };
  try {
    const admin = await connect(cluster);
    connections.push(admin);
    notes.push(await loadAndIndex(cluster, ds, admin));
    await checkPlans(admin, ds);
    const params = Array.from({ length: QUERIES }, (_, q) => {
      const v = ds.queries.subarray(q * DIM, (q + 1) * DIM);
      return BINARY_PARAM ? vectorBinary(v) : `[${Array.from(v).join(',')}]`;
    });
    for (let i = 0; i < 8; i++) connections.push(await connect(cluster));
    const searchers = connections.slice(1);
    // Only a filtered search can run out of results; a plain one never iterates.
    for (const c of searchers) await c.query(`SET hnsw.iterative_scan = ${ITERATIVE}`);
    let currentEf = 0;
    return {
      who: 'pgvector',
      async clients(ef, mode) {
        if (ef !== currentEf) for (const c of searchers) await c.query(`SET hnsw.ef_search = ${ef}`);
        currentEf = ef;
        const search = async (w: number, q: number) => {
          const res = await searchers[w].query<[number]>({
            name: mode, // prepared once per connection, then bind + execute
            text: QUERY_TEXT[mode],
            values: [params[q]],
            rowMode: 'array',
          });
          return res.rows.map((row) => row[0] - 1);
        };
        return { search, done: () => undefined };
      },
      cpuMs: () => postgresCpuMs(cluster.postmaster),
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

/** Our server, loaded once; a peer per client kind, all measuring the same server. */
async function openVectorstore(ds: Dataset, notes: string[]): Promise<Peer[]> {
  const server = await startServer({ env: { VECTORSTORE_LOG_LEVEL: 'error' } });
  // a child outlives process.exit: killed at exit unless stopped before
  const killOnExit = () => process.kill(server.pid, 'SIGKILL');
  process.once('exit', killOnExit);
  const stop = async () => {
    process.off('exit', killOnExit);
    await server.stop();
    rmSync(server.dataDir, { recursive: true, force: true });
  };
  try {
    const load = await loadBenchCollection(server, ds, { m: M, efConstruct: EF_CONSTRUCT, fullScanThreshold: 10_000 });
    const kinds = SERVER_CLIENT_KINDS as ServerClientKind[];
    notes.push(
      `vectorstore: upload ${load.loadSeconds.toFixed(1)} s, index ${load.indexSeconds.toFixed(1)} s; ` +
        'a filtered search whose 10% hold less than full_scan_threshold scans them exactly (recall 1, ef unused). ' +
        `Its clients: ${kinds.map((kind) => `${kind} = ${SERVER_CLIENTS[kind][0]}`).join('; ')}.`,
    );
    const queries = Array.from({ length: QUERIES }, (_, q) => Array.from(ds.queries.subarray(q * DIM, (q + 1) * DIM)));
    let open = kinds.length;
    return await Promise.all(
      kinds.map(async (kind): Promise<Peer> => {
        const make = (ef: number) => SERVER_CLIENTS[kind][1](server, { limit: K, ef });
        // run.ts found the first measured run paying for the server's JIT: warm both paths first.
        const warm = make(EF_SEARCH[0]);
        for (let q = 0; q < 600; q++) await warm.search(queries[q % QUERIES], q % 2 === 1);
        warm.close();
        return {
          who: `vectorstore (${kind})`,
          async clients(ef, mode, concurrency) {
            const clients = Array.from({ length: concurrency }, () => make(ef));
            const search = async (w: number, q: number) =>
              (await clients[w].search(queries[q], mode === 'filtered')).map((id) => id - 1);
            return { search, done: () => clients.forEach((c) => c.close()) };
          },
          cpuMs: () => processCpuMs(server.pid),
          // the server stops when the last of its peers is closed
          close: async () => {
            if (--open === 0) await stop();
          },
        };
      }),
    );
  } catch (error) {
    await stop();
    throw error;
  }
}

/**
 * Each configuration is measured on every peer back to back, so that load from other jobs on the shared
 * machine falls on both sides of a ratio alike.
 */
async function sweep(peers: Peer[], truth: Record<Mode, Uint32Array>): Promise<Measured[]> {
  const results: Measured[] = [];
  for (let repeat = 1; repeat <= REPEATS; repeat++) {
    for (const ef of EF_SEARCH) {
      for (const mode of MODES) {
        for (const concurrency of [1, 8]) {
          for (const peer of peers) {
            const { search, done } = await peer.clients(ef, mode, concurrency);
            const label = `${peer.who} ${mode} ef=${ef} ×${concurrency}`;
            const run = await measure(label, concurrency, search, truth[mode], () => peer.cpuMs(), RUN);
            done();
            results.push({ who: peer.who, mode, ef, clients: concurrency, repeat, run });
          }
        }
      }
    }
  }
  return results;
}

/**
 * vectorstore QPS ÷ the QPS of the pgvector run (same mode, clients, repeat) whose recall is nearest, and that
 * run's CPU per query ÷ ours (less swayed by other jobs than QPS).
 */
function ratio(row: Measured, all: Measured[]): string[] {
  if (row.who === 'pgvector') return ['', ''];
  const peers = all.filter(
    (p) => p.who === 'pgvector' && p.mode === row.mode && p.clients === row.clients && p.repeat === row.repeat,
  );
  if (peers.length === 0) return ['', ''];
  // nearest recall; of equally near ones, the fastest
  const gap = (p: Measured) => Math.abs(p.run.recall - row.run.recall);
  const near = peers.reduce((a, b) => (gap(b) < gap(a) || (gap(b) === gap(a) && b.run.qps > a.run.qps) ? b : a));
  return [
    `${(row.run.qps / near.run.qps).toFixed(2)}× (pg ef=${near.ef}, ${near.run.recall.toFixed(3)})`,
    `${(near.run.cpuPerQuery / row.run.cpuPerQuery).toFixed(2)}×`,
  ];
}

async function main(): Promise<void> {
  const unknown = SERVER_CLIENT_KINDS.filter((kind) => !(kind in SERVER_CLIENTS));
  if (unknown.length > 0 || SERVER_CLIENT_KINDS.length === 0) {
    console.error(`BENCH_PG_CLIENT: unknown ${unknown.join(', ')} (known: ${Object.keys(SERVER_CLIENTS).join(', ')})`);
    process.exit(2);
  }
  const missing = postgresMissing(PG_BIN, 'vector');
  if (missing) {
    console.error(`pgvector bench: ${missing} (PG_BIN=${PG_BIN}).\n${INSTALL_HELP}`);
    process.exit(2);
  }
  // the peers' exit handlers stop the cluster and kill our server; a signal would skip them
  for (const [signal, code] of [
    ['SIGINT', 130],
    ['SIGTERM', 143],
    ['SIGHUP', 129],
  ] as const)
    process.once(signal, () => process.exit(code));
  const ds = gaussianMixture(POINTS, QUERIES, DIM);
  const truth = exactTruth(ds.base, ds.queries, DIM, K, (i) => `t${i % 10}` === TAG_MATCH);
  const notes: string[] = [];
  const peers: Peer[] = [await openPgvector(ds, notes)];
  let results: Measured[];
  try {
    if (COMPARE) peers.push(...(await openVectorstore(ds, notes)));
    results = await sweep(peers, truth);
  } finally {
    // every peer is closed even if one fails to (reported, without hiding the run's own error)
    for (const closed of await Promise.allSettled(peers.map((peer) => peer.close())))
      if (closed.status === 'rejected') console.error('pgvector bench: closing a peer failed:', closed.reason);
  }
  const rows = [...results]
    .sort((a, b) => MODES.indexOf(a.mode) - MODES.indexOf(b.mode) || a.clients - b.clients || a.ef - b.ef)
    .map((r) => [
      r.mode,
      r.who,
      r.clients,
      r.ef,
      r.repeat,
      r.run.recall.toFixed(3),
      Math.round(r.run.qps),
      r.run.p50.toFixed(2),
      r.run.p99.toFixed(2),
      r.run.cpuPerQuery.toFixed(3),
      r.run.clientCpuPerQuery.toFixed(3),
      r.run.otherCores.toFixed(2),
      ...(COMPARE ? ratio(r, results) : []),
    ]);
  console.log(
    `\npgvector${COMPARE ? ' vs vectorstore' : ''} — ${POINTS} × ${DIM}-d (Gaussian mixture, Euclid), m=${M}, ` +
      `ef_construction=${EF_CONSTRUCT}, top-${K}, ${QUERIES} queries per run; filtered: tag = '${TAG_MATCH}' (10%), ` +
      `hnsw.iterative_scan = ${ITERATIVE}; query vector as a ${BINARY_PARAM ? 'binary' : 'text'} parameter of a ` +
      `prepared statement over ${TCP ? 'TCP 127.0.0.1' : 'the unix socket'}; ` +
      `${cpus()[0]?.model ?? 'cpu'} × ${availableParallelism()}, Node ${process.version}\n`,
  );
  console.log(notes.join('\n'));
  console.log(
    'CPU/query: pgvector, all postgres processes; vectorstore, the server process (utime + stime, /proc). ' +
      "Client CPU/query: this bench process (the pg client, or our server's gRPC or REST client), which shares the machine with the server. " +
      "Others' cores: what other jobs kept busy meanwhile (/proc/stat), the run's noise.\n",
  );
  const headers =
    "search|who|clients|ef|run|recall@10|QPS|p50 ms|p99 ms|CPU/query ms|client CPU/query ms|others' cores";
  const compared = COMPARE ? '|QPS ÷ pgvector at nearest recall|its CPU/query ÷ ours' : '';
  console.log(table((headers + compared).split('|'), rows));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
