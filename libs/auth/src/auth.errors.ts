import { DomainError } from '@vectorstore/common';

/** Every message auth failures carry, in one place; the first two are Qdrant's wording. */
export const AuthMessages = {
  missingCredential: 'Must provide an API key or an Authorization bearer token',
  invalidCredential: 'Invalid API key or JWT',
  invalidLogin: 'Invalid email or password',
  invalidRefreshToken: 'Invalid refresh token',
  tooManyAttempts: 'Too many failed login attempts, try again later',
} as const;

export const AuthErrors = {
  missingCredential: (): DomainError => DomainError.unauthenticated(AuthMessages.missingCredential),
  /** `reason` is one of a few fixed strings (never the raw verifier text). */
  invalidCredential: (reason?: 'token expired'): DomainError =>
    DomainError.unauthenticated(
      reason ? `${AuthMessages.invalidCredential}: ${reason}` : AuthMessages.invalidCredential,
    ),
  invalidLogin: (): DomainError => DomainError.unauthenticated(AuthMessages.invalidLogin),
  invalidRefreshToken: (): DomainError => DomainError.unauthenticated(AuthMessages.invalidRefreshToken),
  tooManyAttempts: (retryAfterSeconds: number): DomainError =>
    DomainError.resourceExhausted(AuthMessages.tooManyAttempts, retryAfterSeconds),
};
