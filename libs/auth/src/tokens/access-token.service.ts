import { JwtService } from '@nestjs/jwt';
import { createSecretKey, KeyObject, randomUUID } from 'node:crypto';
import { Access, accessOfUser, CollectionGrant, isAccess, Role } from '../access/access.model';
import { AuthErrors } from '../auth.errors';

/** The only algorithm signed and accepted; pinned so `alg: none` or an algorithm swap is refused. */
export const ACCESS_TOKEN_ALGORITHM = 'HS256';
export const TOKEN_ISSUER = 'vectorstore';
export const TOKEN_AUDIENCE = 'vectorstore';
/** Marks a JWT as an access token (the refresh token is opaque, never a JWT). */
export const ACCESS_TOKEN_USE = 'access';

/** The claims of a verified access token. `access` is Qdrant's: global `r` / `m`, or per-collection grants. */
export interface AccessClaims {
  sub: string;
  jti: string;
  iat: number;
  exp: number;
  token_use: typeof ACCESS_TOKEN_USE;
  access: Access;
  /** The user's token version when issued; a password reset or deactivation bumps it. */
  ver: number;
}

/** What the signature check needs; shared with the HTTP passport-jwt strategy so both agree. */
export interface AccessTokenVerifyOptions {
  algorithms: [typeof ACCESS_TOKEN_ALGORITHM];
  issuer: string;
  audience: string;
}

export const ACCESS_TOKEN_VERIFY_OPTIONS: AccessTokenVerifyOptions = {
  algorithms: [ACCESS_TOKEN_ALGORITHM],
  issuer: TOKEN_ISSUER,
  audience: TOKEN_AUDIENCE,
};

/** Issues and verifies access tokens (HS256 JWTs with a required `exp`). */
export class AccessTokenService {
  private readonly jwt = new JwtService();
  /**
   * The secret as a key object: jsonwebtoken first tries to read a string secret as a PEM public key, which throws
   * on every call and cost ~0.4 ms of CPU per verification (bench:auth); a key object goes straight to the HMAC.
   */
  private readonly secret: KeyObject;

  constructor(
    secret: string,
    readonly ttlSeconds: number,
  ) {
    this.secret = createSecretKey(Buffer.from(secret, 'utf8'));
  }

  /** The key, for the HTTP strategy's signature check. */
  get signingKey(): KeyObject {
    return this.secret;
  }

  sign(user: { id: string; role: Role; collections?: CollectionGrant[]; tokenVersion: number }): string {
    return this.jwt.sign(
      { token_use: ACCESS_TOKEN_USE, access: accessOfUser(user), ver: user.tokenVersion },
      {
        // jsonwebtoken takes a KeyObject; @nestjs/jwt's type names only strings and buffers.
        secret: this.secret as unknown as Buffer,
        algorithm: ACCESS_TOKEN_ALGORITHM,
        expiresIn: this.ttlSeconds,
        subject: user.id,
        jwtid: randomUUID(),
        issuer: TOKEN_ISSUER,
        audience: TOKEN_AUDIENCE,
        header: { alg: ACCESS_TOKEN_ALGORITHM, typ: 'at+jwt' },
      },
    );
  }

  /** Verifies signature, algorithm, issuer, audience and expiry, then the claims' shape. */
  verify(token: string): AccessClaims {
    let payload: unknown;
    try {
      payload = this.jwt.verify<object>(token, {
        ...ACCESS_TOKEN_VERIFY_OPTIONS,
        secret: this.secret as unknown as Buffer,
      });
    } catch (error) {
      throw (error as Error).name === 'TokenExpiredError'
        ? AuthErrors.invalidCredential('token expired')
        : AuthErrors.invalidCredential();
    }
    return checkAccessClaims(payload);
  }
}

/**
 * Checks what the signature check does not: the token is an access token and carries every
 * claim we rely on, `exp` included (jsonwebtoken treats `exp` as optional).
 */
export function checkAccessClaims(payload: unknown, nowSeconds = Math.floor(Date.now() / 1000)): AccessClaims {
  if (typeof payload !== 'object' || payload === null) throw AuthErrors.invalidCredential();
  const claims = payload as Record<string, unknown>;
  const valid =
    claims.token_use === ACCESS_TOKEN_USE &&
    typeof claims.sub === 'string' &&
    claims.sub !== '' &&
    typeof claims.jti === 'string' &&
    Number.isInteger(claims.iat) &&
    Number.isInteger(claims.exp) &&
    isAccess(claims.access) &&
    Number.isInteger(claims.ver);
  if (!valid) throw AuthErrors.invalidCredential();
  if ((claims.exp as number) <= nowSeconds) throw AuthErrors.invalidCredential('token expired');
  return claims as unknown as AccessClaims;
}
