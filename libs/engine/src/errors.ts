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

/**
 * A search the engine cannot run now, though its input is valid: its beam would grow memory that worker
 * threads are reading. The storage layer maps it to UNAVAILABLE (retry).
 */
export class EngineBusyError extends Error {
  override readonly name = 'EngineBusyError';
  constructor(message: string) {
    super(message);
  }
}
