import { promises as fs } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { UserRecord } from './user.model';
import { FileUserStore } from './user.store';

function record(email: string, overrides: Partial<UserRecord> = {}): UserRecord {
  return {
    id: `id-${email}`,
    email,
    fullName: null,
    role: 'reader',
    isActive: true,
    passwordHash: '$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA',
    tokenVersion: 0,
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:00:00.000Z',
    ...overrides,
  };
}

describe(FileUserStore.name, () => {
  let dataDir: string;

  beforeEach(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'user-store-'));
  });

  afterEach(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  describe('load', () => {
    it('should start empty on a fresh folder and create it owner-only', async () => {
      const store = new FileUserStore(dataDir);
      await store.load();
      expect(await store.list()).toEqual([]);
      expect((await fs.stat(store.dir)).mode & 0o777).toBe(0o700);
    });

    it('should refuse a malformed file at start', async () => {
      await fs.mkdir(path.join(dataDir, 'auth'));
      await fs.writeFile(path.join(dataDir, 'auth', 'users.json'), '{"version":1,"users":[{"email":1}]}');
      await expect(new FileUserStore(dataDir).load()).rejects.toThrow(/malformed/);
    });
  });

  describe('update', () => {
    it('should persist changes atomically, owner-only, and index them by email and id', async () => {
      const store = new FileUserStore(dataDir);
      await store.load();
      await store.update((users) => users.push(record('a@x.io')));
      expect((await store.findByEmail(' A@X.io '))?.id).toBe('id-a@x.io');
      expect((await store.findById('id-a@x.io'))?.email).toBe('a@x.io');
      expect((await fs.stat(store.filePath)).mode & 0o777).toBe(0o600);
    });

    it('should write nothing when the mutation throws', async () => {
      const store = new FileUserStore(dataDir);
      await store.load();
      await expect(
        store.update(() => {
          throw new Error('no');
        }),
      ).rejects.toThrow('no');
      await expect(fs.access(store.filePath)).rejects.toThrow();
    });

    it('should not lose writes made concurrently by two store instances (server and CLI)', async () => {
      const server = new FileUserStore(dataDir);
      const cli = new FileUserStore(dataDir);
      await server.load();
      await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          (i % 2 ? server : cli).update((users) => users.push(record(`u${i}@x.io`))),
        ),
      );
      expect((await server.list()).map((user) => user.email).sort()).toHaveLength(10);
    });
  });

  describe('findByEmail', () => {
    it('should see changes another process made to the file', async () => {
      const server = new FileUserStore(dataDir);
      await server.load();
      await server.update((users) => users.push(record('a@x.io')));
      const cli = new FileUserStore(dataDir);
      await cli.update((users) => {
        users[0].isActive = false;
      });
      expect((await server.findByEmail('a@x.io'))?.isActive).toBe(false);
    });

    it('should keep the last good copy when the file becomes unreadable', async () => {
      const warnings: string[] = [];
      const server = new FileUserStore(dataDir, (message) => warnings.push(message));
      await server.load();
      await server.update((users) => users.push(record('a@x.io')));
      await fs.writeFile(server.filePath, 'not json at all');
      expect((await server.findByEmail('a@x.io'))?.id).toBe('id-a@x.io');
      expect(warnings).toHaveLength(1);
    });
  });
});
