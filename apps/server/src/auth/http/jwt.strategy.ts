import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { ACCESS_TOKEN_VERIFY_OPTIONS, AccessTokenService, CredentialVerifier, Principal } from '@vectorstore/auth';
import { Strategy } from 'passport-jwt';
import { credentialFromRequest } from './credential-from-request';

/**
 * passport-jwt checks the signature with the same pinned options the gRPC side uses
 * (HS256 only, issuer, audience, expiry); the claims then go through the shared verifier.
 */
@Injectable()
export class JwtStrategy extends PassportStrategy(Strategy, 'jwt') {
  constructor(
    tokens: AccessTokenService,
    private readonly verifier: CredentialVerifier,
  ) {
    super({
      jwtFromRequest: credentialFromRequest,
      // passport-jwt hands the key to jsonwebtoken, which takes a KeyObject (see AccessTokenService).
      secretOrKey: tokens.signingKey as unknown as Buffer,
      algorithms: ACCESS_TOKEN_VERIFY_OPTIONS.algorithms,
      issuer: ACCESS_TOKEN_VERIFY_OPTIONS.issuer,
      audience: ACCESS_TOKEN_VERIFY_OPTIONS.audience,
      ignoreExpiration: false,
    });
  }

  validate(payload: unknown): Promise<Principal> {
    return this.verifier.principalFromClaims(payload);
  }
}
