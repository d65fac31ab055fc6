import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import { Observable, map } from 'rxjs';

/**
 * Sets `time` (seconds spent, as Qdrant reports it) on every gRPC response that does not set it.
 * Responses whose message has no `time` field drop it when encoded.
 */
@Injectable()
export class GrpcTimingInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType() !== 'rpc') return next.handle();
    const started = process.hrtime.bigint();
    return next.handle().pipe(
      map((response: unknown) => {
        if (typeof response === 'object' && response !== null && !('time' in response)) {
          return { ...response, time: Number(process.hrtime.bigint() - started) / 1e9 };
        }
        return response;
      }),
    );
  }
}
