/** Latencies of one kind of request, collected over a sampling interval and then reset. */
export class LatencyWindow {
  private values: number[] = [];

  record(ms: number): void {
    this.values.push(ms);
  }

  /** The interval's count and percentiles (NaN when nothing ran); starts a new interval. */
  drain(): { count: number; p50: number; p99: number } {
    const sorted = this.values.sort((a, b) => a - b);
    this.values = [];
    return { count: sorted.length, p50: percentile(sorted, 0.5), p99: percentile(sorted, 0.99) };
  }
}

/** The nearest-rank percentile of ascending `sorted` (NaN when empty). */
export function percentile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}

/** The median of `values` (the mean of the middle two of an even count), ignoring NaN (NaN when none). */
export function median(values: readonly number[]): number {
  const sorted = values.filter((v) => !Number.isNaN(v)).sort((a, b) => a - b);
  if (sorted.length === 0) return NaN;
  const half = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[half] : (sorted[half - 1] + sorted[half]) / 2;
}
