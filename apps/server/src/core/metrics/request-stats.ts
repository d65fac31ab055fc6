/** Qdrant's per-endpoint, per-status telemetry numbers (OperationDurationStatistics). */
export interface OperationStatistics {
  count: number;
  fail_count: number;
  avg_duration_micros: number;
  min_duration_micros: number;
  max_duration_micros: number;
  total_duration_micros: number;
  last_responded: string;
}

/** How many latest durations the average covers, as in Qdrant. */
const AVERAGE_WINDOW = 128;

class Accumulator {
  private count = 0;
  private failCount = 0;
  private min = Infinity;
  private max = 0;
  private total = 0;
  private readonly recent: number[] = [];
  private last = new Date(0);

  add(micros: number, failed: boolean): void {
    this.count++;
    if (failed) this.failCount++;
    this.min = Math.min(this.min, micros);
    this.max = Math.max(this.max, micros);
    this.total += micros;
    this.recent.push(micros);
    if (this.recent.length > AVERAGE_WINDOW) this.recent.shift();
    this.last = new Date();
  }

  snapshot(): OperationStatistics {
    return {
      count: this.count,
      fail_count: this.failCount,
      avg_duration_micros: this.recent.reduce((a, b) => a + b, 0) / Math.max(1, this.recent.length),
      min_duration_micros: this.min === Infinity ? 0 : this.min,
      max_duration_micros: this.max,
      total_duration_micros: Math.round(this.total),
      last_responded: this.last.toISOString(),
    };
  }
}

/** Durations per endpoint and status: `{"PUT /collections/{collection_name}": {"200": stats}}`. */
export class RequestStats {
  private readonly byEndpoint = new Map<string, Map<string, Accumulator>>();

  add(endpoint: string, status: string, micros: number, failed: boolean): void {
    let byStatus = this.byEndpoint.get(endpoint);
    if (!byStatus) this.byEndpoint.set(endpoint, (byStatus = new Map()));
    let accumulator = byStatus.get(status);
    if (!accumulator) byStatus.set(status, (accumulator = new Accumulator()));
    accumulator.add(micros, failed);
  }

  snapshot(): Record<string, Record<string, OperationStatistics>> {
    const result: Record<string, Record<string, OperationStatistics>> = {};
    for (const [endpoint, byStatus] of this.byEndpoint) {
      result[endpoint] = Object.fromEntries([...byStatus].map(([status, acc]) => [status, acc.snapshot()]));
    }
    return result;
  }
}
