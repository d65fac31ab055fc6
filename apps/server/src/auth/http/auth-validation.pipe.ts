import { ArgumentMetadata, Injectable, PipeTransform, ValidationPipe } from '@nestjs/common';
import { DomainError } from '@vectorstore/common';
import type { ValidationError } from 'class-validator';

/**
 * Validates auth request bodies against their DTO: unknown properties are refused, every problem
 * is reported as `field: rule` in the project's `Validation error in body: [...]` 400 answer.
 */
@Injectable()
export class AuthValidationPipe implements PipeTransform {
  private readonly inner = new ValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    forbidUnknownValues: true,
    stopAtFirstError: true,
    transform: true,
    exceptionFactory: (errors: ValidationError[]) => DomainError.validation(describe(errors)),
  });

  transform(value: unknown, metadata: ArgumentMetadata): unknown {
    if (metadata.type !== 'body') return value;
    // JSON arrays, strings or numbers are not request objects; a missing body is an empty one.
    if (value !== undefined && (typeof value !== 'object' || value === null || Array.isArray(value))) {
      throw DomainError.validation(['body: must be a JSON object']);
    }
    return this.inner.transform(value ?? {}, metadata);
  }
}

function describe(errors: readonly ValidationError[], parent = ''): string[] {
  return errors.flatMap((error) => {
    const path = parent && error.property ? `${parent}.${error.property}` : error.property || parent || 'body';
    const own = Object.entries(error.constraints ?? {}).map(([rule, message]) =>
      rule === 'whitelistValidation' ? `${path}: unknown property` : `${path}: ${message}`,
    );
    return [...own, ...describe(error.children ?? [], path)];
  });
}
