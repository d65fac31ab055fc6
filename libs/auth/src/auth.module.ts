import { DynamicModule, Global, Inject, Logger, Module, OnModuleInit } from '@nestjs/common';
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
import type { UserStore } from './users/user-store';
import type { RefreshRecords } from './tokens/refresh-records';

/** The users store AuthModule uses (the data folder's file, or the cluster's). */
export const USER_STORE = Symbol('USER_STORE');

const logger = new Logger('auth');
const warn = (message: string): void => logger.warn(message);

/** Where users and refresh sessions live when not in the data folder (cluster mode: etcd, every peer the same). */
export interface AuthStores {
  users: UserStore;
  refreshRecords: RefreshRecords;
}

export const AUTH_STORES = Symbol('AUTH_STORES');

/** Makes the cluster's auth stores the ones AuthModule uses (the app imports it in cluster mode). */
@Global()
@Module({})
export class AuthStoresModule {
  static forRoot(stores: AuthStores): DynamicModule {
    return {
      module: AuthStoresModule,
      providers: [{ provide: AUTH_STORES, useValue: stores }],
      exports: [AUTH_STORES],
    };
  }
}

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
      provide: USER_STORE,
      inject: [APP_CONFIG, { token: AUTH_STORES, optional: true }],
      useFactory: async (config: AppConfig, stores?: AuthStores) => {
        const store = stores?.users ?? new FileUserStore(config.dataDir, warn);
        await store.load();
        return store;
      },
    },
    {
      provide: UserAdminService,
      inject: [USER_STORE, PasswordHasher],
      useFactory: (store: UserStore, hasher: PasswordHasher) => new UserAdminService(store, hasher),
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
      inject: [APP_CONFIG, { token: AUTH_STORES, optional: true }],
      useFactory: async (config: AppConfig, stores?: AuthStores) => {
        const store = new RefreshTokenStore(stores?.refreshRecords ?? config.dataDir, config.auth.refreshTtlSeconds, {
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
      inject: [ApiKeyVerifier, AccessTokenService, USER_STORE],
      useFactory: (keys: ApiKeyVerifier, tokens: AccessTokenService, users: UserStore) =>
        new CredentialVerifier(keys, tokens, users),
    },
    {
      provide: AuthService,
      inject: [USER_STORE, PasswordHasher, AccessTokenService, RefreshTokenStore, LoginThrottle],
      useFactory: (
        users: UserStore,
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
    @Inject(USER_STORE) private readonly store: UserStore,
    private readonly admin: UserAdminService,
  ) {}

  async onModuleInit(): Promise<void> {
    await ensureFirstAdmin(this.config.auth, this.store, this.admin, logger);
  }
}
