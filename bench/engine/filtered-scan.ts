// The filtered exact scan alone (what a filtered search under full_scan_threshold costs the engine):
// µs per query for 1%, 10% and 50% of 100k × 128-d Euclid slots allowed, in two patterns (every 10th slot
// as the server bench tags its points, and seeded random slots), with and without deletes; the cost of
// turning the allowed bitmap into the engine's (writeAllowedBitmap, inside each search's time); and, for
// 10%, a filtered HNSW walk at several ef with its recall@10 against the exact scan (fullScanThreshold 0).
// The result digest (slots and scores of every search) must not change when the scan gets faster.
// Env: BENCH_POINTS (100000), BENCH_QUERIES (200), BENCH_ROUNDS (5), BENCH_CACHE (a file to keep the
// built index between runs; default /tmp/vectorstore-filtered-scan-<points>.idx), BENCH_FAR_QUERIES=1.
//   npx tsx bench/engine/filtered-scan.ts
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { AllowedSlots, VectorIndex } from '@vectorstore/engine';
import { writeAllowedBitmap } from '../../libs/engine/src/hnsw/allowed-bitmap';
import { Rng } from '../../test/support/seeded-random';
import { gaussianMixture } from './datasets';

const N = Number(process.env.BENCH_POINTS ?? 100_000);
const Q = Number(process.env.BENCH_QUERIES ?? 200);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const CACHE = process.env.BENCH_CACHE ?? `/tmp/vectorstore-filtered-scan-${N}.idx`;
const DIM = 128;
const K = 10;

function build(): VectorIndex {
  if (existsSync(CACHE)) return VectorIndex.load(readFileSync(CACHE));
  const data = gaussianMixture(N, 1, DIM);
  const index = new VectorIndex({ dim: DIM, distance: 'Euclid', m: 16, efConstruct: 100, maxIndexingThreads: 2 });
  index.add(data.base);
  writeFileSync(CACHE, index.save());
  return index;
}

function bitmap(pattern: 'stride' | 'random', fraction: number): Uint8Array {
  const bits = new Uint8Array(Math.ceil(N / 8));
  const rng = new Rng(7 + Math.round(fraction * 1000));
  const every = Math.round(1 / fraction);
  for (let slot = 0; slot < N; slot++) {
    const on = pattern === 'stride' ? slot % every === 0 : rng.next() < fraction;
    if (on) bits[slot >> 3] |= 1 << (slot & 7);
  }
  return bits;
}

/** min–max over rounds of µs per query, and a digest of every result. */
function time(
  index: VectorIndex,
  queries: Float32Array[],
  run: (q: Float32Array) => { slots: Uint32Array; scores: Float32Array },
) {
  const per: number[] = [];
  const hash = createHash('sha256');
  for (let r = 0; r < ROUNDS; r++) {
    const t0 = performance.now();
    for (const q of queries) {
      const res = run(q);
      if (r === 0) {
        hash.update(Buffer.from(res.slots.buffer, res.slots.byteOffset, res.slots.byteLength));
        hash.update(Buffer.from(res.scores.buffer, res.scores.byteOffset, res.scores.byteLength));
      }
    }
    per.push(((performance.now() - t0) * 1000) / queries.length);
  }
  per.sort((a, b) => a - b);
  return {
    min: per[0],
    median: per[per.length >> 1],
    max: per[per.length - 1],
    digest: hash.digest('hex').slice(0, 12),
  };
}

async function main(): Promise<void> {
  const t0 = performance.now();
  const index = build();
  console.log(
    `${N} × ${DIM}-d Euclid, k ${K}, ${Q} queries × ${ROUNDS} rounds (index ready in ${((performance.now() - t0) / 1000).toFixed(1)} s)\n`,
  );
  // Queries from the points' own mixture, as the server bench's are. (Queries from another mixture's
  // centres lie far from every point: a filtered walk then needs ef 128 for recall 0.95, against ef 16
  // for 0.997 here.) BENCH_FAR_QUERIES=1 measures those.
  const qs =
    process.env.BENCH_FAR_QUERIES === '1' ? gaussianMixture(1, Q, DIM, 100, 20260202) : gaussianMixture(N, Q, DIM);
  const queries = Array.from({ length: Q }, (_, i) => qs.queries.subarray(i * DIM, (i + 1) * DIM));
  const scratch = new Uint8Array(Math.ceil(N / 8) + 64);

  console.log(
    '| allowed | pattern | deletes | exact scan µs/query (min / median / max) | writeAllowedBitmap µs | digest |',
  );
  console.log('|---|---|---|---:|---:|---|');
  const row = (fraction: number, pattern: 'stride' | 'random', deletes: string) => {
    const allowed = bitmap(pattern, fraction);
    const t = time(index, queries, (q) => index.search(q, { k: K, exact: true, allowed }));
    const reps = 200;
    const b0 = performance.now();
    for (let i = 0; i < reps; i++) writeAllowedBitmap(scratch, 0, N, allowed);
    const bitmapUs = ((performance.now() - b0) * 1000) / reps;
    console.log(
      `| ${fraction * 100}% | ${pattern} | ${deletes} | ${t.min.toFixed(0)} / ${t.median.toFixed(0)} / ${t.max.toFixed(0)} | ` +
        `${bitmapUs.toFixed(1)} | ${t.digest} |`,
    );
  };
  for (const fraction of [0.01, 0.1, 0.5])
    for (const pattern of ['stride', 'random'] as const) row(fraction, pattern, 'none');

  // a filtered graph walk at 10% (the planner would scan these exactly; fullScanThreshold 0 forces the graph)
  if (process.env.BENCH_GRAPH !== '0') {
    console.log('\n| 10% allowed, graph walk | ef | µs/query (min / median / max) | recall@10 vs exact |');
    console.log('|---|---:|---:|---:|');
    for (const pattern of ['stride', 'random'] as const) {
      const allowed: AllowedSlots = bitmap(pattern, 0.1);
      const truth = queries.map((q) => new Set(index.search(q, { k: K, exact: true, allowed }).slots));
      for (const ef of [16, 32, 64, 128, 256]) {
        let hit = 0;
        for (let i = 0; i < Q; i++) {
          for (const s of index.search(queries[i], { k: K, ef, allowed, fullScanThreshold: 0 }).slots)
            if (truth[i].has(s)) hit++;
        }
        const t = time(index, queries, (q) => index.search(q, { k: K, ef, allowed, fullScanThreshold: 0 }));
        console.log(
          `| ${pattern} | ${ef} | ${t.min.toFixed(0)} / ${t.median.toFixed(0)} / ${t.max.toFixed(0)} | ${(hit / (Q * K)).toFixed(4)} |`,
        );
      }
    }
  }

  // 5% of the slots deleted (seeded), the same 10% filters
  const rng = new Rng(99);
  const gone: number[] = [];
  for (let slot = 0; slot < N; slot++) if (rng.next() < 0.05) gone.push(slot);
  index.delete(gone);
  console.log('');
  console.log(
    '| allowed | pattern | deletes | exact scan µs/query (min / median / max) | writeAllowedBitmap µs | digest |',
  );
  console.log('|---|---|---|---:|---:|---|');
  for (const pattern of ['stride', 'random'] as const) row(0.1, pattern, '5%');
  const all = time(index, queries, (q) => index.search(q, { k: K, exact: true }));
  console.log(
    `| 100% (no filter) | – | 5% | ${all.min.toFixed(0)} / ${all.median.toFixed(0)} / ${all.max.toFixed(0)} | – | ${all.digest} |`,
  );
  await index.dispose(); // frees the index and stops its worker pools
}

void main();
