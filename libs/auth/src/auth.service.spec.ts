import { ErrorKind } from '@vectorstore/common';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { AuthService } from './auth.service';
import { CredentialVerifier } from './credentials/credential.verifier';
import { ApiKeyVerifier } from './api-keys/api-key.verifier';
import { PasswordHasher } from './passwords/password-hasher';
import { LoginThrottle } from './throttling/login-throttle';
import { AccessTokenService } from './tokens/access-token.service';
import { RefreshTokenStore } from './tokens/refresh-token.store';
import { UserAdminService } from './users/user-admin.service';
import { FileUserStore } from './users/user.store';

const PASSWORD = 'ann-password-1234';

describe(AuthService.name, () => {
  let dataDir: string;
  let hasher: PasswordHasher;
  let admin: UserAdminService;
  let auth: AuthService;
  let verifier: CredentialVerifier;

  beforeEach(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'auth-service-'));
    const users = new FileUserStore(dataDir);
    await users.load();
    hasher = new PasswordHasher();
    admin = new UserAdminService(users, hasher);
    const tokens = new AccessTokenService('s'.repeat(48), 900);
    const refresh = new RefreshTokenStore(dataDir, 3600);
    await refresh.load();
    auth = new AuthService(
      users,
      hasher,
      tokens,
      refresh,
      new LoginThrottle({ perAccount: 3, perAddress: 100, windowMs: 60_000 }),
    );
    verifier = new CredentialVerifier(
      new ApiKeyVerifier('manage-key-0123456789', 'read-key-0123456789'),
      tokens,
      users,
    );
    await admin.add({ email: 'ann@example.com', password: PASSWORD, role: 'reader' });
  });

  afterEach(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  describe('login', () => {
    it('should return a bearer token pair and the public user', async () => {
      const result = await auth.login('ANN@example.com', PASSWORD, '127.0.0.1');
      expect(result.tokens.token_type).toBe('bearer');
      expect(result.user).toMatchObject({ email: 'ann@example.com', role: 'reader' });
      await expect(verifier.verify(result.tokens.access_token)).resolves.toMatchObject({ kind: 'user', access: 'r' });
    });

    it('should fail identically for a wrong password, an unknown email and an inactive user', async () => {
      const failure = (email: string, password: string): Promise<unknown> =>
        auth.login(email, password, '127.0.0.1').catch((error: unknown) => error);
      const wrong = await failure('ann@example.com', 'nope');
      const unknown = await failure('ghost@example.com', PASSWORD);
      await admin.setActive('ann@example.com', false);
      const inactive = await failure('ann@example.com', PASSWORD);
      for (const error of [wrong, unknown, inactive]) {
        expect(error).toMatchObject({ kind: ErrorKind.Unauthenticated, message: 'Invalid email or password' });
      }
    });

    it('should spend a password verification on unknown emails', async () => {
      const dummy = jest.spyOn(hasher, 'verifyDummy');
      await auth.login('ghost@example.com', PASSWORD, '127.0.0.1').catch(() => undefined);
      expect(dummy).toHaveBeenCalledTimes(1);
    });

    it('should throttle an account after repeated failures, even with the right password', async () => {
      for (let i = 0; i < 3; i++) await auth.login('ann@example.com', 'nope', '127.0.0.1').catch(() => undefined);
      await expect(auth.login('ann@example.com', PASSWORD, '127.0.0.1')).rejects.toMatchObject({
        kind: ErrorKind.ResourceExhausted,
      });
    });
  });

  describe('refresh', () => {
    it('should rotate and issue a fresh access token', async () => {
      const { tokens } = await auth.login('ann@example.com', PASSWORD, '127.0.0.1');
      const pair = await auth.refresh(tokens.refresh_token);
      expect(pair.refresh_token).not.toBe(tokens.refresh_token);
      await expect(verifier.verify(pair.access_token)).resolves.toMatchObject({ kind: 'user' });
    });

    it('should answer a reuse within the grace with the same pair', async () => {
      const { tokens } = await auth.login('ann@example.com', PASSWORD, '127.0.0.1');
      const [first, second] = await Promise.all([
        auth.refresh(tokens.refresh_token),
        auth.refresh(tokens.refresh_token),
      ]);
      expect(second).toEqual(first);
    });

    it('should refuse after a password reset and pick up a new role', async () => {
      const { tokens } = await auth.login('ann@example.com', PASSWORD, '127.0.0.1');
      await admin.setRole('ann@example.com', 'admin');
      const pair = await auth.refresh(tokens.refresh_token);
      await expect(verifier.verify(pair.access_token)).resolves.toMatchObject({ access: 'm' });
      await admin.resetPassword('ann@example.com', 'brand-new-password');
      await expect(auth.refresh(pair.refresh_token)).rejects.toMatchObject({ kind: ErrorKind.Unauthenticated });
      await expect(verifier.verify(pair.access_token)).rejects.toMatchObject({ kind: ErrorKind.Unauthenticated });
    });
  });

  describe('logout', () => {
    it('should end the session', async () => {
      const { tokens } = await auth.login('ann@example.com', PASSWORD, '127.0.0.1');
      await auth.logout(tokens.refresh_token);
      await expect(auth.refresh(tokens.refresh_token)).rejects.toMatchObject({ kind: ErrorKind.Unauthenticated });
    });
  });

  describe('me', () => {
    it('should return the user of a user principal and refuse API keys', async () => {
      const { tokens } = await auth.login('ann@example.com', PASSWORD, '127.0.0.1');
      expect(await auth.me(await verifier.verify(tokens.access_token))).toMatchObject({ email: 'ann@example.com' });
      await expect(auth.me({ kind: 'api-key', access: 'm' })).rejects.toMatchObject({
        kind: ErrorKind.PermissionDenied,
      });
    });
  });
});

describe(CredentialVerifier.name, () => {
  describe('verify', () => {
    const tokens = new AccessTokenService('s'.repeat(48), 900);
    const users = { findById: async () => undefined } as unknown as FileUserStore;
    const verifier = new CredentialVerifier(
      new ApiKeyVerifier('manage-key-0123456789', 'read-key-0123456789'),
      tokens,
      users,
    );

    it('should say a credential is missing', async () => {
      await expect(verifier.verify(undefined)).rejects.toThrow(
        'Must provide an API key or an Authorization bearer token',
      );
      await expect(verifier.verify('')).rejects.toMatchObject({ kind: ErrorKind.Unauthenticated });
    });

    it('should map the keys to Qdrant access levels', async () => {
      await expect(verifier.verify('manage-key-0123456789')).resolves.toEqual({ kind: 'api-key', access: 'm' });
      await expect(verifier.verify('read-key-0123456789')).resolves.toEqual({ kind: 'api-key', access: 'r' });
    });

    it('should refuse a well-signed token whose user no longer exists', async () => {
      const token = tokens.sign({ id: 'gone', role: 'admin', tokenVersion: 0 });
      await expect(verifier.verify(token)).rejects.toThrow('Invalid API key or JWT');
    });
  });
});
