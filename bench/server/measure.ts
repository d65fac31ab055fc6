// What the server benches share: exact ground truth, a timed run of concurrent searches with recall against that
// truth, and the progress bar on stderr.
import { readFileSync } from 'node:fs';

/** One measured run: recall@k, throughput, latency percentiles and CPU per query of whoever does the work. */
export interface Run {
  recall: number;
  qps: number;
  p50: number;
  p99: number;
  cpuPerQuery: number;
  /** CPU of this (client) process per query: on a small machine the client competes with the server. */
  clientCpuPerQuery: number;
  /** Cores that everything else on the machine kept busy on average during the run (Linux): the run's noise. */
  otherCores: number;
  /** When the measured searches ran, in µs of the monotonic clock V8's CPU profiles use (profile-summary.ts). */
  window: { fromUs: number; toUs: number };
  /** ms per query on each of MeasureOptions.clocks over the measured searches. */
  perQuery: Record<string, number>;
}

/** Now on CLOCK_MONOTONIC in µs: the clock of a .cpuprofile's startTime, in any process of this machine. */
export const monotonicUs = (): number => Number(process.hrtime.bigint() / 1000n);

export interface MeasureOptions {
  /** Searches per run, spread over the clients. */
  queries: number;
  /** Results per search (recall@k). */
  k: number;
  /** Unmeasured searches per client before the run: its connection, the client's JIT. */
  warmup: number;
  /** More CPU clocks (ms) to read over the measured searches only, e.g. one thread of the server. */
  clocks?: Record<string, () => number>;
}

/** CPU ms the whole machine spent busy so far (all cores; steal counts: a neighbour VM had the core). */
function machineBusyMs(): number {
  if (process.platform !== 'linux') return NaN;
  // cpu  user nice system idle iowait irq softirq steal ... in 1/100 s
  const [user, nice, system, , , irq, softirq, steal] = readFileSync('/proc/stat', 'utf8')
    .split('\n')[0]
    .split(/\s+/)
    .slice(1)
    .map(Number);
  return (user + nice + system + irq + softirq + steal) * 10;
}

export function progress(label: string, done: number, total: number): void {
  const width = 30;
  const filled = Math.round((done / total) * width);
  process.stderr.write(`\r${label.padEnd(28)} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total}`);
  if (done >= total) process.stderr.write('\n');
}

export function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/**
 * `options.queries` searches spread over `concurrency` workers, after `options.warmup` unmeasured ones per
 * worker. `search` answers dataset indexes (the ids `truth` holds); `cpuMs` reads the CPU clock of whoever does
 * the work. `truth` holds k ids per query.
 */
export async function measure(
  label: string,
  concurrency: number,
  search: (worker: number, query: number) => Promise<ArrayLike<number>> | ArrayLike<number>,
  truth: Uint32Array,
  cpuMs: () => number,
  { queries, k, warmup, clocks = {} }: MeasureOptions,
): Promise<Run> {
  await Promise.all(
    Array.from({ length: concurrency }, async (_, w) => {
      for (let i = 0; i < warmup; i++) await search(w, (w * warmup + i) % queries);
    }),
  );
  const latencies: number[] = [];
  let hits = 0;
  let next = 0;
  const clocks0 = Object.entries(clocks).map(([name, clock]) => [name, clock()] as const);
  const cpu0 = cpuMs();
  const client0 = process.cpuUsage();
  const machine0 = machineBusyMs();
  const fromUs = monotonicUs();
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async (_, w) => {
      for (let q = next++; q < queries; q = next++) {
        const start = performance.now();
        const got = await search(w, q);
        latencies.push(performance.now() - start);
        const expected = new Set(truth.subarray(q * k, (q + 1) * k));
        for (let j = 0; j < Math.min(k, got.length); j++) if (expected.has(got[j])) hits++;
        if (latencies.length % 100 === 0) progress(label, latencies.length, queries);
      }
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  const toUs = monotonicUs();
  const cpu = cpuMs() - cpu0;
  const perQuery = Object.fromEntries(clocks0.map(([name, at0]) => [name, (clocks[name]() - at0) / queries]));
  const client = process.cpuUsage(client0);
  const clientMs = (client.user + client.system) / 1000;
  const otherMs = machineBusyMs() - machine0 - cpu - clientMs;
  progress(label, queries, queries);
  latencies.sort((a, b) => a - b);
  return {
    recall: hits / (queries * k),
    qps: queries / seconds,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    cpuPerQuery: cpu / queries,
    clientCpuPerQuery: clientMs / queries,
    otherCores: Math.max(0, otherMs / 1000 / seconds),
    window: { fromUs, toUs },
    perQuery,
  };
}

/**
 * Exact top-k by squared Euclidean distance, brute force over every point, for each query: over all points and
 * over those `allowed(i)` accepts, in one pass. Plain JS, so it depends on no engine code.
 */
export function exactTruth(
  base: Float32Array,
  queries: Float32Array,
  dim: number,
  k: number,
  allowed: (i: number) => boolean,
): { plain: Uint32Array; filtered: Uint32Array } {
  const n = base.length / dim;
  const nq = queries.length / dim;
  const plain = new Uint32Array(nq * k);
  const filtered = new Uint32Array(nq * k);
  const isAllowed = Uint8Array.from({ length: n }, (_, i) => (allowed(i) ? 1 : 0));
  for (let q = 0; q < nq; q++) {
    const top = [new TopK(k), new TopK(k)];
    const qo = q * dim;
    for (let i = 0; i < n; i++) {
      let sum = 0;
      for (let j = 0, o = i * dim; j < dim; j++, o++) {
        const d = queries[qo + j] - base[o];
        sum += d * d;
      }
      top[0].offer(i, sum);
      if (isAllowed[i]) top[1].offer(i, sum);
    }
    plain.set(top[0].ids(), q * k);
    filtered.set(top[1].ids(), q * k);
    if (q % 100 === 99) progress('exact ground truth', q + 1, nq);
  }
  return { plain, filtered };
}

/** The k smallest distances seen, kept sorted (k is small: insertion beats a heap). */
class TopK {
  private readonly idx: number[] = [];
  private readonly dist: number[] = [];
  constructor(private readonly k: number) {}

  offer(id: number, distance: number): void {
    if (this.dist.length === this.k && distance >= this.dist[this.k - 1]) return;
    let at = this.dist.length;
    while (at > 0 && this.dist[at - 1] > distance) at--;
    this.dist.splice(at, 0, distance);
    this.idx.splice(at, 0, id);
    if (this.dist.length > this.k) {
      this.dist.pop();
      this.idx.pop();
    }
  }

  ids(): number[] {
    return this.idx;
  }
}
