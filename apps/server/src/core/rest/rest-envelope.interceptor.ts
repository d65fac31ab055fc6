import { CallHandler, ExecutionContext, Injectable, NestInterceptor, SetMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request, Response } from 'express';
import { mergeMap, Observable } from 'rxjs';
import { stringifyRestJsonSliced } from './rest-json';
import { isAuthRoute } from './rest-routes';

const RAW_REST_RESPONSE_KEY = 'vectorstore:rest:raw-response';

/** The handler's answer is sent as it is (Qdrant's `/`, health texts, `/metrics`), not in the envelope. */
export const RawRestResponse = (): MethodDecorator => SetMetadata(RAW_REST_RESPONSE_KEY, true);

/**
 * Qdrant's REST envelope: a handler's result is sent as `{"result": R, "status": "ok", "time": s}`,
 * serialised bigint-safe (`bigint` as exact digits). `/api/auth` keeps its own shapes.
 */
@Injectable()
export class RestEnvelopeInterceptor implements NestInterceptor {
  constructor(private readonly reflector: Reflector) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType() !== 'http') return next.handle();
    const http = context.switchToHttp();
    if (
      isAuthRoute(http.getRequest<Request>().path) ||
      this.reflector.get<boolean>(RAW_REST_RESPONSE_KEY, context.getHandler())
    ) {
      return next.handle();
    }
    const started = process.hrtime.bigint();
    return next.handle().pipe(
      mergeMap((result: unknown) => {
        const time = Number(process.hrtime.bigint() - started) / 1e9;
        http.getResponse<Response>().setHeader('Content-Type', 'application/json');
        // Large answers are encoded in slices so that other requests are not held up meanwhile.
        return stringifyRestJsonSliced({ result, status: 'ok', time });
      }),
    );
  }
}
