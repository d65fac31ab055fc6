// The soak: a real built server on loopback and a collection filled with every id of a bounded id space, then 16
// official clients (8 REST, 8 gRPC) sending mixed upserts, deletes, payload updates, filtered searches and scrolls,
// one of them creating (and deleting) a collection snapshot every so often. Every interval the server's RSS, heap,
// open fds, CPU, segment count, ended optimizer jobs and the interval's latencies are sampled, and at the end
// judged (verdict.ts). Bounded by time and by a total request count.
import { availableParallelism } from 'node:os';
import { rmSync } from 'node:fs';
import { RunningServer, startServer } from '../../test/e2e/support/server-harness';
import { grpcClient, restClient, SoakClient, SoakTarget } from './clients';
import { fillCollection, LoadShape, LoadStats, runLoad } from './load';
import { CpuShareMeter, cpuSeconds, directoryBytes, openFds, residentBytes } from './process-stats';
import { judgeSoak, SoakLimits, soakLimits, SoakSample } from './verdict';

export interface SoakOptions {
  /** How long the load runs. */
  seconds: number;
  /** Seconds between samples (a table row each). */
  sampleSeconds: number;
  /** What counts as growth or drift, warm-up included. */
  limits: SoakLimits;
  /** Stop earlier once the clients made this many requests together. */
  maxOps: number;
  clients: number;
  shape: LoadShape;
  /** The collection's `indexing_threshold` in KB (the 200 KB: a new segment every few hundred points). */
  indexingThresholdKb: number;
  /** Called with each sample as it is taken (to print the table as the run goes). */
  onSample?: (sample: SoakSample) => void;
}

export interface SoakResult {
  samples: SoakSample[];
  /** Why the soak failed, one sentence each; empty when it passed. */
  failures: string[];
  errorMessages: Map<string, number>;
  totalOps: number;
  /** How long filling the collection took, before the load. */
  fillSeconds: number;
  /** The collection's `default_segment_number`, and what 0 (automatic) means on this machine. */
  segmentTarget: string;
  serverOutputTail: string;
}

export const SOAK_COLLECTION = 'soak';

/**
 * Options for a run of `minutes`: a sample a minute (at least 12 samples), the limits of `soakLimits`, and a
 * snapshot started at most 30 s and at most 0.8 samples apart, so that every sample has one to judge snapshot time by.
 */
export function soakOptions(minutes: number, overrides: Partial<SoakOptions> = {}): SoakOptions {
  const seconds = Math.round(minutes * 60);
  const sampleSeconds = sampleSecondsFor(seconds);
  return {
    seconds,
    sampleSeconds,
    limits: soakLimits(seconds, sampleSeconds),
    maxOps: 50_000_000,
    clients: 16,
    shape: { dim: 128, idSpace: 20_000, upsertBatch: 16, snapshotEveryMs: Math.min(30_000, sampleSeconds * 800) },
    indexingThresholdKb: 200,
    ...overrides,
  };
}

/** Seconds between samples of a run of `seconds`: a minute, or a twelfth of shorter runs (at least 5 s). */
export function sampleSecondsFor(seconds: number): number {
  return Math.min(60, Math.max(5, Math.floor(seconds / 12)));
}

export async function runSoak(options: SoakOptions): Promise<SoakResult> {
  const server = await startServer({ env: { VECTORSTORE_LOG_LEVEL: 'warn' } });
  try {
    const target: SoakTarget = {
      httpUrl: server.httpUrl,
      grpcPort: server.grpcPort,
      apiKey: server.apiKey,
      collection: SOAK_COLLECTION,
    };
    await createCollection(server, options);
    const clients: SoakClient[] = Array.from({ length: options.clients }, (_, i) =>
      i % 2 === 0 ? restClient(target) : grpcClient(target),
    );
    const fillStarted = performance.now();
    await fillCollection(clients[0], options.shape);
    const fillSeconds = (performance.now() - fillStarted) / 1000;
    const stats = new LoadStats();
    const probe = new ServerProbe(server);
    const ticker = setInterval(() => probe.tick(), PROCESS_READ_MS);
    const started = Date.now();
    const samples: SoakSample[] = [];
    let stopSampling = false;
    const sampling = (async () => {
      let next = started + options.sampleSeconds * 1000;
      while (!stopSampling) {
        await new Promise((resolve) => setTimeout(resolve, Math.max(0, next - Date.now())));
        if (stopSampling) break;
        next += options.sampleSeconds * 1000;
        try {
          const sample = await probe.sample(stats, (Date.now() - started) / 1000);
          samples.push(sample);
          options.onSample?.(sample);
        } catch (error) {
          // counted with the next sample's errors: the server failed to answer its own status
          stats.failed('sample', error);
        }
      }
    })();
    await runLoad(clients, options.shape, stats, {
      deadline: started + options.seconds * 1000,
      maxOps: options.maxOps,
    });
    stopSampling = true;
    await sampling;
    clearInterval(ticker);
    const info = await rest<{ config: { optimizer_config: { default_segment_number: number } } }>(
      server,
      'GET',
      `/collections/${SOAK_COLLECTION}`,
    );
    return {
      samples,
      failures: judgeSoak(samples, options.limits),
      errorMessages: stats.errorMessages,
      totalOps: stats.totalOps,
      fillSeconds,
      segmentTarget: describeTarget(info.config.optimizer_config.default_segment_number),
      serverOutputTail: server.output().slice(-4000),
    };
  } finally {
    await server.stop();
    rmSync(server.dataDir, { recursive: true, force: true });
  }
}

