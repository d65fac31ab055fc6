import { median, percentile } from './latency';

const MB = 1024 * 1024;

/** What the soak saw of the server over one sampling interval (the state at its end, the requests during it). */
export interface SoakSample {
  /** Seconds since the load started, at the end of the interval. */
  atSeconds: number;
  /**
   * The lowest resident memory read in the interval (read every few seconds): the floor under the sawtooth of
   * garbage collection, builder threads and snapshot buffers, which is where a leak shows.
   */
  rssBytes: number;
  /** The highest resident memory read in the interval. */
  rssPeakBytes: number;
  /** V8 heap in use (telemetry `memory.active_bytes`). */
  heapBytes: number;
  /** The fewest open fds read in the interval (sockets and snapshot files come and go). */
  fds: number;
  /** The most open fds read in the interval. */
  fdsPeak: number;
  /** Server CPU over the interval, in percent of one core (all threads: optimizer builds and search workers too). */
  cpuPercent: number;
  /**
   * The share of their runnable time the server's and the clients' threads got a CPU in the interval (1: never
   * waited). Other work on the machine lowers it and raises every latency with no change in the server; the drift
   * rules judge latencies times this share.
   */
  cpuShare: number;
  /** Bytes under the server's data folder: segments, WAL, snapshots not yet deleted. */
  diskBytes: number;
  segments: number;
  points: number;
  /** Collection status: green, yellow, grey or red. */
  status: string;
  ops: number;
  searches: number;
  searchP50Ms: number;
  searchP99Ms: number;
  writeP99Ms: number;
  /** The longest snapshot creation that ended in the interval (NaN: none). */
  snapshotSeconds: number;
  /** The largest snapshot made in the interval, in bytes (NaN: none). */
  snapshotBytes: number;
  /** Optimizer jobs that ended in the interval, by kind (`indexing`, `merge`, …), and the longest one's seconds. */
  jobs: Record<string, number>;
  longestJobSeconds: number;
  errors: number;
}

/** What counts as growth or drift; the defaults are those of `npm run soak` and the e2e spec. */
export interface SoakLimits {
  /** Samples taken before this many seconds are warm-up: the collection fills, heaps and caches grow. */
  warmupSeconds: number;
  /** RSS grew if the last third's lower quartile exceeds the first third's by both of these (the middle's rose too). */
  rssGrowthRatio: number;
  rssGrowthBytes: number;
  /** Open fds grew if the last third's lower quartile exceeds the first third's by more than this. */
  fdGrowth: number;
  /** The segment count grew if the last third's lower quartile exceeds the first third's by more than this. */
  segmentGrowth: number;
  /** The data folder grew if the last third's lower quartile exceeds the first third's by both of these. */
  diskGrowthRatio: number;
  diskGrowthBytes: number;
  /** p99 (and snapshot time) drifted if the late median exceeds the early median by this factor… */
  driftRatio: number;
  /** …and by at least this much (sub-millisecond noise is no drift)… */
  p99DriftFloorMs: number;
  snapshotDriftFloorSeconds: number;
}

export const DEFAULT_LIMITS: Omit<SoakLimits, 'warmupSeconds'> = {
  rssGrowthRatio: 1.15,
  rssGrowthBytes: 96 * MB,
  fdGrowth: 8,
  segmentGrowth: 2,
  diskGrowthRatio: 1.5,
  diskGrowthBytes: 48 * MB,
  driftRatio: 2,
  p99DriftFloorMs: 10,
  snapshotDriftFloorSeconds: 0.5,
};

/** The RSS margin of runs shorter than 10 minutes: they can only catch a gross leak (see soakLimits). */
const SHORT_RUN_RSS_GROWTH_BYTES = 128 * MB;

/**
 * The limits of a run of `seconds` sampled every `sampleSeconds`: warm-up the first sixth, but at least a minute
 * (RSS still climbs that long while V8 and the allocator size their heaps) and never so long that fewer than 6
 * samples are left to judge. A run under 10 minutes judges RSS with a 128 MB margin: it has too few minutes to tell
 * a slow leak from the heaps settling, and is there to catch gross leaks, pile-ups and errors.
 */
export function soakLimits(seconds: number, sampleSeconds: number): SoakLimits {
  return {
    ...DEFAULT_LIMITS,
    warmupSeconds: Math.min(Math.max(60, Math.round(seconds / 6)), seconds - 6 * sampleSeconds),
    ...(seconds < 600 ? { rssGrowthBytes: SHORT_RUN_RSS_GROWTH_BYTES } : {}),
  };
}

