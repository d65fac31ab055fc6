// The JS side of a filtered search before the engine runs: a keyword filter answered by a payload index
// turned into a bitmap over point slots (Segment.filterPredicate), on 100k points of which 10% match,
// without and with 1% of the points deleted. Prints µs per call (min / median / max over rounds).
// Env: BENCH_POINTS (100000), BENCH_ROUNDS (7).
//   npx tsx bench/engine/filter-bitmap.ts
import { performance } from 'node:perf_hooks';
import { Segment } from '../../libs/points/src/storage/segment/segment';
import { Filter } from '../../libs/points/src/model/filter.model';

const N = Number(process.env.BENCH_POINTS ?? 100_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const REPS = 500;

function main(): void {
  const segment = Segment.create(new Map(), { appendable: true, indexed: false });
  for (let i = 0; i < N; i++) segment.upsert(i + 1, BigInt(i + 1), {}, { tag: `t${i % 10}` });
  segment.createFieldIndex('tag', 'Keyword');
  const filter: Filter = { must: [{ field: { key: 'tag', match: { keyword: 't3' } } }] };
  console.log(`${N} points, keyword index, 10% match; ${REPS} calls × ${ROUNDS} rounds\n`);
  console.log('| deleted | filterPredicate µs/call (min / median / max) | allowed |');
  console.log('|---|---:|---:|');
  for (const deleted of [0, 0.01]) {
    if (deleted > 0) for (let slot = 0; slot < N; slot += Math.round(1 / deleted)) segment.delete(N + 1 + slot, slot);
    const per: number[] = [];
    let allowed = 0;
    for (let r = 0; r < ROUNDS; r++) {
      const t0 = performance.now();
      for (let i = 0; i < REPS; i++) allowed = segment.filterPredicate(filter).bitmap!.length;
      per.push(((performance.now() - t0) * 1000) / REPS);
    }
    const bitmap = segment.filterPredicate(filter).bitmap!;
    allowed = 0;
    for (let s = 0; s < N; s++) if (bitmap[s >> 3] & (1 << (s & 7))) allowed++;
    per.sort((a, b) => a - b);
    console.log(
      `| ${deleted * 100}% | ${per[0].toFixed(1)} / ${per[per.length >> 1].toFixed(1)} / ${per[per.length - 1].toFixed(1)} | ${allowed} |`,
    );
  }
}

main();
