import { ArgumentMetadata, Injectable, PipeTransform, ValidationPipe } from '@nestjs/common';
import { DomainError } from '@vectorstore/common';
import type { ValidationError } from 'class-validator';

/**
 * The validation pipe for request bodies declared as class-validator DTOs (`@UsePipes(DtoValidationPipe)`):
 * unknown properties are refused, and every problem is reported as `field: rule` in one
 * `Validation error in body: [...]` DomainError, which the exception filter answers. Qdrant's REST
 * bodies are decoded by `core/rest` instead, to serde's rules and messages.
 */
@Injectable()
export class DtoValidationPipe implements PipeTransform {
  private readonly inner = new ValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    forbidUnknownValues: true,
    stopAtFirstError: true,
    transform: true,
    exceptionFactory: (errors: ValidationError[]) => DomainError.validation(describeErrors(errors)),
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

/** class-validator's error tree as `path: rule` issues, nested properties as dotted paths. */
export function describeErrors(errors: readonly ValidationError[], parent = ''): string[] {
  return errors.flatMap((error) => {
    const path = parent && error.property ? `${parent}.${error.property}` : error.property || parent || 'body';
    const own = Object.entries(error.constraints ?? {}).map(([rule, message]) =>
      rule === 'whitelistValidation' ? `${path}: unknown property` : `${path}: ${message}`,
    );
    return [...own, ...describeErrors(error.children ?? [], path)];
  });
}
