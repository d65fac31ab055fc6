// Security review of issue 26's auth work (libs/auth side): regression specs for what the review found and for
// behaviour it checked and found sound. The e2e side is test/e2e/auth-review-26.e2e-spec.ts.
import { ErrorKind } from '@vectorstore/common';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { PasswordHasher } from './passwords/password-hasher';
import { UserAdminService, UserChanges } from './users/user-admin.service';
import { FileUserStore } from './users/user.store';

describe('issue 26 security review: UserAdminService', () => {
  let dataDir: string;
  let store: FileUserStore;
  let admin: UserAdminService;
  const hasher = new PasswordHasher();

  beforeEach(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'review-26-'));
    store = new FileUserStore(dataDir);
    await store.load();
    admin = new UserAdminService(store, hasher);
  });

  afterEach(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  // Defect (fixed): a null `isActive` from a transport counted as "unchanged" in the last-admin guard and as
  // inactive at login, and made users.json fail its own check at the next start; null password or grants threw
  // TypeErrors (500s).
  it.each([
    ['isActive', { isActive: null }],
    ['password', { password: null }],
    ['collections', { collections: null }],
  ])('should refuse a null %s with InvalidArgument and change nothing', async (_, changes) => {
    const only = await admin.add({ email: 'root@example.com', password: 'a-long-password', role: 'admin' });
    await expect(admin.updateById(only.id, changes as unknown as UserChanges)).rejects.toMatchObject({
      kind: ErrorKind.InvalidArgument,
    });
    const stored = await store.findById(only.id);
    expect({ isActive: stored?.isActive, tokenVersion: stored?.tokenVersion }).toEqual({
      isActive: true,
      tokenVersion: 0,
    });
    // The file still loads (a fresh store reads it strictly, as the server does at start).
    const reloaded = new FileUserStore(dataDir);
    await expect(reloaded.load()).resolves.toBeUndefined();
  });

  it('should refuse to demote or deactivate the last active admin, however the change is spelled', async () => {
    const only = await admin.add({ email: 'root@example.com', password: 'a-long-password', role: 'admin' });
    for (const changes of [
      { isActive: false },
      { role: 'reader' as const },
      { role: 'reader' as const, isActive: true },
    ])
      await expect(admin.updateById(only.id, changes)).rejects.toMatchObject({ kind: ErrorKind.FailedPrecondition });
  });
});
