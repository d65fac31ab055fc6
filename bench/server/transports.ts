// npm run bench:server, second part (bench/server/transports.ts): the same work over gRPC and REST on a
// real server on loopback: upsert points/s with the server's and the client's CPU per point (128-d, batches
// of 256, into collections with indexing off, so the optimizer's build is not in the upsert's CPU; the server's
// CPU counts until the last batch is applied) and search QPS with p50/p99 latency and server CPU per query for
// 1 and 8 concurrent clients, the same work on both transports, with a REST ÷ gRPC column; then how long a
// large REST answer (JSON encoding of thousands of vectors) holds up small searches sent meanwhile.
// Sizes via BENCH_POINTS (default 100000) and BENCH_QUERIES (default 2000 per client count);
// BENCH_ON_DISK=1 keeps vectors on disk. Also prints the server's resident memory after a restart.
import * as grpc from '@grpc/grpc-js';
import { readFileSync, rmSync } from 'node:fs';
import * as http from 'node:http';
import { availableParallelism, cpus } from 'node:os';
import { createCollectionsClient, createPointsClient, credentials, unary } from '../../test/e2e/support/grpc-clients';
import { RunningServer, startServer } from '../../test/e2e/support/server-harness';
import { Rng } from '../../test/support/seeded-random';
import { processCpuMs } from './clients';

const POINTS = Number(process.env.BENCH_POINTS ?? 100_000);
const QUERIES = Number(process.env.BENCH_QUERIES ?? 2_000);
/** BENCH_ON_DISK=1: vectors with on_disk (optimized segments keep originals in files, graph + int8 codes in memory). */
const ON_DISK = process.env.BENCH_ON_DISK === '1';
const DIM = 128;
const BATCH = 256;
const UPSERT_CONCURRENCY = 4;
/** The server's default indexing_threshold (KB), restored on `bench` after the uploads. */
const DEFAULT_INDEXING_THRESHOLD_KB = 20_000;

/** A clustered dataset: 64 Gaussian-ish centres, points near them. */
function vectorSource(seed: number): () => number[] {
  const rng = new Rng(seed);
  const centres = Array.from({ length: 64 }, () => Array.from({ length: DIM }, () => rng.float(-1, 1)));
  return () => {
    const c = rng.pick(centres);
    return c.map((x) => x + (rng.next() + rng.next() + rng.next() - 1.5) * 0.3);
  };
}

function progress(label: string, done: number, total: number): void {
  const width = 30;
  const filled = Math.round((done / total) * width);
  process.stderr.write(`\r${label.padEnd(22)} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total}`);
  if (done >= total) process.stderr.write('\n');
}

/** Resident set size of a process (Linux /proc). */
function residentBytes(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = /VmRSS:\s+(\d+) kB/.exec(status)?.[1];
  return kb ? Number(kb) * 1024 : NaN;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/** `a ÷ b` to two decimals. */
function ratio(a: number, b: number): string {
  return `${(a / b).toFixed(2)}×`;
}

/** Keep-alive connections for REST, as the gRPC clients keep their HTTP/2 connection. */
const restAgent = new http.Agent({ keepAlive: true, maxSockets: 16 });

/** One REST call (JSON body, the api key); fails loudly on a non-2xx answer; resolves to the answer's size. */
function rest(server: RunningServer, method: string, path: string, body?: unknown): Promise<number> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const request = http.request(
      `${server.httpUrl}${path}`,
      {
        method,
        agent: restAgent,
        headers: {
          'api-key': server.apiKey,
          ...(payload === undefined
            ? {}
            : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }),
        },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          const status = response.statusCode ?? 0;
          if (status < 200 || status > 299) reject(new Error(`${method} ${path} -> ${status} ${text.slice(0, 200)}`));
          else resolve(text.length);
        });
        response.on('error', reject);
      },
    );
    request.on('error', reject);
    request.end(payload);
  });
}

