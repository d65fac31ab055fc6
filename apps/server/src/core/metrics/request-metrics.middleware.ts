import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { RequestMetrics } from './request-metrics';

/** Qdrant names an endpoint by its route pattern: `/collections/{collection_name}`. */
function routePattern(request: Request): string | undefined {
  const route = (request as Request & { route?: { path?: unknown } }).route;
  if (typeof route?.path !== 'string') return undefined;
  return route.path.replace(/:(\w+)/g, '{$1}') || '/';
}

/** Records every REST answer that matched a route, once it is sent. */
export function requestMetricsMiddleware(metrics: RequestMetrics): RequestHandler {
  return (request: Request, response: Response, next: NextFunction) => {
    const started = process.hrtime.bigint();
    response.on('finish', () => {
      const endpoint = routePattern(request);
      if (!endpoint) return;
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      // A collection label only for answers that succeeded: names in refused requests (401, 403, 404) are
      // the client's choice, and each new label is a new series held in memory forever.
      const collection =
        response.statusCode < 400 && typeof request.params?.collection_name === 'string'
          ? request.params.collection_name
          : undefined;
      metrics.recordRest(request.method, endpoint, response.statusCode, seconds, collection);
    });
    next();
  };
}