/** Qdrant's automatic segment count is half the CPUs, between 2 and 8 (the server's optimization-planner.ts). */
function describeTarget(configured: number): string {
  if (configured > 0) return String(configured);
  return `0 (automatic: ${Math.min(8, Math.max(2, Math.floor(availableParallelism() / 2)))} here)`;
}

async function createCollection(server: RunningServer, options: SoakOptions): Promise<void> {
  await rest(server, 'PUT', `/collections/${SOAK_COLLECTION}`, {
    vectors: { size: options.shape.dim, distance: 'Cosine' },
    optimizers_config: { indexing_threshold: options.indexingThresholdKb },
  });
  for (const [field, schema] of [
    ['kind', 'keyword'],
    ['n', 'integer'],
  ]) {
    await rest(server, 'PUT', `/collections/${SOAK_COLLECTION}/index?wait=true`, {
      field_name: field,
      field_schema: schema,
    });
  }
}

interface CompletedJob {
  uuid: string;
  optimizer: string;
  progress: { duration_sec?: number };
}

/** How often the server's RSS and open fds are read between samples (each sample keeps the lowest and highest). */
const PROCESS_READ_MS = 2_000;

/** Lowest and highest of the values seen since the last reset. */
class Range {
  low = NaN;
  high = NaN;

  see(value: number): void {
    if (Number.isNaN(value)) return;
    if (!(value >= this.low)) this.low = value;
    if (!(value <= this.high)) this.high = value;
  }

  take(): { low: number; high: number } {
    const taken = { low: this.low, high: this.high };
    [this.low, this.high] = [NaN, NaN];
    return taken;
  }
}

/** Reads the server's state at each sample, and what changed since the last one (CPU time, ended optimizer jobs). */
class ServerProbe {
  private lastCpu: number;
  private lastAt = performance.now();
  private readonly jobsSeen = new Set<string>();
  /** The server's threads and the clients' (this process): both are on the path of every request. */
  private readonly share: CpuShareMeter;
  private readonly rss = new Range();
  private readonly fds = new Range();

  constructor(private readonly server: RunningServer) {
    this.lastCpu = cpuSeconds(server.pid);
    this.share = new CpuShareMeter([server.pid, process.pid]);
  }

  /** Reads RSS and open fds (often, so that a sample's lowest and highest are meaningful). */
  tick(): void {
    this.rss.see(residentBytes(this.server.pid));
    this.fds.see(openFds(this.server.pid));
  }

