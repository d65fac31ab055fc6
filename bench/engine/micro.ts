// Latency probe (not part of npm run bench:engine): ours vs hnswlib-node, HNSW and exact scan, alternating
// passes, min of 7. N (100000) vectors of 128-d.
import { VectorIndex } from '@vectorstore/engine';
import { gaussianMixture } from './datasets';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const hnswlib = require('hnswlib-node') as typeof import('hnswlib-node');
const N = Number(process.env.N ?? 100000);
const ds = gaussianMixture(N, 300, 128);
const ours = new VectorIndex({ dim: 128, distance: 'Euclid', initialCapacity: N, maxIndexingThreads: 2 });
ours.add(ds.base);
const rows = Array.from({ length: N }, (_, i) => Array.from(ds.base.subarray(i * 128, (i + 1) * 128)));
const hn = new hnswlib.HierarchicalNSW('l2', 128);
hn.initIndex({ maxElements: N, m: 16, efConstruction: 100, randomSeed: 100 });
rows.forEach((r, i) => hn.addPoint(r, i));
const bf = new hnswlib.BruteforceSearch('l2', 128);
bf.initIndex(N);
rows.forEach((r, i) => bf.addPoint(r, i));
const qv = (q: number) => ds.queries.subarray(q * 128, (q + 1) * 128);
const qa = Array.from({ length: 300 }, (_, q) => Array.from(qv(q)));
for (const ef of [16, 64, 0]) {
  let to = Infinity;
  let th = Infinity;
  const nq = ef === 0 ? 30 : 300;
  if (ef) hn.setEf(ef);
  for (let r = 0; r < 7; r++) {
    let t = performance.now();
    for (let q = 0; q < nq; q++) {
      if (ef) ours.search(qv(q), { k: 10, ef });
      else ours.exactSearch(qv(q), 10);
    }
    to = Math.min(to, ((performance.now() - t) * 1000) / nq);
    t = performance.now();
    for (let q = 0; q < nq; q++) {
      if (ef) hn.searchKnn(qa[q], 10);
      else bf.searchKnn(qa[q], 10);
    }
    th = Math.min(th, ((performance.now() - t) * 1000) / nq);
  }
  console.log(
    ef ? `ef ${ef}` : 'exact',
    'ours us',
    to.toFixed(1),
    'hnswlib us',
    th.toFixed(1),
    'ratio',
    (th / to).toFixed(2),
  );
}
void ours.dispose();
