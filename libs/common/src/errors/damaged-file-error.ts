import { inspect } from 'node:util';

/**
 * A durable file whose content is not what was written: a checksum mismatch, a torn or truncated write, bytes that
 * no longer parse, or a file its manifest lists that is gone. The message names the file and says what is wrong,
 * on one line; `stack` is that line too, because the place in the code that noticed is no help to whoever has to
 * repair the file, and a start refused over it prints one line instead of a trace. Callers put what the underlying
 * error said into `reason` rather than passing it as a cause, whose stack a log line would print.
 */
export class DamagedFileError extends Error {
  constructor(
    /** Absolute path of the damaged file. */
    readonly path: string,
    /** What is wrong with it (no path). */
    readonly reason: string,
    options?: { advice?: string },
  ) {
    super(`${path} is damaged: ${reason}${options?.advice ? `; ${options.advice}` : ''}`);
    this.name = 'DamagedFileError';
    this.stack = `${this.name}: ${this.message}`;
  }

  /**
   * How a log shows it: its one line. Nest logs an error thrown while a provider is made (node.json, users.json at
   * start) by inspecting it, which would otherwise add `path` and `reason` on lines of their own.
   */
  [inspect.custom](): string {
    return `${this.name}: ${this.message}`;
  }

  /** The same damage with what to do about it appended to the message. */
  withAdvice(advice: string): DamagedFileError {
    return new DamagedFileError(this.path, this.reason, { advice });
  }
}
