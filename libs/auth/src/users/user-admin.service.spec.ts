import { ErrorKind } from '@vectorstore/common';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { PasswordHasher } from '../passwords/password-hasher';
import { UserAdminService } from './user-admin.service';
import { FileUserStore } from './user.store';

describe(UserAdminService.name, () => {
  let dataDir: string;
  let store: FileUserStore;
  let admin: UserAdminService;
  const hasher = new PasswordHasher();

  beforeEach(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'user-admin-'));
    store = new FileUserStore(dataDir);
    await store.load();
    admin = new UserAdminService(store, hasher);
  });

  afterEach(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  describe('add', () => {
    it('should store a normalised email, the role, the name and only a hash', async () => {
      const user = await admin.add({
        email: ' Ann@Example.COM ',
        password: 'long-enough-pw',
        role: 'reader',
        fullName: 'Ann',
      });
      expect(user).toMatchObject({ email: 'ann@example.com', role: 'reader', full_name: 'Ann', is_active: true });
      expect(user).not.toHaveProperty('passwordHash');
      const stored = await store.findByEmail('ann@example.com');
      expect(stored?.passwordHash).not.toContain('long-enough-pw');
      expect(await hasher.verify(stored?.passwordHash ?? '', 'long-enough-pw')).toBe(true);
    });

    it('should refuse duplicates, bad emails and short passwords', async () => {
      await admin.add({ email: 'ann@example.com', password: 'long-enough-pw', role: 'reader' });
      await expect(
        admin.add({ email: 'ANN@example.com', password: 'long-enough-pw', role: 'admin' }),
      ).rejects.toMatchObject({ kind: ErrorKind.AlreadyExists });
      await expect(
        admin.add({ email: 'not-an-email', password: 'long-enough-pw', role: 'admin' }),
      ).rejects.toMatchObject({ kind: ErrorKind.InvalidArgument });
      await expect(admin.add({ email: 'bob@example.com', password: 'short', role: 'admin' })).rejects.toMatchObject({
        kind: ErrorKind.InvalidArgument,
      });
    });
  });

  describe('addFirstAdmin', () => {
    it('should create an admin only on an empty store', async () => {
      expect(await admin.addFirstAdmin('root@localhost', 'long-enough-pw')).toMatchObject({
        role: 'admin',
        email: 'root@localhost',
      });
      expect(await admin.addFirstAdmin('other@localhost', 'long-enough-pw')).toBeUndefined();
      expect(await store.list()).toHaveLength(1);
    });
  });

  describe('setActive and resetPassword', () => {
    it('should bump the token version so existing sessions end', async () => {
      await admin.add({ email: 'ann@example.com', password: 'long-enough-pw', role: 'reader' });
      await admin.setActive('ann@example.com', false);
      expect((await store.findByEmail('ann@example.com'))?.tokenVersion).toBe(1);
      await admin.setActive('ann@example.com', true);
      await admin.resetPassword('ann@example.com', 'another-long-pw');
      const user = await store.findByEmail('ann@example.com');
      expect(user).toMatchObject({ isActive: true, tokenVersion: 2 });
      expect(await hasher.verify(user?.passwordHash ?? '', 'another-long-pw')).toBe(true);
    });

    it('should report unknown users as NotFound', async () => {
      await expect(admin.setRole('nobody@example.com', 'admin')).rejects.toMatchObject({ kind: ErrorKind.NotFound });
    });
  });
});
