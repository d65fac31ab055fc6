import { applyDecorators, Controller } from '@nestjs/common';
import { envelopeRoutes } from './rest-envelope';
import { isAuthRoute } from './rest-routes';

/**
 * An HTTP controller: Nest's `@Controller` with Qdrant's REST envelope (not on `/api/auth`, which keeps its own
 * shapes), bound per HTTP controller so that no gRPC call pays for it. The envelope wraps the route methods
 * themselves (see rest-envelope.ts). The `{collection_name}` path check is on the parameter (CollectionNameParam).
 */
export const HttpController = (prefix?: string): ClassDecorator => {
  const envelope = !isAuthRoute(`/${prefix ?? ''}`);
  return applyDecorators(
    prefix === undefined ? Controller() : Controller(prefix),
    ...(envelope ? [(target: object) => envelopeRoutes(target as { prototype: object })] : []),
  );
};