/** Sends POINTS in batches of BATCH from UPSERT_CONCURRENCY workers; resolves to the seconds taken. */
async function upsertAll(
  label: string,
  send: (worker: number, from: number, to: number) => Promise<unknown>,
): Promise<number> {
  const batches = Math.ceil(POINTS / BATCH);
  let sent = 0;
  let done = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: UPSERT_CONCURRENCY }, async (_, worker) => {
      for (;;) {
        const b = sent++;
        if (b >= batches) return;
        await send(worker, b * BATCH, Math.min(POINTS, (b + 1) * BATCH));
        done++;
        if (done % 20 === 0 || done === batches) progress(label, done, batches);
      }
    }),
  );
  return (performance.now() - started) / 1000;
}

/** QUERIES searches from `concurrency` workers: QPS and sorted latencies (ms). */
async function searchAll(
  label: string,
  concurrency: number,
  search: (worker: number, query: number) => Promise<unknown>,
  serverCpuMs: () => number,
): Promise<{ qps: number; latencies: number[]; serverCpuMs: number }> {
  const latencies: number[] = [];
  let q = 0;
  const cpu0 = serverCpuMs();
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async (_, worker) => {
      for (;;) {
        const i = q++;
        if (i >= QUERIES) return;
        const start = performance.now();
        await search(worker, i);
        latencies.push(performance.now() - start);
        if (latencies.length % 100 === 0) progress(label, latencies.length, QUERIES);
      }
    }),
  );
  const qps = QUERIES / ((performance.now() - t0) / 1000);
  const cpu = serverCpuMs() - cpu0;
  progress(label, QUERIES, QUERIES);
  latencies.sort((a, b) => a - b);
  return { qps, latencies, serverCpuMs: cpu / QUERIES };
}

/** An upload by upsertAll, then `settle` (a write with wait=true): seconds, and server and client CPU per point. */
async function upsertCost(
  server: RunningServer,
  label: string,
  send: (worker: number, from: number, to: number) => Promise<unknown>,
  settle: () => Promise<unknown>,
): Promise<{ seconds: number; appliedSeconds: number; serverUs: number; clientUs: number }> {
  const cpu0 = processCpuMs(server.pid);
  const client0 = process.cpuUsage();
  const t0 = performance.now();
  const seconds = await upsertAll(label, send);
  await settle();
  const appliedSeconds = (performance.now() - t0) / 1000;
  const serverUs = ((processCpuMs(server.pid) - cpu0) * 1000) / POINTS;
  const client = process.cpuUsage(client0);
  return { seconds, appliedSeconds, serverUs, clientUs: (client.user + client.system) / POINTS };
}

