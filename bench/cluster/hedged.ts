// The "hedged reads" table of bench:cluster (docs/cluster.md, "Hedged reads"): on the 3-peer setup, a second
// collection with replication_factor 2 (shard_number 3, so the coordinator, peer 0, lacks one shard and reads it
// from another peer). The replica the coordinator asks first for that shard stalls: its process is SIGSTOPped for
// BENCH_HEDGED_STALL_MS every BENCH_HEDGED_PERIOD_MS (a GC pause, a noisy neighbour). The same searches run through
// the coordinator with fan-out off (read_fan_out_factor 0), with a 20 ms read_fan_out_delay_ms, and with
// read_fan_out_factor 1, and once with no stalls as the floor.
import * as grpc from '@grpc/grpc-js';
import { processCpuMs, RawClient } from '../server/clients';
import type { Setup } from './setups';

const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
/** At most as many as the bench generated (BENCH_POINTS). */
const WANTED_POINTS = env('BENCH_HEDGED_POINTS', 5_000);
const QUERIES = env('BENCH_HEDGED_QUERIES', 1_000);
const STALL_MS = env('BENCH_HEDGED_STALL_MS', 100);
const PERIOD_MS = env('BENCH_HEDGED_PERIOD_MS', 300);
const CLIENTS = 4;
const WARMUP = 50;
const K = 10;
const BATCH = 256;
const DELAY_MS = 20;
const COLLECTION = 'bench-hedged';

/** One measured run of the hedged-reads table. */
export interface HedgedRun {
  stalls: boolean;
  /** read_fan_out_factor and read_fan_out_delay_ms of the run. */
  factor: number;
  delayMs: number;
  qps: number;
  p50: number;
  p99: number;
  max: number;
  cpuPerQuery: number;
  /** How many times the slowed peer was stopped during the run. */
  stallCount: number;
}

export interface HedgedResult {
  runs: HedgedRun[];
  /** Points in the collection. */
  points: number;
  /** Which peer coordinates and which one stalls, for the report. */
  coordinator: string;
  slowed: string;
}

/** Processes this module stopped and has not continued yet: thawed on the way out whatever happens. */
const stopped = new Set<number>();

