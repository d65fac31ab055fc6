import { applyDecorators, Controller, UseInterceptors } from '@nestjs/common';
import { RestEnvelopeInterceptor } from './rest-envelope.interceptor';

/**
 * An HTTP controller: Nest's `@Controller` with Qdrant's REST envelope. The envelope is bound here, per
 * HTTP controller, not as a global interceptor: a global one would also put every gRPC call through
 * Nest's interceptor chain (rxjs and an async-context binding per call) for nothing.
 */
export const HttpController = (prefix?: string): ClassDecorator =>
  applyDecorators(prefix === undefined ? Controller() : Controller(prefix), UseInterceptors(RestEnvelopeInterceptor));
