// npm run bench:server — gRPC throughput of a real server on loopback: upsert points/s (128-d,
// batches of 256) and search QPS with p50/p99 latency for 1 and 8 concurrent clients.
// Sizes via BENCH_POINTS (default 100000) and BENCH_QUERIES (default 2000 per client count);
// BENCH_ON_DISK=1 keeps vectors on disk. Also prints the server's resident memory after a restart.
import * as grpc from '@grpc/grpc-js';
import { readFileSync } from 'node:fs';
import { availableParallelism, cpus } from 'node:os';
import { createCollectionsClient, createPointsClient, credentials, unary } from '../../test/e2e/support/grpc-clients';
import { startServer } from '../../test/e2e/support/server-harness';
import { Rng } from '../../test/support/seeded-random';

const POINTS = Number(process.env.BENCH_POINTS ?? 100_000);
const QUERIES = Number(process.env.BENCH_QUERIES ?? 2_000);
/** BENCH_ON_DISK=1: vectors with on_disk (optimized segments keep originals in files, graph + int8 codes in memory). */
const ON_DISK = process.env.BENCH_ON_DISK === '1';
const DIM = 128;
const BATCH = 256;
const UPSERT_CONCURRENCY = 4;

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

async function main(): Promise<void> {
  let server = await startServer({ env: { VECTORSTORE_LOG_LEVEL: 'error' } });
  const rows: string[][] = [];
  try {
    const metadata = credentials(server.apiKey);
    let collections = createCollectionsClient(server.grpcAddress, metadata);
    await unary(collections, 'Create', {
      collectionName: 'bench',
      vectorsConfig: { params: { size: DIM, distance: 'Cosine', onDisk: ON_DISK } },
    });
    const next = vectorSource(7);

    // Upsert
    const clients = Array.from({ length: UPSERT_CONCURRENCY }, () => createPointsClient(server.grpcAddress, metadata));
    const batches = Math.ceil(POINTS / BATCH);
    let sent = 0;
    let done = 0;
    const started = performance.now();
    await Promise.all(
      clients.map(async (client) => {
        for (;;) {
          const b = sent++;
          if (b >= batches) return;
          const points = [];
          for (let i = b * BATCH; i < Math.min(POINTS, (b + 1) * BATCH); i++) {
            points.push({
              id: { num: i + 1 },
              vectors: { vector: { dense: { data: next() } } },
              payload: { group: { integerValue: String(i % 10) } },
            });
          }
          await unary(client, 'Upsert', { collectionName: 'bench', points, wait: false });
          done++;
          if (done % 20 === 0 || done === batches) progress('upsert', done, batches);
        }
      }),
    );
    const upsertSeconds = (performance.now() - started) / 1000;
    rows.push([
      `upsert ${POINTS} × ${DIM}-d, batch ${BATCH}, ${UPSERT_CONCURRENCY} clients`,
      `${Math.round(POINTS / upsertSeconds)} points/s`,
      `${upsertSeconds.toFixed(1)} s total`,
      '',
    ]);

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
    rows.push(['optimizer: index to Green', `${((performance.now() - indexStart) / 1000).toFixed(1)} s`, '', '']);
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
      `${(residentBytes(server.pid) / 2 ** 20).toFixed(0)} MiB`,
      '',
      '',
    ]);

    // Search
    const queries = Array.from({ length: QUERIES }, () => next());
    for (const concurrency of [1, 8]) {
      const searchClients = Array.from({ length: concurrency }, () => createPointsClient(server.grpcAddress, metadata));
      const latencies: number[] = [];
      let q = 0;
      const t0 = performance.now();
      await Promise.all(
        searchClients.map(async (client) => {
          for (;;) {
            const i = q++;
            if (i >= QUERIES) return;
            const start = performance.now();
            await unary(client, 'Search', { collectionName: 'bench', vector: queries[i], limit: 10 });
            latencies.push(performance.now() - start);
            if (latencies.length % 100 === 0) progress(`search (${concurrency} clients)`, latencies.length, QUERIES);
          }
        }),
      );
      progress(`search (${concurrency} clients)`, QUERIES, QUERIES);
      const seconds = (performance.now() - t0) / 1000;
      latencies.sort((a, b) => a - b);
      rows.push([
        `search top-10, ${concurrency} client${concurrency > 1 ? 's' : ''}`,
        `${Math.round(QUERIES / seconds)} QPS`,
        `p50 ${percentile(latencies, 50).toFixed(2)} ms`,
        `p99 ${percentile(latencies, 99).toFixed(2)} ms`,
      ]);
      for (const client of searchClients) client.close();
    }
    for (const client of clients) (client as grpc.Client).close();
    collections.close();
  } finally {
    await server.stop();
  }
  console.log(
    `\nvectorstore server benchmark — ${POINTS} points, vectors ${ON_DISK ? 'on disk' : 'in memory'}, ${cpus()[0]?.model ?? 'cpu'} × ${availableParallelism()}, Node ${process.version}\n`,
  );
  console.log('| measurement | throughput | latency / time | |');
  console.log('|---|---|---|---|');
  for (const row of rows) console.log(`| ${row.join(' | ')} |`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
