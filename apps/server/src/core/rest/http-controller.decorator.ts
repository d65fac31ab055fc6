import { applyDecorators, Controller, UseInterceptors, UsePipes } from '@nestjs/common';
import { CollectionNamePathPipe } from './collection-name.param';
import { RestEnvelopeInterceptor } from './rest-envelope.interceptor';

/**
 * An HTTP controller: Nest's `@Controller` with Qdrant's REST envelope and the `{collection_name}` path
 * check. Both are bound here, per HTTP controller, not globally: a global interceptor would also put every
 * gRPC call through Nest's interceptor chain (rxjs and an async-context binding per call), and a global
 * pipe through its async pipe chain (about 3 KB of promises and closures per call), for nothing.
 */
export const HttpController = (prefix?: string): ClassDecorator =>
  applyDecorators(
    prefix === undefined ? Controller() : Controller(prefix),
    UseInterceptors(RestEnvelopeInterceptor),
    UsePipes(CollectionNamePathPipe),
  );