  async sample(stats: LoadStats, atSeconds: number): Promise<SoakSample> {
    this.tick();
    const rss = this.rss.take();
    const fds = this.fds.take();
    const searches = stats.searches.drain();
    const writes = stats.writes.drain();
    const ops = stats.ops;
    const errors = stats.errors;
    stats.ops = 0;
    stats.errors = 0;
    const snapshots = stats.snapshotSeconds;
    const snapshotBytes = stats.snapshotBytes;
    [stats.snapshotSeconds, stats.snapshotBytes] = [[], []];
    const cpuShare = this.share.share();
    const cpu = cpuSeconds(this.server.pid);
    const now = performance.now();
    const cpuPercent = ((cpu - this.lastCpu) / ((now - this.lastAt) / 1000)) * 100;
    [this.lastCpu, this.lastAt] = [cpu, now];
    const [collection, telemetry, optimizations] = await Promise.all([
      rest<{ segments_count: number; points_count: number; status: string }>(
        this.server,
        'GET',
        `/collections/${SOAK_COLLECTION}`,
      ),
      rest<{ memory: { active_bytes: number } }>(this.server, 'GET', '/telemetry?details_level=1'),
      rest<{ completed: CompletedJob[] }>(
        this.server,
        'GET',
        `/collections/${SOAK_COLLECTION}/optimizations?with=completed&completed_limit=64`,
      ),
    ]);
    const jobs: Record<string, number> = {};
    let longestJobSeconds = NaN;
    for (const job of optimizations.completed) {
      if (this.jobsSeen.has(job.uuid)) continue;
      this.jobsSeen.add(job.uuid);
      jobs[job.optimizer] = (jobs[job.optimizer] ?? 0) + 1;
      const seconds = job.progress.duration_sec ?? NaN;
      if (!(seconds <= longestJobSeconds)) longestJobSeconds = seconds;
    }
    return {
      atSeconds,
      rssBytes: rss.low,
      rssPeakBytes: rss.high,
      heapBytes: telemetry.memory.active_bytes,
      fds: fds.low,
      fdsPeak: fds.high,
      cpuPercent,
      cpuShare,
      diskBytes: directoryBytes(this.server.dataDir),
      segments: collection.segments_count,
      points: collection.points_count,
      status: collection.status,
      ops,
      searches: searches.count,
      searchP50Ms: searches.p50,
      searchP99Ms: searches.p99,
      writeP99Ms: writes.p99,
      snapshotSeconds: snapshots.length > 0 ? Math.max(...snapshots) : NaN,
      snapshotBytes: snapshotBytes.length > 0 ? Math.max(...snapshotBytes) : NaN,
      jobs,
      longestJobSeconds,
      errors,
    };
  }
}

async function rest<T>(server: RunningServer, method: string, route: string, body?: unknown): Promise<T> {
  const response = await fetch(`${server.httpUrl}${route}`, {
    method,
    headers: { 'api-key': server.apiKey, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`${method} ${route} answered ${response.status}: ${text.slice(0, 300)}`);
  return (JSON.parse(text) as { result: T }).result;
}

const COLUMNS = [
  ['time', 6],
  ['RSS MB', 9],
  ['heap MB', 8],
  ['fds', 7],
  ['CPU %', 6],
  ['CPU share', 10],
  ['disk MB', 8],
  ['segments', 9],
  ['points', 7],
  ['status', 7],
  ['req/s', 6],
  ['search p50 ms', 14],
  ['search p99 ms', 14],
  ['write p99 ms', 13],
  ['snapshot s', 11],
  ['snapshot MB', 12],
  ['jobs i/m/v/c', 13],
  ['longest job s', 14],
  ['errors', 7],
] as const;

/** The table's header line. */
export function tableHeader(): string {
  return `| ${COLUMNS.map(([name, width]) => name.padStart(width)).join(' | ')} |`;
}

/** One table row for a sample; `sampleSeconds` turns the interval's request count into a rate. */
export function tableRow(sample: SoakSample, sampleSeconds: number): string {
  const mb = (bytes: number) => (Number.isNaN(bytes) ? 'n/a' : String(Math.round(bytes / 1024 / 1024)));
  const fixed = (value: number, digits: number) => (Number.isNaN(value) ? '-' : value.toFixed(digits));
  const at = Math.round(sample.atSeconds);
  const [minutes, seconds] = [Math.floor(at / 60), at % 60];
  const cells = [
    `${minutes}:${String(seconds).padStart(2, '0')}`,
    `${mb(sample.rssBytes)}-${mb(sample.rssPeakBytes)}`,
    mb(sample.heapBytes),
    Number.isNaN(sample.fds) ? 'n/a' : `${sample.fds}-${sample.fdsPeak}`,
    fixed(sample.cpuPercent, 0),
    fixed(sample.cpuShare, 2),
    mb(sample.diskBytes),
    String(sample.segments),
    String(sample.points),
    sample.status,
    String(Math.round(sample.ops / sampleSeconds)),
    fixed(sample.searchP50Ms, 1),
    fixed(sample.searchP99Ms, 1),
    fixed(sample.writeP99Ms, 1),
    fixed(sample.snapshotSeconds, 2),
    mb(sample.snapshotBytes),
    ['indexing', 'merge', 'vacuum', 'config mismatch'].map((kind) => sample.jobs[kind] ?? 0).join('/'),
    fixed(sample.longestJobSeconds, 1),
    String(sample.errors),
  ];
  return `| ${cells.map((cell, i) => cell.padStart(COLUMNS[i][1])).join(' | ')} |`;
}
