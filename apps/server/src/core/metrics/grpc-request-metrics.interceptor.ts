import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import { Observable, tap } from 'rxjs';
import { RequestMetrics } from './request-metrics';

/** Records every gRPC call by its method path (`/qdrant.Points/Upsert`) and outcome. */
@Injectable()
export class GrpcRequestMetricsInterceptor implements NestInterceptor {
  constructor(private readonly metrics: RequestMetrics) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType() !== 'rpc') return next.handle();
    const call = context.getArgByIndex<{ getPath?: () => string } | undefined>(2);
    const endpoint = typeof call?.getPath === 'function' ? call.getPath() : 'unknown';
    const request = context.getArgByIndex<{ collectionName?: unknown } | undefined>(0);
    const collection = typeof request?.collectionName === 'string' ? request.collectionName : undefined;
    const started = process.hrtime.bigint();
    const record = (failed: boolean) =>
      this.metrics.recordGrpc(endpoint, failed, Number(process.hrtime.bigint() - started) / 1e9, collection);
    return next.handle().pipe(tap({ next: () => record(false), error: () => record(true) }));
  }
}
