// npm run bench:engine — our HNSW (f32, int8, binary, PQ) and exact scan vs hnswlib-node, same run.
// Env: BENCH_N (100000), BENCH_DIM (128), BENCH_QUERIES (1000), BENCH_EFS (16,32,64,128,256), BENCH_M (16),
// BENCH_EF_CONSTRUCT (100), BENCH_MNIST (1 = include MNIST), BENCH_EXACT_QUERIES (200), BENCH_REPEATS (3).
import { VectorIndex, QuantizationConfig } from '@vectorstore/engine';
import { scratchKernels } from '@vectorstore/engine/wasm/kernels';
import { Dataset, gaussianMixture, mnist } from './datasets';
import { Progress, table } from './report';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const hnswlib = require('hnswlib-node') as typeof import('hnswlib-node');

const env = (k: string, d: number) => (process.env[k] ? Number(process.env[k]) : d);
const N = env('BENCH_N', 100000);
const DIM = env('BENCH_DIM', 128);
const NQ = env('BENCH_QUERIES', 1000);
const EFS = (process.env.BENCH_EFS ?? '16,32,64,128,256').split(',').map(Number);
const M = env('BENCH_M', 16);
const EFC = env('BENCH_EF_CONSTRUCT', 100);
const EXACT_Q = env('BENCH_EXACT_QUERIES', 200);
const WITH_MNIST = env('BENCH_MNIST', 1) !== 0;
const K = 10;
const REPEATS = env('BENCH_REPEATS', 3);

interface Point {
  recall: number;
  qps: number;
}
const now = () => performance.now();

function recallAt(gt: Uint32Array, q: number, got: ArrayLike<number>): number {
  const truth = new Set(gt.subarray(q * K, q * K + K));
  let h = 0;
  for (let i = 0; i < Math.min(K, got.length); i++) if (truth.has(got[i])) h++;
  return h;
}

/** hnswlib-node QPS interpolated at a recall on its (recall, qps) curve; undefined when out of reach. */
function qpsAtRecall(curve: Point[], recall: number): number | undefined {
  const pts = [...curve].sort((a, b) => a.recall - b.recall);
  if (pts.length === 0 || recall > pts[pts.length - 1].recall + 1e-9) return undefined;
  if (recall <= pts[0].recall) return pts[0].qps;
  for (let i = 1; i < pts.length; i++) {
    const a = pts[i - 1];
    const b = pts[i];
    if (recall <= b.recall + 1e-12) {
      const t = b.recall === a.recall ? 1 : (recall - a.recall) / (b.recall - a.recall);
      return a.qps + t * (b.qps - a.qps);
    }
  }
  return undefined;
}

function memoryReadCeilingGBs(): number {
  const bytes = 256 * 1024 * 1024;
  const { wasm, base } = scratchKernels(bytes + 64);
  const n = bytes / 8; // two streams of n floats
  const { views } = scratchKernels(bytes + 64);
  views.f32.fill(1.5, base >>> 2, (base + bytes) >>> 2); // touch every page: untouched pages read as the zero page
  wasm.dotF32(base, base + bytes / 2, n);
  let best = 0;
  for (let r = 0; r < 5; r++) {
    const t = now();
    wasm.dotF32(base, base + bytes / 2, n);
    best = Math.max(best, bytes / ((now() - t) / 1000) / 1e9);
  }
  return best;
}

