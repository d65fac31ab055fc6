import { applyDecorators } from '@nestjs/common';
import { EMAIL_OPTIONS, MAX_EMAIL_LENGTH, MAX_PASSWORD_LENGTH } from '@vectorstore/auth';
import { IsDefined, IsEmail, IsString, MaxLength, MinLength } from 'class-validator';

/*
 * Reusable field rules for the auth DTOs. Messages omit the field name: the validation pipe
 * prefixes each with its path (`email: must be a valid email address`).
 * With `stopAtFirstError` the first failing rule, in the order listed, is the one reported, so
 * the most basic checks (present, then a string) come first.
 */

/** A required, syntactically valid email address (the spec's LoginRequest.email). */
export const IsLoginEmail = (): PropertyDecorator =>
  applyDecorators(
    IsDefined({ message: 'is required' }),
    IsString({ message: 'must be a string' }),
    MaxLength(MAX_EMAIL_LENGTH, { message: `must be at most ${MAX_EMAIL_LENGTH} characters` }),
    IsEmail(EMAIL_OPTIONS, { message: 'must be a valid email address' }),
  );

/** A required, non-empty string of bounded length (passwords, refresh tokens). */
export const IsRequiredSecret = (maxLength = MAX_PASSWORD_LENGTH): PropertyDecorator =>
  applyDecorators(
    IsDefined({ message: 'is required' }),
    IsString({ message: 'must be a string' }),
    MinLength(1, { message: 'must not be empty' }),
    MaxLength(maxLength, { message: `must be at most ${maxLength} characters` }),
  );
