import { AuthMessages } from '@vectorstore/auth';

export const AUTH_REALM = 'vectorstore';

/**
 * The `WWW-Authenticate` value for a 401 (RFC 6750 section 3): no error code when no credential
 * was sent or a login failed, `invalid_token` when a presented token or key was refused.
 */
export function bearerChallenge(message: string): string {
  if (message === AuthMessages.missingCredential || message === AuthMessages.invalidLogin) {
    return `Bearer realm="${AUTH_REALM}"`;
  }
  return `Bearer realm="${AUTH_REALM}", error="invalid_token", error_description="${message.replace(/["\\]/g, '')}"`;
}
