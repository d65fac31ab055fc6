import { Inject, Logger, Module, OnModuleInit } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '@vectorstore/config';
import { ApiKeyVerifier } from './api-keys/api-key.verifier';
import { AuthService } from './auth.service';
import { CredentialVerifier } from './credentials/credential.verifier';
import { PasswordHasher } from './passwords/password-hasher';
import { LoginThrottle } from './throttling/login-throttle';
import { AccessTokenService } from './tokens/access-token.service';
import { loadOrCreateJwtSecret } from './tokens/jwt-secret';
import { RefreshTokenStore } from './tokens/refresh-token.store';
import { ensureFirstAdmin } from './users/first-admin';
import { UserAdminService } from './users/user-admin.service';
import { FileUserStore } from './users/user.store';

const logger = new Logger('auth');
const warn = (message: string): void => logger.warn(message);

/**
 * Users, passwords, tokens and keys, built from the validated config. The plain classes stay
 * framework-free (the CLI uses them without Nest); this module only wires and loads them.
 */
@Module({
  providers: [
    {
      provide: PasswordHasher,
      useFactory: async () => {
        const hasher = new PasswordHasher();
        await hasher.warmUp();
        return hasher;
      },
    },
    {
      provide: FileUserStore,
      inject: [APP_CONFIG],
      useFactory: async (config: AppConfig) => {
        const store = new FileUserStore(config.dataDir, warn);
        await store.load();
        return store;
      },
    },
    {
      provide: UserAdminService,
      inject: [FileUserStore, PasswordHasher],
      useFactory: (store: FileUserStore, hasher: PasswordHasher) => new UserAdminService(store, hasher),
    },
    {
      provide: AccessTokenService,
      inject: [APP_CONFIG],
      useFactory: async (config: AppConfig) =>
        new AccessTokenService(
          await loadOrCreateJwtSecret(config.dataDir, config.auth.jwtSecret),
          config.auth.accessTtlSeconds,
        ),
    },
    {
      provide: RefreshTokenStore,
      inject: [APP_CONFIG],
      useFactory: async (config: AppConfig) => {
        const store = new RefreshTokenStore(config.dataDir, config.auth.refreshTtlSeconds, {
          reuseGraceMs: config.auth.refreshReuseGraceSeconds * 1000,
          onWarning: warn,
        });
        await store.load();
        return store;
      },
    },
    {
      provide: ApiKeyVerifier,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => new ApiKeyVerifier(config.auth.apiKey, config.auth.readOnlyApiKey),
    },
    { provide: LoginThrottle, useFactory: () => new LoginThrottle() },
    {
      provide: CredentialVerifier,
      inject: [ApiKeyVerifier, AccessTokenService, FileUserStore],
      useFactory: (keys: ApiKeyVerifier, tokens: AccessTokenService, users: FileUserStore) =>
        new CredentialVerifier(keys, tokens, users),
    },
    {
      provide: AuthService,
      inject: [FileUserStore, PasswordHasher, AccessTokenService, RefreshTokenStore, LoginThrottle],
      useFactory: (
        users: FileUserStore,
        hasher: PasswordHasher,
        tokens: AccessTokenService,
        refresh: RefreshTokenStore,
        throttle: LoginThrottle,
      ) => new AuthService(users, hasher, tokens, refresh, throttle),
    },
  ],
  exports: [AuthService, CredentialVerifier, AccessTokenService, UserAdminService],
})
export class AuthModule implements OnModuleInit {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly store: FileUserStore,
    private readonly admin: UserAdminService,
  ) {}

  async onModuleInit(): Promise<void> {
    await ensureFirstAdmin(this.config.auth, this.store, this.admin, logger);
  }
}