async function benchDataset(ds: Dataset, progress: Progress): Promise<string> {
  const { dim, n, nq } = ds;
  const distance = 'Euclid';
  const qv = (q: number) => ds.queries.subarray(q * dim, (q + 1) * dim);
  const qArrays = Array.from({ length: nq }, (_, q) => Array.from(qv(q)));

  // ours: build
  progress.step(`${ds.name}: build ours`);
  const ours = new VectorIndex({ dim, distance, m: M, efConstruct: EFC, initialCapacity: n });
  let t = now();
  ours.add(ds.base);
  const buildOurs = (now() - t) / 1000;

  // ground truth (exact scan in WASM) when the dataset has none; also the exact-scan timing for ours
  const exactQ = Math.min(EXACT_Q, nq);
  progress.step(`${ds.name}: exact scan ours`);
  if (!ds.groundTruth) {
    ds.groundTruth = new Uint32Array(nq * K);
    for (let q = 0; q < nq; q++) ds.groundTruth.set(ours.exactSearch(qv(q), K).slots, q * K);
  }
  const gt = ds.groundTruth;

  // hnswlib-node: build (single thread, same M / ef_construct), brute force
  progress.step(`${ds.name}: build hnswlib-node`);
  const rows = Array.from({ length: n }, (_, i) => Array.from(ds.base.subarray(i * dim, (i + 1) * dim)));
  const hn = new hnswlib.HierarchicalNSW('l2', dim);
  hn.initIndex({ maxElements: n, m: M, efConstruction: EFC, randomSeed: 100 });
  t = now();
  for (let i = 0; i < n; i++) hn.addPoint(rows[i], i);
  const buildHn = (now() - t) / 1000;
  progress.step(`${ds.name}: brute force hnswlib-node`);
  const bf = new hnswlib.BruteforceSearch('l2', dim);
  bf.initIndex(n);
  for (let i = 0; i < n; i++) bf.addPoint(rows[i], i);
  // exact scans, interleaved in chunks of 10 queries
  let tEx = 0;
  let tBf = 0;
  let exactHits = 0;
  let bfHits = 0;
  for (let c = 0; c < exactQ; c += 10) {
    const end = Math.min(exactQ, c + 10);
    let t0 = now();
    for (let q = c; q < end; q++) bfHits += recallAt(gt, q, bf.searchKnn(qArrays[q], K).neighbors);
    tBf += now() - t0;
    t0 = now();
    for (let q = c; q < end; q++) exactHits += recallAt(gt, q, ours.exactSearch(qv(q), K).slots);
    tEx += now() - t0;
  }
  const exactOurs: Point = { recall: exactHits / (exactQ * K), qps: exactQ / (tEx / 1000) };
  const exactHn: Point = { recall: bfHits / (exactQ * K), qps: exactQ / (tBf / 1000) };

  const f32Only = ours.bytesPerVector; // before any quantizer is trained

  // HNSW sweeps. Ours and hnswlib-node run interleaved in chunks of 50 queries, REPEATS times, and each
  // side's QPS is its total queries over its total time, so load from other processes hits both alike.
  // Every row gets its own paired hnswlib-node measurement at the same ef.
  const runHn = (q: number, ef: number) => {
    hn.setEf(ef);
    return hn.searchKnn(qArrays[q], K).neighbors;
  };
  const paired = (run: (q: number, ef: number) => ArrayLike<number>, ef: number): { ours: Point; hn: Point } => {
    for (let q = 0; q < Math.min(100, nq); q++) {
      run(q, ef); // warm-up
      runHn(q, ef);
    }
    let tOurs = 0;
    let tHn = 0;
    let hOurs = 0;
    let hHn = 0;
    const chunk = 50;
    for (let r = 0; r < REPEATS; r++) {
      for (let c = 0; c < nq; c += chunk) {
        const end = Math.min(nq, c + chunk);
        let t0 = now();
        for (let q = c; q < end; q++) {
          const got = runHn(q, ef);
          if (r === 0) hHn += recallAt(gt, q, got);
        }
        tHn += now() - t0;
        t0 = now();
        for (let q = c; q < end; q++) {
          const got = run(q, ef);
          if (r === 0) hOurs += recallAt(gt, q, got);
        }
        tOurs += now() - t0;
      }
    }
    const total = nq * REPEATS;
    return {
      ours: { recall: hOurs / (nq * K), qps: total / (tOurs / 1000) },
      hn: { recall: hHn / (nq * K), qps: total / (tHn / 1000) },
    };
  };
  const sweep = (label: string, run: (q: number, ef: number) => ArrayLike<number>): { ours: Point; hn: Point }[] =>
    EFS.map((ef) => {
      progress.step(`${ds.name}: ${label} ef=${ef}`);
      return paired(run, ef);
    });
  const f32Pairs = sweep('ours f32', (q, ef) => ours.search(qv(q), { k: K, ef }).slots);
  const f32Points = f32Pairs.map((p) => p.ours);

  const variants: { label: string; config: QuantizationConfig; oversampling: number }[] = [
    { label: 'int8 + rescore (x2)', config: { scalar: { quantile: 0.99 } }, oversampling: 2 },
    {
      label: 'binary 2-bit, 8-bit query + rescore (x8)',
      config: { binary: { encoding: 'two_bits', queryEncoding: 'scalar8bits' } },
      oversampling: 8,
    },
    { label: 'PQ x8 + rescore (x4)', config: { product: { compression: 'x8' } }, oversampling: 4 },
  ];
  const qRows: { label: string; pairs: { ours: Point; hn: Point }[]; train: number }[] = [];
  for (const v of variants) {
    progress.step(`${ds.name}: train ${v.label}`);
    const t0 = now();
    ours.quantize(v.config);
    const train = (now() - t0) / 1000;
    const pairs = sweep(
      v.label,
      (q, ef) => ours.search(qv(q), { k: K, ef, quantization: { rescore: true, oversampling: v.oversampling } }).slots,
    );
    qRows.push({ label: v.label, pairs, train });
  }

  // parallel build with 2 threads (the caller + 1 worker)
  progress.step(`${ds.name}: build ours, 2 threads`);
  const ours2 = new VectorIndex({ dim, distance, m: M, efConstruct: EFC, initialCapacity: n, maxIndexingThreads: 2 });
  t = now();
  ours2.add(ds.base);
  const buildOurs2 = (now() - t) / 1000;
  let hits2 = 0;
  const ef2 = EFS[Math.min(2, EFS.length - 1)];
  for (let q = 0; q < nq; q++) hits2 += recallAt(gt, q, ours2.search(qv(q), { k: K, ef: ef2 }).slots);
  await ours2.dispose();

  const hnPoints = f32Pairs.map((p) => p.hn);

  // bytes per vector: hnswlib keeps per element (4 + 4*m0) links + dim*4 data + 8 label, plus
  // 8 (link-list pointer) + 4 (level) + 2 (visited) and the label map (~40 bytes per entry), upper levels
  const hnBpv = 4 + 8 * M + dim * 4 + 8 + 8 + 4 + 2 + 40 + (4 + 4 * M) / (M - 1);

  const header = ['method', 'ef', 'recall@10', 'QPS', 'hnswlib-node QPS (same ef)', 'ratio at equal recall'];
  const out: (string | number)[][] = [];
  // above hnswlib-node's best measured recall, compare with its best-recall point (it would need more ef)
  const ratio = (p: Point, curve: Point[]) => {
    const ref = qpsAtRecall(curve, p.recall);
    if (ref) return `${(p.qps / ref).toFixed(2)}×`;
    const top = [...curve].sort((a, b) => b.recall - a.recall || a.qps - b.qps)[0];
    return `≥ ${(p.qps / top.qps).toFixed(2)}× (recall above hnswlib's ${top.recall.toFixed(3)})`;
  };
  EFS.forEach((ef, i) =>
    out.push([
      'hnswlib-node',
      ef,
      hnPoints[i].recall,
      Math.round(hnPoints[i].qps),
      Math.round(hnPoints[i].qps),
      '1.00×',
    ]),
  );
  EFS.forEach((ef, i) =>
    out.push([
      'ours f32 HNSW',
      ef,
      f32Points[i].recall,
      Math.round(f32Points[i].qps),
      Math.round(hnPoints[i].qps),
      ratio(f32Points[i], hnPoints),
    ]),
  );
  for (const r of qRows) {
    const curve = r.pairs.map((p) => p.hn);
    EFS.forEach((ef, i) =>
      out.push([
        `ours ${r.label}`,
        ef,
        r.pairs[i].ours.recall,
        Math.round(r.pairs[i].ours.qps),
        Math.round(curve[i].qps),
        ratio(r.pairs[i].ours, curve),
      ]),
    );
  }
  out.push([
    'hnswlib-node brute force',
    '-',
    exactHn.recall,
    Math.round(exactHn.qps),
    Math.round(exactHn.qps),
    '1.00×',
  ]);
  out.push([
    'ours exact scan (WASM SIMD)',
    '-',
    exactOurs.recall,
    Math.round(exactOurs.qps),
    Math.round(exactHn.qps),
    `${(exactOurs.qps / exactHn.qps).toFixed(2)}×`,
  ]);

  const scanGBs = (exactOurs.qps * n * dim * 4) / 1e9;
  const ceiling = memoryReadCeilingGBs();
  const lines = [
    `### ${ds.name} (Euclid, k=10, m=${M}, ef_construct=${EFC}, ${nq} queries, single thread)`,
    '',
    table(
      ['', 'ours', 'hnswlib-node', 'ours ÷ hnswlib'],
      [
        ['build time (s), 1 thread', buildOurs.toFixed(2), buildHn.toFixed(2), (buildOurs / buildHn).toFixed(2)],
        [
          `build time (s), 2 threads (recall@10 at ef=${ef2}: ${(hits2 / (nq * K)).toFixed(3)})`,
          buildOurs2.toFixed(2),
          buildHn.toFixed(2),
          (buildOurs2 / buildHn).toFixed(2),
        ],
        ['bytes per vector (f32 + graph)', f32Only.toFixed(0), `~${hnBpv.toFixed(0)}`, (f32Only / hnBpv).toFixed(2)],
        ...qRows.map((r) => [
          `quantizer ${r.label}: train s / bytes per vector incl. code`,
          `${r.train.toFixed(2)} / ${(f32Only + codeBytes(r.label, dim)).toFixed(0)}`,
          '',
          '',
        ]),
        [
          'exact scan GB/s (memory-read ceiling measured)',
          `${scanGBs.toFixed(1)} (ceiling ${ceiling.toFixed(1)}, ${((100 * scanGBs) / ceiling).toFixed(0)}%)`,
          '',
          '',
        ],
      ],
    ),
    '',
    table(header, out),
    '',
  ];
  return lines.join('\n');
}

function codeBytes(label: string, dim: number): number {
  if (label.startsWith('int8')) return Math.ceil(dim / 16) * 16 + 4;
  if (label.startsWith('binary')) return Math.ceil((2 * dim) / 64) * 8;
  return Math.ceil(dim / 2 / 16) * 16;
}

async function main(): Promise<void> {
  const sets: (() => Dataset | undefined)[] = [() => gaussianMixture(N, NQ, DIM)];
  if (WITH_MNIST) sets.push(() => mnist());
  const stepsPerSet = 5 + EFS.length * 4 + 3;
  const progress = new Progress(sets.length * stepsPerSet, 'bench:engine');
  const parts: string[] = [`## Engine benchmark (node ${process.version}, ${new Date().toISOString()})`, ''];
  for (const make of sets) {
    const ds = make();
    if (!ds) {
      parts.push('MNIST dataset not found; skipped.', '');
      continue;
    }
    parts.push(await benchDataset(ds, progress));
  }
  progress.end();
  console.log(parts.join('\n'));
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
