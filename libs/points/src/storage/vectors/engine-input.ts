import { DomainError } from '@vectorstore/common';
import { EngineBusyError, EngineInputError, EngineWorkersError } from '@vectorstore/engine';

/**
 * The engine checks its inputs (dimensions, `ef`, oversampling, finiteness…) and names the broken
 * rule in an {@link EngineInputError}. Such an input came from a request, so it is a validation
 * failure (INVALID_ARGUMENT, REST 422) with the engine's message kept; any other error passes as is.
 */
export function fromEngineError(error: unknown): unknown {
  if (error instanceof EngineInputError) return DomainError.validation([error.message]);
  // A rare large beam beside searches on worker threads: the request is fine, the moment is not.
  if (error instanceof EngineBusyError) return DomainError.unavailable(`Service unavailable: ${error.message}`);
  // Worker threads that fail at every start: a retry fails the same way (the server logged it once).
  if (error instanceof EngineWorkersError) return DomainError.internal(`Service internal error: ${error.message}`);
  return error;
}

/**
 * The library's one boundary with the engine: every call made through `store` (a vector store,
 * the only kind of object in this library that calls the engine) reports engine input errors as
 * DomainErrors, so no caller, and no transport, can answer them as an internal error. The store
 * keeps its class (`instanceof` holds) and its state; only its methods are wrapped.
 */
export function translatingEngineErrors<T extends object>(store: T): T {
  const wrapped = new WeakMap<object, unknown>();
  return new Proxy(store, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      let method = wrapped.get(value);
      if (method === undefined) {
        method = (...args: unknown[]): unknown => {
          try {
            const result: unknown = Reflect.apply(value, target, args);
            return result instanceof Promise
              ? result.catch((error: unknown) => Promise.reject(fromEngineError(error)))
              : result;
          } catch (error) {
            throw fromEngineError(error);
          }
        };
        wrapped.set(value, method);
      }
      return method;
    },
  });
}