/** SIGCONT to every process a stall left stopped (on failure and on SIGINT/SIGTERM, before stopping servers). */
export function thawAll(): void {
  for (const pid of stopped) {
    try {
      process.kill(pid, 'SIGCONT');
    } catch {
      // Gone already.
    }
  }
  stopped.clear();
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Stops `pid` for STALL_MS every PERIOD_MS until `stop()`; counts the stalls. */
function stutter(pid: number): { stop(): Promise<number> } {
  let running = true;
  let count = 0;
  const loop = (async () => {
    try {
      while (running) {
        await sleep(PERIOD_MS - STALL_MS);
        if (!running) break;
        stopped.add(pid);
        process.kill(pid, 'SIGSTOP');
        count++;
        await sleep(STALL_MS);
        process.kill(pid, 'SIGCONT');
        stopped.delete(pid);
      }
    } finally {
      thawAll();
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      return count;
    },
  };
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON bodies of several shapes
type Json = Record<string, any>;

async function rest(peer: Setup['peers'][number], method: string, route: string, body?: unknown): Promise<Json> {
  const response = await fetch(`${peer.httpUrl}${route}`, {
    method,
    headers: { 'api-key': peer.apiKey, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(30_000),
  });
  // Peer ids are u64: keep big integers exact as strings.
  const text = (await response.text()).replace(/([:[,]\s*)(\d{16,})(?=\s*[,}\]])/g, '$1"$2"');
  const parsed = JSON.parse(text) as Json;
  if (!response.ok) throw new Error(`${method} ${route}: ${response.status} ${text.slice(0, 300)}`);
  return parsed;
}

const byPeerId = (a: string, b: string) => (BigInt(a) < BigInt(b) ? -1 : BigInt(a) > BigInt(b) ? 1 : 0);

/**
 * The coordinator's first choice for a shard it lacks, as read-plan.ts picks it: the shard's readable
 * replicas by peer id, rotated by the shard id.
 */
async function firstAskedElsewhere(setup: Setup): Promise<{ coordinator: string; slowed: string }> {
  const info = (await rest(setup.peers[0], 'GET', `/collections/${COLLECTION}/cluster`)).result as Json;
  const held = new Set((info.local_shards as Json[]).map((s) => s.shard_id as number));
  const remote = info.remote_shards as Json[];
  const missing = [...new Set(remote.map((s) => s.shard_id as number))].find((shard) => !held.has(shard));
  if (missing === undefined) throw new Error('hedged reads: the coordinator holds every shard');
  const holders = remote
    .filter((s) => s.shard_id === missing && s.state === 'Active')
    .map((s) => String(s.peer_id))
    .sort(byPeerId);
  return { coordinator: String(info.peer_id), slowed: holders[missing % holders.length] };
}

/** Creates the rf 2 collection and loads the first points of the bench's data; how many. */
async function loadCollection(setup: Setup, base: Float32Array, dim: number): Promise<number> {
  const count = Math.min(WANTED_POINTS, base.length / dim);
  const [first] = setup.peers;
  await rest(first, 'PUT', `/collections/${COLLECTION}`, {
    vectors: { size: dim, distance: 'Euclid' },
    shard_number: 3,
    replication_factor: 2,
    read_fan_out_factor: 0,
    // Plain segments (a full scan per search): the same work in every run, no index build to wait for.
    optimizers_config: { indexing_threshold: 0 },
  });
  for (const peer of setup.peers) {
    const deadline = Date.now() + 10_000;
    const has = async () =>
      (await fetch(`${peer.httpUrl}/collections/${COLLECTION}`, { headers: { 'api-key': peer.apiKey } })).ok;
    while (!(await has())) {
      if (Date.now() > deadline) throw new Error(`hedged reads: ${COLLECTION} did not reach every peer`);
      await sleep(50);
    }
  }
  for (let start = 0; start < count; start += BATCH) {
    const points = [];
    for (let i = start; i < Math.min(count, start + BATCH); i++) {
      points.push({ id: i + 1, vector: Array.from(base.subarray(i * dim, (i + 1) * dim)) });
    }
    const via = setup.peers[(start / BATCH) % setup.peers.length];
    await rest(via, 'PUT', `/collections/${COLLECTION}/points?wait=true`, { points });
  }
  return count;
}

async function setFanOut(setup: Setup, factor: number, delayMs: number): Promise<void> {
  const [coordinator] = setup.peers;
  await rest(coordinator, 'PATCH', `/collections/${COLLECTION}`, {
    params: { read_fan_out_factor: factor, read_fan_out_delay_ms: delayMs },
  });
  // The coordinator's own catalog shows it once the change is applied (read-your-writes on that peer).
  const params = ((await rest(coordinator, 'GET', `/collections/${COLLECTION}`)).result as Json).config.params as Json;
  if (params.read_fan_out_factor !== factor || (params.read_fan_out_delay_ms ?? 0) !== delayMs)
    throw new Error(`hedged reads: params not applied: ${JSON.stringify(params)}`);
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

async function searchRun(
  setup: Setup,
  queries: number[][],
  slowedPid: number,
  mode: { stalls: boolean; factor: number; delayMs: number },
  progress: (label: string, done: number, total: number) => void,
): Promise<HedgedRun> {
  await setFanOut(setup, mode.factor, mode.delayMs);
  const clients = Array.from({ length: CLIENTS }, () => {
    const metadata = new grpc.Metadata();
    metadata.set('api-key', setup.peers[0].apiKey);
    return new RawClient(setup.peers[0].grpcAddress, metadata);
  });
  const search = (client: RawClient, q: number) =>
    client.unary('Search', { collectionName: COLLECTION, vector: queries[q % queries.length], limit: K });
  const label = `hedged reads: ${mode.stalls ? 'stalls' : 'no stalls'}, factor ${mode.factor}, delay ${mode.delayMs}`;
  try {
    await Promise.all(
      clients.map(async (client, w) => {
        for (let i = 0; i < WARMUP; i++) await search(client, w * WARMUP + i);
      }),
    );
    const latencies: number[] = [];
    let next = 0;
    const cpu = () => setup.peers.reduce((sum, peer) => sum + processCpuMs(peer.pid), 0);
    const stalls = mode.stalls ? stutter(slowedPid) : undefined;
    let stallCount = 0;
    const cpu0 = cpu();
    const t0 = performance.now();
    try {
      await Promise.all(
        clients.map(async (client) => {
          for (let q = next++; q < QUERIES; q = next++) {
            const start = performance.now();
            await search(client, q);
            latencies.push(performance.now() - start);
            if (latencies.length % 100 === 0) progress(label, latencies.length, QUERIES);
          }
        }),
      );
    } finally {
      stallCount = (await stalls?.stop()) ?? 0;
    }
    const seconds = (performance.now() - t0) / 1000;
    const cpuPerQuery = (cpu() - cpu0) / QUERIES;
    progress(label, QUERIES, QUERIES);
    latencies.sort((a, b) => a - b);
    return {
      ...mode,
      qps: QUERIES / seconds,
      p50: percentile(latencies, 50),
      p99: percentile(latencies, 99),
      max: latencies[latencies.length - 1],
      cpuPerQuery,
      stallCount,
    };
  } finally {
    clients.forEach((client) => client.close());
  }
}

/** Loads the rf 2 collection and measures the four runs (no stalls, then stalls with fan-out off, delay, factor 1). */
export async function measureHedged(
  setup: Setup,
  base: Float32Array,
  dim: number,
  queries: number[][],
  progress: (label: string, done: number, total: number) => void,
): Promise<HedgedResult> {
  const points = await loadCollection(setup, base, dim);
  const { coordinator, slowed } = await firstAskedElsewhere(setup);
  const ids = await Promise.all(
    setup.peers.map(async (peer) => String(((await rest(peer, 'GET', '/cluster')).result as Json).peer_id)),
  );
  const slowedPid = setup.peers[ids.indexOf(slowed)]?.pid;
  if (slowedPid === undefined) throw new Error(`hedged reads: no server with peer id ${slowed}`);
  const runs: HedgedRun[] = [];
  for (const mode of [
    { stalls: false, factor: 0, delayMs: 0 },
    { stalls: true, factor: 0, delayMs: 0 },
    { stalls: true, factor: 0, delayMs: DELAY_MS },
    { stalls: true, factor: 1, delayMs: 0 },
  ]) {
    runs.push(await searchRun(setup, queries, slowedPid, mode, progress));
  }
  return { runs, points, coordinator, slowed };
}

/** What the table's caption says about the setup. */
export const HEDGED_SETTINGS = {
  queries: QUERIES,
  clients: CLIENTS,
  stallMs: STALL_MS,
  periodMs: PERIOD_MS,
};
