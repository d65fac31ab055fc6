// @vectorstore/auth: who a caller is (credentials, tokens, users) and what it may do (access by operation).
// See docs/auth.md and docs/architecture.md.

// Access rules the transports' guards apply.
export {
  isRole,
  isAccess,
  type Access,
  type AccessRule,
  type CollectionAccessMode,
  type CollectionGrant,
  type Role,
  type Principal,
  type RequiredAccess,
} from './access/access.model';
export { Public, Operation, IS_PUBLIC_KEY, OPERATION_KEY } from './access/access.decorators';
export {
  assertAccess,
  checkAccess,
  globalLevelNeeded,
  needsCollections,
  requiredAccess,
  visibleCollections,
  type AccessRequirement,
  type NamedCollection,
} from './access/access-policy';
export { OPERATION_ACCESS, isOperationName, type OperationName } from './access/operations';
export { CredentialVerifier } from './credentials/credential.verifier';

// Login, tokens and users.
export { AuthModule, AuthStoresModule, AUTH_STORES, USER_STORE, type AuthStores } from './auth.module';
export { AuthService, type LoginResult, type TokenPair } from './auth.service';
export { AuthErrors, AuthMessages } from './auth.errors';
export { AccessTokenService, ACCESS_TOKEN_VERIFY_OPTIONS } from './tokens/access-token.service';
export { REFRESH_REUSE_GRACE_MS } from './tokens/refresh-token.store';
export {
  MIN_ADMIN_SET_PASSWORD_LENGTH,
  UserAdminService,
  type NewUser,
  type UserChanges,
} from './users/user-admin.service';
export { FileUserStore } from './users/user.store';
export type { UserStore } from './users/user-store';
export type { UserRecord } from './users/user.model';
// The stores cluster mode implements (libs/cluster): users and refresh sessions.
export type { FamilyRecord, RefreshRecords, RefreshWrite, TokenRecord, Versioned } from './tokens/refresh-records';
export { RefreshTokenStore } from './tokens/refresh-token.store';
export type { PublicUser } from './users/user.model';
export { EMAIL_OPTIONS, MAX_EMAIL_LENGTH, normalizeEmail } from './users/email';
export { MAX_PASSWORD_LENGTH, PasswordHasher } from './passwords/password-hasher';