async function main(): Promise<void> {
  let server = await startServer({ env: { VECTORSTORE_LOG_LEVEL: 'error' } });
  const rows: string[][] = [];
  try {
    const metadata = credentials(server.apiKey);
    let collections = createCollectionsClient(server.grpcAddress, metadata);
    // Indexing off while uploading (both collections), so that the optimizer's HNSW build on worker threads
    // does not fall into either upload's server CPU; `bench` gets the default back afterwards.
    await unary(collections, 'Create', {
      collectionName: 'bench',
      vectorsConfig: { params: { size: DIM, distance: 'Cosine', onDisk: ON_DISK } },
      optimizersConfig: { indexingThreshold: 0 },
    });
    const next = vectorSource(7);

    // Upsert: the same points over gRPC (collection `bench`) and over REST (collection `bench_rest`). Server CPU
    // runs from the first batch until a last one-point upsert with wait=true is answered: writes apply in order,
    // so then every batch has been applied, not only logged.
    const data = Array.from({ length: POINTS }, () => next());
    const clients = Array.from({ length: UPSERT_CONCURRENCY }, () => createPointsClient(server.grpcAddress, metadata));
    const grpcPoint = (i: number) => ({
      id: { num: i + 1 },
      vectors: { vector: { dense: { data: data[i] } } },
      payload: { group: { integerValue: String(i % 10) } },
    });
    const grpcCost = await upsertCost(
      server,
      'upsert gRPC',
      async (worker, from, to) => {
        const points = [];
        for (let i = from; i < to; i++) points.push(grpcPoint(i));
        await unary(clients[worker], 'Upsert', { collectionName: 'bench', points, wait: false });
      },
      () => unary(clients[0], 'Upsert', { collectionName: 'bench', points: [grpcPoint(0)], wait: true }),
    );
    await rest(server, 'PUT', '/collections/bench_rest', {
      vectors: { size: DIM, distance: 'Cosine', on_disk: ON_DISK },
      optimizers_config: { indexing_threshold: 0 },
    });
    const restPoint = (i: number) => ({ id: i + 1, vector: data[i], payload: { group: i % 10 } });
    const restCost = await upsertCost(
      server,
      'upsert REST',
      async (_, from, to) => {
        const points = [];
        for (let i = from; i < to; i++) points.push(restPoint(i));
        await rest(server, 'PUT', '/collections/bench_rest/points', { points });
      },
      () => rest(server, 'PUT', '/collections/bench_rest/points?wait=true', { points: [restPoint(0)] }),
    );
    const grpcUpsert = grpcCost.seconds;
    const restUpsert = restCost.seconds;
    rows.push([
      `upsert ${POINTS} × ${DIM}-d, batch ${BATCH}, ${UPSERT_CONCURRENCY} clients`,
      `${Math.round(POINTS / grpcUpsert)} points/s`,
      `${Math.round(POINTS / restUpsert)} points/s`,
      ratio(grpcUpsert, restUpsert),
      `${grpcUpsert.toFixed(1)} s / ${restUpsert.toFixed(1)} s`,
    ]);
    rows.push([
      'upsert: server CPU per point (until applied)',
      `${grpcCost.serverUs.toFixed(1)} µs`,
      `${restCost.serverUs.toFixed(1)} µs`,
      ratio(restCost.serverUs, grpcCost.serverUs),
      `until applied ${grpcCost.appliedSeconds.toFixed(1)} s / ${restCost.appliedSeconds.toFixed(1)} s`,
    ]);
    rows.push([
      'upsert: client CPU per point (this process)',
      `${grpcCost.clientUs.toFixed(1)} µs`,
      `${restCost.clientUs.toFixed(1)} µs`,
      ratio(restCost.clientUs, grpcCost.clientUs),
      '',
    ]);
    await rest(server, 'DELETE', '/collections/bench_rest');
    await unary(collections, 'Update', {
      collectionName: 'bench',
      optimizersConfig: { indexingThreshold: DEFAULT_INDEXING_THRESHOLD_KB },
    });

    // Wait for the optimizer to index (status Green with indexed vectors).
    const indexStart = performance.now();
    for (;;) {
      const info = (
        await unary<object, { result: { status: string; indexedVectorsCount: string } }>(collections, 'Get', {
          collectionName: 'bench',
        })
      ).result;
      progress('indexing (optimizer)', Number(info.indexedVectorsCount), POINTS);
      if (info.status === 'Green') break;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    rows.push(['optimizer: index to Green', '', '', '', `${((performance.now() - indexStart) / 1000).toFixed(1)} s`]);
    // Memory of a fresh process that loaded the indexed segments (no garbage from the upserts).
    collections.close();
    server = await server.restart();
    collections = createCollectionsClient(server.grpcAddress, metadata);
    for (;;) {
      const info = (
        await unary<object, { result: { status: string } }>(collections, 'Get', { collectionName: 'bench' })
      ).result;
      if (info.status === 'Green' || info.status === 'Grey') break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    rows.push([
      'server resident memory after a restart',
      '',
      '',
      '',
      `${(residentBytes(server.pid) / 2 ** 20).toFixed(0)} MiB`,
    ]);

    // Search: the same queries over both transports, gRPC first.
    const queries = Array.from({ length: QUERIES }, () => next());
    for (const concurrency of [1, 8]) {
      const searchClients = Array.from({ length: concurrency }, () => createPointsClient(server.grpcAddress, metadata));
      const serverCpuMs = () => processCpuMs(server.pid);
      const grpcRun = await searchAll(
        `search gRPC ×${concurrency}`,
        concurrency,
        (worker, i) =>
          unary(searchClients[worker], 'Search', { collectionName: 'bench', vector: queries[i], limit: 10 }),
        serverCpuMs,
      );
      const restRun = await searchAll(
        `search REST ×${concurrency}`,
        concurrency,
        (_, i) => rest(server, 'POST', '/collections/bench/points/query', { query: queries[i], limit: 10 }),
        serverCpuMs,
      );
      rows.push([
        `search top-10, ${concurrency} client${concurrency > 1 ? 's' : ''}: QPS`,
        `${Math.round(grpcRun.qps)}`,
        `${Math.round(restRun.qps)}`,
        ratio(restRun.qps, grpcRun.qps),
        '',
      ]);
      rows.push([
        `search top-10, ${concurrency} client${concurrency > 1 ? 's' : ''}: server CPU/query`,
        `${grpcRun.serverCpuMs.toFixed(3)} ms`,
        `${restRun.serverCpuMs.toFixed(3)} ms`,
        ratio(restRun.serverCpuMs, grpcRun.serverCpuMs),
        'gRPC Search, REST …/points/query',
      ]);
      for (const p of [50, 99]) {
        const g = percentile(grpcRun.latencies, p);
        const r = percentile(restRun.latencies, p);
        rows.push([
          `search top-10, ${concurrency} client${concurrency > 1 ? 's' : ''}: p${p}`,
          `${g.toFixed(2)} ms`,
          `${r.toFixed(2)} ms`,
          ratio(r, g),
          '',
        ]);
      }
      for (const client of searchClients) client.close();
    }

    // A large REST answer: JSON for thousands of 128-d vectors, with small gRPC searches sent meanwhile.
    const probe = createPointsClient(server.grpcAddress, metadata);
    for (const limit of [1000, 5000]) {
      let stop = false;
      const stalls: number[] = [];
      const searching = (async () => {
        for (let i = 0; !stop; i++) {
          const start = performance.now();
          await unary(probe, 'Search', { collectionName: 'bench', vector: queries[i % QUERIES], limit: 10 });
          stalls.push(performance.now() - start);
        }
      })();
      await new Promise((resolve) => setTimeout(resolve, 50));
      const start = performance.now();
      const bytes = await rest(server, 'POST', '/collections/bench/points/scroll', { limit, with_vector: true });
      const took = performance.now() - start;
      stop = true;
      await searching;
      stalls.sort((a, b) => a - b);
      rows.push([
        `REST scroll ${limit} points with vectors (${(bytes / 2 ** 20).toFixed(1)} MiB JSON)`,
        '',
        `${took.toFixed(0)} ms`,
        '',
        `searches meanwhile: p50 ${percentile(stalls, 50).toFixed(1)} ms, max ${stalls[stalls.length - 1].toFixed(1)} ms`,
      ]);
    }
    probe.close();
    for (const client of clients) (client as grpc.Client).close();
    collections.close();
  } finally {
    restAgent.destroy();
    await server.stop();
    rmSync(server.dataDir, { recursive: true, force: true }); // the harness leaves it
  }
  console.log(
    `\nvectorstore server benchmark — ${POINTS} points, vectors ${ON_DISK ? 'on disk' : 'in memory'}, ${cpus()[0]?.model ?? 'cpu'} × ${availableParallelism()}, Node ${process.version}\n`,
  );
  console.log('| measurement | gRPC | REST | REST ÷ gRPC | notes |');
  console.log('|---|---|---|---|---|');
  for (const row of rows) console.log(`| ${row.join(' | ')} |`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
