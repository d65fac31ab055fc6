/**
 * Invalid input to the engine (wrong dimension, NaN/Infinity, bad parameters), detected in TypeScript
 * before anything reaches WebAssembly. The storage layer maps it to INVALID_ARGUMENT.
 */
export class EngineInputError extends Error {
  override readonly name = 'EngineInputError';
  constructor(message: string) {
    super(message);
  }
}