/**
 * The reasons a soak failed, one sentence each (none: it passed). After warm-up the samples are cut in thirds, and
 * the last third is compared with the first (the baseline), never with a fixed number:
 * - a resource (RSS, open fds, segments, the data folder) "keeps growing" when the lower quartiles of the three
 *   thirds rise one after the other and the last is above the first by the limits' margin: the lower quartile sits
 *   under the peaks of a GC sawtooth, open connections or a snapshot's files, which come and go, and a plateau
 *   reached early (heaps that settled) does not rise twice; a leak or pile-up lifts it all along;
 * - a latency (search p99, snapshot time) "drifts" when, taken times the interval's CPU share (so that other work
 *   on the machine, which slows everything alike, cancels out), the last third's median is more than `driftRatio`
 *   times the first third's, and the two windows do not overlap: the last third's lower quartile is above the first
 *   third's upper quartile. One slow minute in either window is no drift; a shift of the whole window is.
 * Any failed request fails the soak too.
 */
export function judgeSoak(samples: readonly SoakSample[], limits: SoakLimits): string[] {
  const failures: string[] = [];
  const errors = samples.reduce((sum, s) => sum + s.errors, 0);
  if (errors > 0) failures.push(`${errors} requests failed (see the errors above)`);
  const steady = samples.filter((s) => s.atSeconds > limits.warmupSeconds);
  if (steady.length < 3) {
    failures.push(`only ${steady.length} samples after the ${limits.warmupSeconds} s warm-up: run longer`);
    return failures;
  }
  const third = Math.max(1, Math.floor(steady.length / 3));
  const early = steady.slice(0, third);
  const middle = steady.slice(third, steady.length - third);
  const late = steady.slice(steady.length - third);
  const span = (w: readonly SoakSample[]) => `${Math.round(w[0].atSeconds)}-${Math.round(w[w.length - 1].atSeconds)} s`;
  const [window, lateWindow] = [span(early), span(late)];
  const megabytes = (bytes: number) => `${Math.round(bytes / MB)} MB`;
  const count = (n: number) => String(Math.round(n * 10) / 10);
  // Each third's lower quartile is above the one before, and the last is above the first by the margin.
  const grew = (what: string, pick: (s: SoakSample) => number, margin: (first: number) => number, unit = count) => {
    const floors = [early, middle, late].map((w) => quantile(w.map(pick), 0.25));
    const [first, second, last] = floors;
    const rising = middle.length === 0 || (second > first && last > second);
    if (rising && last > first + margin(first)) {
      const shown = middle.length === 0 ? [first, last] : floors;
      failures.push(
        `${what} after warm-up: lower quartiles ${shown.map(unit).join(', then ')} from ${window} to ${lateWindow}`,
      );
    }
  };
  grew(
    'RSS kept growing',
    (s) => s.rssBytes,
    (first) => Math.max(first * (limits.rssGrowthRatio - 1), limits.rssGrowthBytes),
    megabytes,
  );
  grew(
    'open fds kept growing',
    (s) => s.fds,
    () => limits.fdGrowth,
  );
  grew(
    'segments piled up',
    (s) => s.segments,
    () => limits.segmentGrowth,
  );
  grew(
    'the data folder kept growing',
    (s) => s.diskBytes,
    (first) => Math.max(first * (limits.diskGrowthRatio - 1), limits.diskGrowthBytes),
    megabytes,
  );

  // judged on at least 2 values a window (snapshots are not made in every interval)
  const drift = (pick: (s: SoakSample) => number, floor: number) => {
    const [before, after] = [early, late].map((w) =>
      w.map((s) => pick(s) * (s.cpuShare > 0 ? s.cpuShare : 1)).filter((v) => !Number.isNaN(v)),
    );
    if (before.length < 2 || after.length < 2) return undefined;
    const [was, is] = [median(before), median(after)];
    const apart = quantile(after, 0.25) > quantile(before, 0.75);
    return apart && is > was * limits.driftRatio && is - was > floor ? { before: was, after: is } : undefined;
  };
  const p99 = drift((s) => s.searchP99Ms, limits.p99DriftFloorMs);
  if (p99) {
    failures.push(
      `search p99 drifted more than ${limits.driftRatio}x: median ${p99.before.toFixed(1)} ms at ${window}, ` +
        `${p99.after.toFixed(1)} ms at ${lateWindow} (times the CPU share)`,
    );
  }
  const snapshots = drift((s) => s.snapshotSeconds, limits.snapshotDriftFloorSeconds);
  if (snapshots) {
    failures.push(
      `snapshot time drifted more than ${limits.driftRatio}x: median ${snapshots.before.toFixed(2)} s at ${window}, ` +
        `${snapshots.after.toFixed(2)} s at ${lateWindow} (times the CPU share)`,
    );
  }
  return failures;
}

/** The nearest-rank quantile of `values`, in any order, ignoring NaN. */
function quantile(values: readonly number[], q: number): number {
  return percentile(
    values.filter((v) => !Number.isNaN(v)).sort((a, b) => a - b),
    q,
  );
}
