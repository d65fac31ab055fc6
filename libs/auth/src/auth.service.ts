import { DomainError } from '@vectorstore/common';
import type { Principal } from './access/access.model';
import { AuthErrors } from './auth.errors';
import { PasswordHasher } from './passwords/password-hasher';
import { LoginThrottle } from './throttling/login-throttle';
import { AccessTokenService } from './tokens/access-token.service';
import { RefreshTokenStore } from './tokens/refresh-token.store';
import { normalizeEmail } from './users/email';
import { PublicUser, toPublicUser, UserRecord } from './users/user.model';
import type { UserStore } from './users/user-store';

/** The spec's TokenPair; `token_type` is always `bearer`. */
export interface TokenPair {
  access_token: string;
  refresh_token: string;
  token_type: 'bearer';
}

/** The spec's LoginResponse. */
export interface LoginResult {
  tokens: TokenPair;
  user: PublicUser;
}

/** Login, refresh, logout and "who am I"; transport-free. */
export class AuthService {
  constructor(
    private readonly users: UserStore,
    private readonly hasher: PasswordHasher,
    private readonly accessTokens: AccessTokenService,
    private readonly refreshTokens: RefreshTokenStore,
    private readonly throttle: LoginThrottle,
  ) {}

  /**
   * Every failure (unknown email, wrong password, inactive user) gives the same error after the
   * same work: a password verification always runs, against a dummy hash when there is no user.
   */
  async login(email: string, password: string, address: string): Promise<LoginResult> {
    const account = normalizeEmail(email);
    // Counted before the (slow) password check, so a burst of parallel guesses is throttled too.
    const release = this.throttle.reserve(account, address);
    const user = await this.users.findByEmail(account);
    const passwordOk = user
      ? await this.hasher.verify(user.passwordHash, password)
      : await this.hasher.verifyDummy(password);
    if (!user || !passwordOk || !user.isActive) throw AuthErrors.invalidLogin();
    release();
    const refreshToken = await this.refreshTokens.issue({ userId: user.id, tokenVersion: user.tokenVersion });
    return { tokens: this.pair(user, refreshToken), user: toPublicUser(user) };
  }

  /**
   * Rotates the refresh token; the user must still be active and not have reset the password. A reuse within the
   * grace answers the pair of the first use (one successor per token).
   */
  async refresh(refreshToken: string): Promise<TokenPair> {
    let current: UserRecord | undefined;
    return this.refreshTokens.rotate(
      refreshToken,
      async (session) => {
        current = await this.users.findById(session.userId);
        if (!current || !current.isActive || current.tokenVersion !== session.tokenVersion)
          throw AuthErrors.invalidRefreshToken();
        return session;
      },
      (_, successor) => this.pair(current as UserRecord, successor),
    );
  }

  /** Ends the session (the refresh token's whole family). Unknown tokens are accepted silently. */
  async logout(refreshToken: string): Promise<void> {
    await this.refreshTokens.revokeFamilyOf(refreshToken);
  }

  async me(principal: Principal): Promise<PublicUser> {
    if (principal.kind !== 'user')
      throw DomainError.permissionDenied('Forbidden: an API key has no user; log in to use this endpoint');
    const user = await this.users.findById(principal.userId);
    if (!user || !user.isActive) throw AuthErrors.invalidCredential();
    return toPublicUser(user);
  }

  private pair(user: UserRecord, refreshToken: string): TokenPair {
    return { access_token: this.accessTokens.sign(user), refresh_token: refreshToken, token_type: 'bearer' };
  }
}
