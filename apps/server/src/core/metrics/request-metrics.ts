import { Injectable } from '@nestjs/common';
import { Counter, Histogram, Registry } from 'prom-client';
import { RequestStats } from './request-stats';

const DURATION_BUCKETS = [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 10, 50];

/** One set of request metrics; `withCollection` adds Qdrant's `collection` label (`?per_collection=true`). */
class RequestMetricSet {
  readonly registry = new Registry();
  private readonly restTotal: Counter;
  private readonly restFailed: Counter;
  private readonly restDuration: Histogram;
  private readonly grpcTotal: Counter;
  private readonly grpcFailed: Counter;
  private readonly grpcDuration: Histogram;

  constructor(private readonly withCollection: boolean) {
    const extra = withCollection ? ['collection'] : [];
    const registers = [this.registry];
    this.restTotal = new Counter({
      name: 'rest_responses_total',
      help: 'total number of responses',
      labelNames: ['method', 'endpoint', 'status', ...extra],
      registers,
    });
    this.restFailed = new Counter({
      name: 'rest_responses_fail_total',
      help: 'total number of failed responses',
      labelNames: ['method', 'endpoint', 'status', ...extra],
      registers,
    });
    this.restDuration = new Histogram({
      name: 'rest_responses_duration_seconds',
      help: 'response duration histogram',
      labelNames: ['method', 'endpoint', ...extra],
      buckets: DURATION_BUCKETS,
      registers,
    });
    this.grpcTotal = new Counter({
      name: 'grpc_responses_total',
      help: 'total number of responses',
      labelNames: ['endpoint', ...extra],
      registers,
    });
    this.grpcFailed = new Counter({
      name: 'grpc_responses_fail_total',
      help: 'total number of failed responses',
      labelNames: ['endpoint', ...extra],
      registers,
    });
    this.grpcDuration = new Histogram({
      name: 'grpc_responses_duration_seconds',
      help: 'response duration histogram',
      labelNames: ['endpoint', ...extra],
      buckets: DURATION_BUCKETS,
      registers,
    });
  }

  rest(method: string, endpoint: string, status: number, seconds: number, collection?: string): void {
    if (this.withCollection && collection === undefined) return;
    const { labels, withStatus } = this.restLabels(method, endpoint, status, collection);
    this.restTotal.inc(withStatus);
    if (status >= 400) this.restFailed.inc(withStatus);
    this.restDuration.observe(labels, seconds);
  }

  /** Label objects per endpoint, status (and collection), built once, as for gRPC below. */
  private readonly restLabelsByKey = new Map<
    string,
    { labels: Record<string, string>; withStatus: Record<string, string> }
  >();

  private restLabels(method: string, endpoint: string, status: number, collection: string | undefined) {
    const key = `${method}\u0000${endpoint}\u0000${status}\u0000${this.withCollection ? collection : ''}`;
    let entry = this.restLabelsByKey.get(key);
    if (!entry) {
      const labels: Record<string, string> = this.withCollection
        ? { method, endpoint, collection: collection as string }
        : { method, endpoint };
      entry = { labels, withStatus: { ...labels, status: String(status) } };
      this.restLabelsByKey.set(key, entry);
    }
    return entry;
  }

  grpc(endpoint: string, failed: boolean, seconds: number, collection?: string): void {
    if (this.withCollection && collection === undefined) return;
    const labels = this.grpcLabels(endpoint, collection);
    this.grpcTotal.inc(labels);
    if (failed) this.grpcFailed.inc(labels);
    this.grpcDuration.observe(labels, seconds);
  }

  /** One label object per method (and collection), built once: a gRPC call records three metrics. */
  private readonly labelsByKey = new Map<string, Record<string, string>>();

  private grpcLabels(endpoint: string, collection: string | undefined): Record<string, string> {
    const key = this.withCollection ? `${endpoint}\u0000${collection}` : endpoint;
    let labels = this.labelsByKey.get(key);
    if (!labels) {
      labels = this.withCollection ? { endpoint, collection: collection as string } : { endpoint };
      this.labelsByKey.set(key, labels);
    }
    return labels;
  }
}

/**
 * Request counts and latencies per REST endpoint (route pattern) and per gRPC method, for
 * `/metrics` (prom-client) and `/telemetry` (Qdrant's statistics shape).
 */
@Injectable()
export class RequestMetrics {
  readonly global = new RequestMetricSet(false);
  readonly perCollection = new RequestMetricSet(true);
  readonly restStats = new RequestStats();
  readonly grpcStats = new RequestStats();

  recordRest(method: string, endpoint: string, status: number, seconds: number, collection?: string): void {
    this.global.rest(method, endpoint, status, seconds);
    this.perCollection.rest(method, endpoint, status, seconds, collection);
    this.restStats.add(`${method} ${endpoint}`, String(status), seconds * 1e6, status >= 400);
  }

  recordGrpc(endpoint: string, failed: boolean, seconds: number, collection?: string): void {
    this.global.grpc(endpoint, failed, seconds);
    this.perCollection.grpc(endpoint, failed, seconds, collection);
    this.grpcStats.add(endpoint, failed ? 'error' : 'ok', seconds * 1e6, failed);
  }
}
