import { Delete, Get, Header, Query } from '@nestjs/common';
import { Operation } from '@vectorstore/auth';
import { ClusterService, CollectionsService } from '@vectorstore/collections';
import { SegmentsReporter } from '@vectorstore/points';
import { randomUUID } from 'node:crypto';
import { RequestMetrics } from '../core/metrics/request-metrics';
import { RawRestResponse } from '../core/rest/rest-envelope';
import { readBoolParam, readUintParam, RestQuery } from '../core/rest/rest-query';
import { renderMetrics } from './rest/metrics.renderer';
import { telemetryToRest } from './rest/telemetry.mapper';
import { HttpController } from '../core/rest/http-controller.decorator';

/** Qdrant's node-level routes: `/metrics`, `/telemetry`, `/issues`. Each needs a credential, as in Qdrant. */
@HttpController()
export class ServiceHttpController {
  private readonly id = randomUUID();
  private readonly startedAt = new Date();

  constructor(
    private readonly collections: CollectionsService,
    private readonly cluster: ClusterService,
    private readonly metrics: RequestMetrics,
    private readonly segments: SegmentsReporter,
  ) {}

  @Operation('Service/Metrics')
  @Get('metrics')
  @RawRestResponse()
  @Header('Content-Type', 'text/plain; version=0.0.4; charset=utf-8')
  metricsText(@Query() query: RestQuery): Promise<string> {
    readBoolParam(query, 'anonymize');
    readUintParam(query, 'timeout');
    const perCollection = readBoolParam(query, 'per_collection') ?? false;
    const counts = this.collections.list().map((name) => {
      const info = this.collections.get(name);
      return { name, points: info.pointsCount, indexedVectors: info.indexedVectorsCount };
    });
    return renderMetrics(counts, (perCollection ? this.metrics.perCollection : this.metrics.global).registry);
  }

  @Operation('Service/Telemetry')
  @Get('telemetry')
  telemetry(@Query() query: RestQuery): unknown {
    readBoolParam(query, 'anonymize');
    readBoolParam(query, 'per_collection');
    readUintParam(query, 'timeout');
    const detailsLevel = readUintParam(query, 'details_level') ?? 0;
    return telemetryToRest({
      id: this.id,
      startedAt: this.startedAt,
      detailsLevel,
      collections: this.collections.list().map((name) => ({
        name,
        info: this.collections.get(name),
        cluster: detailsLevel >= 3 ? this.cluster.clusterInfo(name) : undefined,
        segments: detailsLevel >= 4 ? this.segments.segmentsOf(name) : undefined,
      })),
      rest: this.metrics.restStats.snapshot(),
      grpc: this.metrics.grpcStats.snapshot(),
    });
  }

  /** A single healthy node reports no issues. */
  @Operation('Service/Issues')
  @Get('issues')
  issues(): { issues: never[] } {
    return { issues: [] };
  }

  @Operation('Service/ClearIssues')
  @Delete('issues')
  clearIssues(): boolean {
    return true;
  }
}
