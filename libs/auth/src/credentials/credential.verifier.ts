import { accessOfUser, narrowerAccess, Principal } from '../access/access.model';
import { ApiKeyVerifier } from '../api-keys/api-key.verifier';
import { AuthErrors } from '../auth.errors';
import { AccessTokenService, checkAccessClaims } from '../tokens/access-token.service';
import type { UserStore } from '../users/user-store';

/**
 * The one verifier both transports use. A credential is first compared with the static API keys
 * (constant time), then tried as an access token; as in Qdrant, either can arrive in `api-key`
 * or `authorization: Bearer`.
 */
export class CredentialVerifier {
  constructor(
    private readonly apiKeys: ApiKeyVerifier,
    private readonly accessTokens: AccessTokenService,
    private readonly users: UserStore,
  ) {}

  /** Throws Unauthenticated for a missing, unknown, expired or otherwise invalid credential. */
  async verify(credential: string | undefined): Promise<Principal> {
    if (credential === undefined || credential === '') throw AuthErrors.missingCredential();
    const keyAccess = this.apiKeys.match(credential);
    if (keyAccess !== undefined) return { kind: 'api-key', access: keyAccess };
    return this.principalFromClaims(this.accessTokens.verify(credential));
  }

  /** Only the API-key half, for transports that verify JWT signatures elsewhere (passport-jwt). */
  matchApiKey(credential: string): Principal | undefined {
    const keyAccess = this.apiKeys.match(credential);
    return keyAccess === undefined ? undefined : { kind: 'api-key', access: keyAccess };
  }

  /**
   * Turns signature-checked claims into a principal: the claims must be a complete access token,
   * and its user must still exist, be active and have the token's version. Access never exceeds
   * what the user may do now (its role, or its collection grants).
   */
  async principalFromClaims(payload: unknown): Promise<Principal> {
    const claims = checkAccessClaims(payload);
    const user = await this.users.findById(claims.sub);
    if (!user || !user.isActive || user.tokenVersion !== claims.ver) throw AuthErrors.invalidCredential();
    return {
      kind: 'user',
      userId: user.id,
      email: user.email,
      access: narrowerAccess(claims.access, accessOfUser(user)),
      tokenId: claims.jti,
    };
  }
}
