import { PATH_METADATA } from '@nestjs/common/constants';
import { SetMetadata } from '@nestjs/common';
import { stringifyRestJsonSliced } from './rest-json';

const RAW_REST_RESPONSE_KEY = 'vectorstore:rest:raw-response';

/** The handler's answer is sent as it is (Qdrant's `/`, health texts, `/metrics`), not in the envelope. */
export const RawRestResponse = (): MethodDecorator => SetMetadata(RAW_REST_RESPONSE_KEY, true);

/** An answer already written as JSON text: the HTTP adapter sends it as one buffer (see rest-http-adapter.ts). */
export class RestAnswer {
  constructor(readonly text: string) {}
}

/**
 * Qdrant's REST envelope: a handler's result is sent as `{"result": R, "status": "ok", "time": s}`, serialised
 * bigint-safe (`bigint` as exact digits), `time` being the handler's.
 *
 * Bound per controller class by `HttpController`, which wraps each route method of the class (not one marked
 * {@link RawRestResponse}). It used to be a Nest interceptor: that put every REST call through rxjs and two
 * async-context bindings (~0.03 ms of CPU per call) for a map over one value.
 */
export function envelopeRoutes(controller: { prototype: object }): void {
  const prototype = controller.prototype as Record<string, unknown>;
  for (const key of Object.getOwnPropertyNames(prototype)) {
    if (key === 'constructor') continue;
    const original = Object.getOwnPropertyDescriptor(prototype, key)?.value as unknown;
    if (typeof original !== 'function') continue;
    // Only route handlers (a path), and not those that answer in their own shape.
    if (Reflect.getMetadata(PATH_METADATA, original) === undefined) continue;
    if (Reflect.getMetadata(RAW_REST_RESPONSE_KEY, original) === true) continue;
    const handler = original as (...args: unknown[]) => unknown;
    const enveloped = async function (this: unknown, ...args: unknown[]): Promise<RestAnswer> {
      const started = process.hrtime.bigint();
      const result = await handler.apply(this, args);
      const time = Number(process.hrtime.bigint() - started) / 1e9;
      // Large answers are encoded in slices so that other requests are not held up meanwhile.
      return new RestAnswer(await stringifyRestJsonSliced({ result, status: 'ok', time }));
    };
    // Nest reads a route's metadata (path, method, operation, headers, pipes) from the function itself.
    for (const metadataKey of Reflect.getOwnMetadataKeys(handler) as unknown[])
      Reflect.defineMetadata(metadataKey, Reflect.getOwnMetadata(metadataKey, handler), enveloped);
    Object.defineProperty(enveloped, 'name', { value: handler.name });
    Object.defineProperty(prototype, key, { value: enveloped, writable: true, configurable: true });
  }
}
