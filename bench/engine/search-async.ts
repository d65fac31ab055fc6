// What a search on a worker thread (VectorIndex.searchAsync) costs the event loop, against `search` inline:
// main-thread busy time per query (event-loop utilization) and process CPU per query, 1 and 8 concurrent
// callers, a plain graph search (ef 64) and a filtered one (10% of the points allowed, scanned exactly as
// full_scan_threshold decides). The numbers behind search-offload.ts (see docs/performance.md).
// Env: BENCH_POINTS (100000), BENCH_QUERIES (3000).
//   npx tsx bench/engine/search-async.ts
import { VectorIndex } from '@vectorstore/engine';
import { performance } from 'node:perf_hooks';
import { gaussianMixture } from './datasets';

const N = Number(process.env.BENCH_POINTS ?? 100_000);
const Q = Number(process.env.BENCH_QUERIES ?? 3000);
const DIM = 128;

async function main(): Promise<void> {
  const data = gaussianMixture(N, 64, DIM);
  const queries = Array.from({ length: data.nq }, (_, i) => data.queries.subarray(i * DIM, (i + 1) * DIM));
  const index = new VectorIndex({ dim: DIM, distance: 'Euclid', m: 16, efConstruct: 100, maxIndexingThreads: 2 });
  index.add(data.base);
  const allowed = new Uint8Array(Math.ceil(N / 8));
  for (let slot = 0; slot < N; slot += 10) allowed[slot >> 3] |= 1 << (slot & 7);
  const kinds = { plain: {}, filtered: { allowed, fullScanThreshold: 10_000 } };
  console.log(`${N} × ${DIM}-d, ${Q} queries per row, one search worker\n`);
  console.log('| search | path | callers | QPS | main thread µs/query | process CPU µs/query |');
  console.log('|---|---|---:|---:|---:|---:|');
  for (const [kind, extra] of Object.entries(kinds)) {
    for (const path of ['inline', 'worker'] as const) {
      for (const callers of [1, 8]) {
        await index.searchAsync(queries[0], { k: 10, ef: 64 }); // workers started, heap sized
        const elu = performance.eventLoopUtilization();
        const cpu = process.cpuUsage();
        const start = performance.now();
        let next = 0;
        const caller = async (): Promise<void> => {
          while (next < Q) {
            const params = { k: 10, ef: 64, ...extra };
            const query = queries[next++ % queries.length];
            if (path === 'worker') await index.searchAsync(query, params);
            else {
              index.search(query, params);
              await new Promise(setImmediate); // as a server would, between requests
            }
          }
        };
        await Promise.all(Array.from({ length: callers }, caller));
        const ms = performance.now() - start;
        const busy = performance.eventLoopUtilization(elu).active;
        const used = process.cpuUsage(cpu);
        console.log(
          `| ${kind} | ${path} | ${callers} | ${Math.round((Q / ms) * 1000)} | ${((busy / Q) * 1000).toFixed(0)} | ` +
            `${((used.user + used.system) / Q).toFixed(0)} |`,
        );
      }
    }
  }
  await index.dispose();
}

void main();
