import { DamagedFileError } from '@vectorstore/common';
import { promises as fs } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { UserRecord } from './user.model';
import { FileUserStore } from './user.store';

function record(email: string, role: UserRecord['role'] = 'reader'): UserRecord {
  return {
    id: `id-${email}`,
    email,
    fullName: null,
    role,
    isActive: true,
    passwordHash: '$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA',
    tokenVersion: 3,
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:00:00.000Z',
  };
}

describe(`${FileUserStore.name} checksums`, () => {
  let dataDir: string;
  let usersFile: string;
  let copyFile: string;

  beforeEach(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'user-store-sum-'));
    usersFile = path.join(dataDir, 'auth', 'users.json');
    copyFile = path.join(dataDir, 'auth', 'users.copy.json');
    const store = new FileUserStore(dataDir);
    await store.load();
    await store.update((users) => users.push(record('admin@x.io', 'admin'), record('r@x.io')));
  });

  afterEach(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  it('should write users.json and an identical copy, each with a checksum', async () => {
    const text = await fs.readFile(usersFile, 'utf8');
    expect(await fs.readFile(copyFile, 'utf8')).toBe(text);
    expect((JSON.parse(text) as { checksum: string }).checksum).toMatch(/^crc32:[0-9a-f]{8}$/);
  });

  it('should never take a changed role: the users come from the copy, with a warning naming the file', async () => {
    const text = await fs.readFile(usersFile, 'utf8');
    await fs.writeFile(usersFile, text.replace('"reader"', '"admin"'));
    const warnings: string[] = [];
    const store = new FileUserStore(dataDir, (message) => warnings.push(message));
    await store.load();

    expect((await store.findByEmail('r@x.io'))?.role).toBe('reader');
    expect(warnings).toEqual([expect.stringMatching(/users\.json is damaged: checksum mismatch .*users\.copy\.json/)]);
  });

  it('should write both files afresh on the next change after recovering from the copy', async () => {
    await fs.truncate(usersFile, 20);
    const store = new FileUserStore(dataDir);
    await store.load();
    await store.update((users) => users.push(record('new@x.io')));

    const again = new FileUserStore(dataDir);
    await again.load();
    expect((await again.list()).map((user) => user.email).sort()).toEqual(['admin@x.io', 'new@x.io', 'r@x.io']);
    expect(await fs.readFile(copyFile, 'utf8')).toBe(await fs.readFile(usersFile, 'utf8'));
  });

  it('should refuse to load, naming users.json, when it and its copy are damaged', async () => {
    await fs.truncate(usersFile, 20);
    await fs.truncate(copyFile, 20);
    const load = new FileUserStore(dataDir).load();
    await expect(load).rejects.toBeInstanceOf(DamagedFileError);
    await expect(load).rejects.toThrow(`${usersFile} is damaged: not valid JSON`);
  });

  it('should read a users file written before checksums as it is', async () => {
    await fs.rm(copyFile);
    await fs.writeFile(usersFile, JSON.stringify({ version: 1, users: [record('old@x.io')] }));
    const store = new FileUserStore(dataDir);
    await store.load();
    expect((await store.list()).map((user) => user.email)).toEqual(['old@x.io']);
  });
});
