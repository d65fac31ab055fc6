/** The few `/metrics` numbers the dashboard charts, read from Prometheus' text format. */
export interface MetricsSample {
  /** When the sample was taken, ms. */
  at: number;
  /** REST and gRPC responses so far. */
  responses: number;
  /** Sum of their durations, seconds. */
  durationSeconds: number;
  collections: number;
}

/** `name{labels} value`; label values are quoted and may hold `}` (route templates such as `/collections/{name}`). */
const LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(?:[^"}]|"(?:[^"\\]|\\.)*")*\})?\s+(\S+)/;

/** Sums every series of each metric name (labels ignored). */
export function sumByName(text: string): Map<string, number> {
  const sums = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue;
    const match = LINE.exec(line);
    if (!match) continue;
    const value = Number(match[3]);
    if (Number.isFinite(value)) sums.set(match[1], (sums.get(match[1]) ?? 0) + value);
  }
  return sums;
}

export function sampleOf(text: string, at: number): MetricsSample {
  const sums = sumByName(text);
  const get = (name: string): number => sums.get(name) ?? 0;
  return {
    at,
    responses: get('rest_responses_total') + get('grpc_responses_total'),
    durationSeconds: get('rest_responses_duration_seconds_sum') + get('grpc_responses_duration_seconds_sum'),
    collections: get('collections_total'),
  };
}

export interface Rate {
  at: number;
  perSecond: number;
  /** Mean latency of the responses in the interval, ms (0 when there were none). */
  latencyMs: number;
}

/** Requests per second and mean latency between two samples. */
export function rateBetween(previous: MetricsSample, current: MetricsSample): Rate {
  const seconds = Math.max(0.001, (current.at - previous.at) / 1000);
  const count = Math.max(0, current.responses - previous.responses);
  const duration = Math.max(0, current.durationSeconds - previous.durationSeconds);
  return { at: current.at, perSecond: count / seconds, latencyMs: count > 0 ? (duration / count) * 1000 : 0 };
}
