import { RefreshTokenStore, type UserRecord } from '@vectorstore/auth';
import { ClusterKeys } from '../cluster-keys';
import { MemoryMetadataStore } from '../testing/memory-metadata-store';
import { EtcdRefreshRecords } from './etcd-refresh-records';
import { EtcdUserStore } from './etcd-user-store';

const keys = new ClusterKeys('test');

function user(email: string, overrides: Partial<UserRecord> = {}): UserRecord {
  return {
    id: `id-${email}`,
    email,
    fullName: null,
    role: 'reader',
    isActive: true,
    passwordHash: '$argon2id$fake',
    tokenVersion: 0,
    createdAt: '2026-11-28T00:00:00.000Z',
    updatedAt: '2026-11-28T00:00:00.000Z',
    ...overrides,
  };
}

describe(EtcdUserStore.name, () => {
  let store: MemoryMetadataStore;
  let a: EtcdUserStore;
  let b: EtcdUserStore;

  beforeEach(async () => {
    store = new MemoryMetadataStore();
    a = new EtcdUserStore(store, keys);
    b = new EtcdUserStore(store, keys);
    await a.load();
    await b.load();
  });

  afterEach(async () => {
    await a.close();
    await b.close();
  });

  /** Polls an async condition (the watch delivers on a later tick). */
  async function eventually(condition: () => Promise<boolean>, what: string): Promise<void> {
    const deadline = Date.now() + 3000;
    while (!(await condition())) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }

  it('should show a change made on one peer on the other through its watch, with no read of its own', async () => {
    await a.update((users) => users.push(user('ann@example.com')));
    await eventually(async () => (await b.findByEmail('ann@example.com')) !== undefined, 'the user on b');
    const getSpy = jest.spyOn(store, 'get');
    expect((await b.findByEmail(' Ann@Example.com '))?.id).toBe('id-ann@example.com');
    expect((await b.findById('id-ann@example.com'))?.email).toBe('ann@example.com');
    expect(getSpy).not.toHaveBeenCalled();
  });

  it('should redo a change made from an older copy instead of overwriting the other peer’s (guarded write)', async () => {
    await a.update((users) => users.push(user('ann@example.com')));
    // b may not have seen it yet when it changes the users: its guard then fails, it reads again and redoes it.
    await b.update((users) => users.push(user('bob@example.com')));
    const both = ['ann@example.com', 'bob@example.com'];
    expect((await b.list()).map((u) => u.email).sort()).toEqual(both);
    await eventually(async () => (await a.list()).length === 2, 'a to see both users');
    expect((await a.list()).map((u) => u.email).sort()).toEqual(both);
  });

  it('should create the first admin once when two peers race', async () => {
    const first = (users: UserRecord[]) => {
      if (users.length > 0) return false;
      users.push(user('admin@localhost', { role: 'admin' }));
      return true;
    };
    const results = await Promise.all([a.update(first), b.update(first)]);
    expect(results.filter(Boolean)).toHaveLength(1);
    await eventually(async () => (await b.list()).length === 1 && (await a.list()).length === 1, 'one user');
  });
});

describe(`RefreshTokenStore over ${EtcdRefreshRecords.name} (two peers)`, () => {
  let store: MemoryMetadataStore;
  let now: number;
  let a: RefreshTokenStore;
  let b: RefreshTokenStore;
  const session = { userId: 'u', tokenVersion: 0 };
  const accept = async (s: typeof session) => s;
  const successor = (_: unknown, next: string) => next;

  beforeEach(() => {
    store = new MemoryMetadataStore();
    now = 1_000_000;
    a = new RefreshTokenStore(new EtcdRefreshRecords(store, keys, () => now), 3600, { now: () => now });
    b = new RefreshTokenStore(new EtcdRefreshRecords(store, keys, () => now), 3600, { now: () => now });
  });

  afterEach(() => {
    a.close();
    b.close();
  });

  it('should refresh on one peer a token issued on another, and log out on a third view', async () => {
    const token = await a.issue(session);
    const next = await b.rotate(token, accept, successor);
    await a.revokeFamilyOf(next);
    await expect(b.rotate(next, accept, successor)).rejects.toMatchObject({ message: 'Invalid refresh token' });
  });

  it('should give two peers refreshing one token at the same moment one successor', async () => {
    const token = await a.issue(session);
    const results = await Promise.all([
      a.rotate(token, accept, successor),
      b.rotate(token, accept, successor),
      a.rotate(token, accept, successor),
      b.rotate(token, accept, successor),
    ]);
    expect(new Set(results).size).toBe(1);
    const tokens = await store.range(keys.tokens);
    // The first token and its one successor: no fork.
    expect(tokens.keys).toHaveLength(2);
  });

  it('should revoke the family on reuse after the grace, seen from the other peer', async () => {
    const token = await a.issue(session);
    const next = await a.rotate(token, accept, successor);
    now += 11_000;
    await expect(b.rotate(token, accept, successor)).rejects.toBeDefined();
    await expect(a.rotate(next, accept, successor)).rejects.toBeDefined();
  });

  it('should sweep expired tokens, their families and seals past the grace', async () => {
    const records = new EtcdRefreshRecords(store, keys, () => now);
    const token = await a.issue(session);
    await a.rotate(token, accept, successor);
    expect((await records.sweep(10_000)).seals).toBe(0);
    now += 10_000;
    expect((await records.sweep(10_000)).seals).toBe(1);
    now += 3600 * 1000 + 60_000;
    const swept = await records.sweep(10_000);
    expect(swept).toMatchObject({ tokens: 2, families: 1 });
    expect((await store.range(keys.root)).keys.filter((k) => k.key.includes('/auth/'))).toEqual([]);
  });
});
