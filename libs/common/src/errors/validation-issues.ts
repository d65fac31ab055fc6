import { DomainError, ValidationLocation } from './domain-error';

/**
 * Collects validation failures as `path: rule` strings (the field named as on the wire, snake_case)
 * and throws them together in Qdrant's `Validation error in body: [...]` format.
 */
export class ValidationIssues {
  private readonly issues: string[] = [];

  add(path: string, message: string): void {
    this.issues.push(`${path}: ${message}`);
  }

  /** The collected `path: rule` strings. */
  list(): readonly string[] {
    return this.issues;
  }

  get empty(): boolean {
    return this.issues.length === 0;
  }

  throwIfAny(location?: ValidationLocation): void {
    if (!this.empty) throw DomainError.validation(this.issues, location);
  }

  /** Integer range check; `max` may be omitted. Undefined values pass (they are optional). */
  range(path: string, value: number | undefined, min: number, max?: number): void {
    if (value === undefined) return;
    if (!Number.isInteger(value)) {
      this.add(path, `value ${value} invalid, must be an integer`);
      return;
    }
    if (value < min || (max !== undefined && value > max)) {
      this.add(
        path,
        max === undefined
          ? `value ${value} invalid, must be ${min} or larger`
          : `value ${value} invalid, must be from ${min} to ${max}`,
      );
    }
  }

  /** Floating-point range check with inclusive bounds. */
  between(path: string, value: number | undefined, min: number, max: number): void {
    if (value === undefined) return;
    if (!Number.isFinite(value) || value < min || value > max) {
      this.add(path, `value ${value} invalid, must be from ${min} to ${max}`);
    }
  }

  oneOf<T extends string>(path: string, value: string | undefined, allowed: readonly T[]): void {
    if (value === undefined) return;
    if (!(allowed as readonly string[]).includes(value)) {
      this.add(path, `value ${value} invalid, must be one of ${allowed.join(', ')}`);
    }
  }
}
