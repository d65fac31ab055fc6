import type { sendUnaryData, ServerUnaryCall } from '@grpc/grpc-js';
import { GrpcOptions } from '@nestjs/microservices';
import { ServerGrpc } from '@nestjs/microservices/server';
import { isObservable, lastValueFrom } from 'rxjs';
import { RequestMetrics } from '../core/metrics/request-metrics';

type UnaryHandler = (request: unknown, metadata: unknown, call: unknown) => unknown;

/**
 * Nest's gRPC server, with each unary call timed and counted here, around Nest's handler (guards, pipes,
 * the exception filter, the controller) rather than by interceptors: an interceptor puts every call through
 * rxjs and binds an async context per call, which the profile showed as a large share of a search's cost.
 * A response gets `time` (seconds spent, as Qdrant reports it) unless it sets one; the call is recorded by
 * its method path (`/qdrant.Points/Search`) and outcome.
 */
export class TimedGrpcServer extends ServerGrpc {
  constructor(
    options: GrpcOptions['options'],
    private readonly metrics: RequestMetrics,
  ) {
    super(options);
  }

  override createUnaryServiceMethod(
    methodHandler: UnaryHandler,
  ): (call: ServerUnaryCall<unknown, unknown>, callback: sendUnaryData<unknown>) => Promise<void> {
    return async (call, callback) => {
      const started = process.hrtime.bigint();
      const endpoint = typeof call.getPath === 'function' ? call.getPath() : 'unknown';
      const request = call.request as { collectionName?: unknown } | undefined;
      const collection = typeof request?.collectionName === 'string' ? request.collectionName : undefined;
      const elapsed = () => Number(process.hrtime.bigint() - started) / 1e9;
      let response: unknown;
      try {
        const result = await methodHandler(call.request, call.metadata, call);
        response = isObservable(result) ? await lastValueFrom(result) : await result;
      } catch (error) {
        // No collection label on a failure: a caller (even one the guard refuses) must not mint label values.
        this.metrics.recordGrpc(endpoint, true, elapsed());
        callback(error as Parameters<sendUnaryData<unknown>>[0]);
        return;
      }
      const seconds = elapsed();
      this.metrics.recordGrpc(endpoint, false, seconds, collection);
      const timed =
        typeof response === 'object' && response !== null && !('time' in response)
          ? { ...response, time: seconds }
          : response;
      callback(null, timed);
    };
  }
}
