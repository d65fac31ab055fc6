// Security review of issue 26's auth work: regression specs for what the review found (a failing spec is written
// it.failing with the defect it shows, until fixed) and for behaviour it checked and found sound.
import * as grpc from '@grpc/grpc-js';
import { ErrorKind } from '@vectorstore/common';
import { PasswordHasher, UserAdminService, type UserRecord } from '@vectorstore/auth';
import { ClusterKeys, type MetadataStore } from '@vectorstore/cluster';
import { randomBytes } from 'node:crypto';
import { EtcdRefreshRecords } from '../../libs/cluster/src/auth/etcd-refresh-records';
import { EtcdUserStore } from '../../libs/cluster/src/auth/etcd-user-store';
import { EtcdMetadataStore } from '../../libs/cluster/src/metadata/etcd-metadata-store';
import { httpJson, login } from './support/auth-helpers';
import { clusterSecrets, eventually, startClusterPeer } from './support/cluster-harness';
import { TcpProxy } from './support/tcp-proxy';
import { etcdOrSkip, RunningEtcd, startEtcd } from './support/etcd-harness';
import { createPointsClient, credentials, unary } from './support/grpc-clients';
import { RunningServer, startServer } from './support/server-harness';

const etcdBin = etcdOrSkip();
const describeWithEtcd = etcdBin ? describe : describe.skip;

jest.setTimeout(120_000);

/** A query stage `levels` prefetches deep whose innermost stage reads point 100 of `b` through `lookup_from`. */
function nestedLookup(levels: number, shape: 'rest' | 'grpc'): Record<string, unknown> {
  let stage: Record<string, unknown> =
    shape === 'rest'
      ? { query: 100, lookup_from: { collection: 'b' }, limit: 5 }
      : { query: { nearest: { id: { num: '100' } } }, lookupFrom: { collectionName: 'b' }, limit: '5' };
  for (let level = 1; level < levels; level++) {
    stage =
      shape === 'rest'
        ? { prefetch: [stage], query: [1, 0], limit: 5 }
        : { prefetch: [stage], query: { nearest: { dense: { data: [1, 0] } } }, limit: '5' };
  }
  return stage;
}

describe('issue 26 security review: per-collection access (e2e, standalone)', () => {
  let server: RunningServer;
  let readerToken: string;
  const admin = () => ({ 'api-key': server.apiKey });
  const reader = () => ({ authorization: `Bearer ${readerToken}` });

  beforeAll(async () => {
    server = await startServer();
    for (const name of ['a', 'b']) {
      expect(
        (
          await httpJson(
            server.httpUrl,
            'PUT',
            `/collections/${name}`,
            { vectors: { size: 2, distance: 'Dot' } },
            admin(),
          )
        ).status,
      ).toBe(200);
    }
    await httpJson(
      server.httpUrl,
      'PUT',
      '/collections/a/points?wait=true',
      {
        points: [
          { id: 1, vector: [1, 0] },
          { id: 2, vector: [0, 1] },
        ],
      },
      admin(),
    );
    // An alias of b the reader has no grant for: its name must not lead to b's.
    await httpJson(
      server.httpUrl,
      'POST',
      '/collections/aliases',
      { actions: [{ create_alias: { collection_name: 'b', alias_name: 'hidden-alias' } }] },
      admin(),
    );
    // Point 100 exists in b only: a lookup into b is the only way a query on a can use it.
    await httpJson(
      server.httpUrl,
      'PUT',
      '/collections/b/points?wait=true',
      { points: [{ id: 100, vector: [0, 1] }] },
      admin(),
    );
    const created = await httpJson(
      server.httpUrl,
      'POST',
      '/api/auth/users',
      { email: 'review-a@example.com', password: 'review-password-1', collections: [{ collection: 'a', access: 'r' }] },
      admin(),
    );
    expect(created.status).toBe(201);
    readerToken = (await login(server.httpUrl, 'review-a@example.com', 'review-password-1')).tokens.access_token;
  });

  afterAll(async () => {
    await server?.stop();
  });

  it('should refuse a lookup_from into b in a shallow prefetch (REST)', async () => {
    const answer = await httpJson(
      server.httpUrl,
      'POST',
      '/collections/a/points/query',
      { prefetch: [nestedLookup(1, 'rest')], query: [1, 0] },
      reader(),
    );
    expect(answer.status).toBe(403);
  });

  // Defect (fixed in 81b2355): request-collections.ts stopped looking 8 levels into a request while the query
  // engine accepts 16 levels of prefetch, so a lookup_from 5 prefetches deep read b's vectors with a grant on a only.
  it('should refuse a lookup_from into b however deep the prefetch (REST)', async () => {
    const answer = await httpJson(
      server.httpUrl,
      'POST',
      '/collections/a/points/query',
      { prefetch: [nestedLookup(6, 'rest')], query: [1, 0] },
      reader(),
    );
    expect({ status: answer.status, text: answer.text }).toEqual({
      status: 403,
      text: expect.stringContaining('Access to collection b is required'),
    });
  });

  it('should refuse lookups into b in batch and group requests (REST and gRPC)', async () => {
    const batch = await httpJson(
      server.httpUrl,
      'POST',
      '/collections/a/points/recommend/batch',
      { searches: [{ positive: [1] }, { positive: [100], lookup_from: { collection: 'b' } }] },
      reader(),
    );
    expect(batch.status).toBe(403);
    const groups = await httpJson(
      server.httpUrl,
      'POST',
      '/collections/a/points/query/groups',
      { query: [1, 0], group_by: 'g', with_lookup: 'hidden-alias' },
      reader(),
    );
    expect(groups.status).toBe(403);
    const client = createPointsClient(server.grpcAddress, credentials(undefined, readerToken), 'qdrant');
    try {
      const error = await unary(client, 'QueryBatch', {
        collectionName: 'a',
        queryPoints: [
          { collectionName: 'a', query: { nearest: { id: { num: '100' } } }, lookupFrom: { collectionName: 'b' } },
        ],
      }).then(
        () => undefined,
        (failure: grpc.ServiceError) => failure,
      );
      expect(error?.code).toBe(grpc.status.PERMISSION_DENIED);
    } finally {
      client.close();
    }
  });

  // Defect (fixed in 87cdb58): the guards checked the collection an alias stands for and named it in the refusal, so
  // any name a reader probed told whether it is an alias and of which collection ("Access to collection b is required"
  // for hidden-alias), though lists hide b. Qdrant checks and names the name as asked.
  it('should name an alias as asked when refusing it, not the collection behind it (REST)', async () => {
    const answer = await httpJson(server.httpUrl, 'GET', '/collections/hidden-alias', undefined, reader());
    expect({ status: answer.status, text: answer.text }).toEqual({
      status: 403,
      text: expect.stringContaining('Forbidden: Access to collection hidden-alias is required'),
    });
  });

  it('should name an alias as asked when refusing it, not the collection behind it (gRPC)', async () => {
    const client = createPointsClient(server.grpcAddress, credentials(undefined, readerToken));
    try {
      const error = await unary(client, 'Count', { collectionName: 'hidden-alias' }).then(
        () => undefined,
        (failure: grpc.ServiceError) => failure,
      );
      expect({ code: error?.code, details: error?.details }).toEqual({
        code: grpc.status.PERMISSION_DENIED,
        details: 'Forbidden: Access to collection hidden-alias is required',
      });
    } finally {
      client.close();
    }
  });

  it('should refuse a lookup_from into b however deep the prefetch (gRPC)', async () => {
    const client = createPointsClient(server.grpcAddress, credentials(undefined, readerToken));
    try {
      const error = await unary(client, 'Query', {
        collectionName: 'a',
        prefetch: [nestedLookup(6, 'grpc')],
        query: { nearest: { dense: { data: [1, 0] } } },
      }).then(
        () => undefined,
        (failure: grpc.ServiceError) => failure,
      );
      expect({ code: error?.code, details: error?.details }).toEqual({
        code: grpc.status.PERMISSION_DENIED,
        details: 'Forbidden: Access to collection b is required',
      });
    } finally {
      client.close();
    }
  });
});

function userRecord(email: string): UserRecord {
  const now = new Date().toISOString();
  return {
    id: `id-${email}`,
    email,
    fullName: null,
    role: 'reader',
    isActive: true,
    passwordHash: '$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHRzYWx0$aGFzaGhhc2hoYXNoaGFzaGhhc2hoYXNoaGFzaGhhc2g',
    tokenVersion: 0,
    createdAt: now,
    updatedAt: now,
  };
}

/** The metadata store as it is, except that `beforeAnswer` runs between a read (get, range) and its answer. */
function withPause(store: MetadataStore, beforeAnswer: (key: string) => Promise<void>): MetadataStore {
  return {
    range: async (prefix) => {
      const found = await store.range(prefix);
      await beforeAnswer(prefix);
      return found;
    },
    get: async (key) => {
      const found = await store.get(key);
      await beforeAnswer(key);
      return found;
    },
    txn: (guards, writes) => store.txn(guards, writes),
    watch: (prefix, from, handlers) => store.watch(prefix, from, handlers),
    grantLease: (ttl) => store.grantLease(ttl),
    keepAlive: (id, timeout) => store.keepAlive(id, timeout),
    revokeLease: (id) => store.revokeLease(id),
    close: () => store.close(),
  };
}

describeWithEtcd('issue 26 security review: the cluster users store (real etcd)', () => {
  let etcd: RunningEtcd;
  let store: EtcdMetadataStore;
  const closing: Array<() => Promise<void>> = [];

  beforeAll(async () => {
    etcd = await startEtcd(etcdBin!);
    store = await EtcdMetadataStore.connect({ endpoints: [etcd.endpoint], timeoutMs: 3000 });
  }, 60_000);

  afterAll(async () => {
    for (const close of closing.reverse()) await close();
    await store?.close();
    await etcd?.stop();
  });

  // Defect (fixed in d82800b): EtcdUserStore.load read the users key with one call and the store revision with
  // another, then watched from that revision: a change between the two reads was neither in its copy nor in its
  // watch, so the peer kept serving the older users (a deactivated user or a reset password still accepted there)
  // until the next change.
  it('should not miss a change made while a peer reads the users at start', async () => {
    const keys = new ClusterKeys(`review-${randomBytes(3).toString('hex')}`);
    const writer = new EtcdUserStore(store, keys);
    await writer.load();
    closing.push(() => writer.close());
    await writer.update((users) => users.push(userRecord('first@example.com')));
    let raced = false;
    const reader = new EtcdUserStore(
      withPause(store, async (key) => {
        if (raced || key !== keys.users) return;
        raced = true;
        // Another peer deactivates a user between this peer's read and its watch.
        await writer.update((users) => {
          users[0].isActive = false;
          users[0].tokenVersion += 1;
        });
      }),
      keys,
    );
    await reader.load();
    closing.push(() => reader.close());
    expect(raced).toBe(true);
    await eventually(2000, async () => {
      expect((await reader.findByEmail('first@example.com'))?.isActive).toBe(false);
    });
  });

  // Defect (fixed in 12674ca): the leader's sweep read every refresh token of the cluster in one etcd range. Used
  // tokens stay until they expire (7 days), one per refresh, so a few dozen users refreshing every 15 minutes make that
  // answer pass the client's 4 MB gRPC limit within the week; from then on every sweep failed and nothing was swept
  // again.
  it('should sweep expired refresh tokens however many the cluster holds', async () => {
    const keys = new ClusterKeys(`review-${randomBytes(3).toString('hex')}`);
    const records = new EtcdRefreshRecords(store, keys);
    const familyId = '00000000-0000-4000-8000-000000000000';
    const expired = 1_000;
    const live = Date.now() + 3_600_000;
    // 30 000 used tokens of one family (a day of 15-minute refreshes by ~300 users), the first 100 expired.
    const total = 30_000;
    for (let start = 0; start < total; start += 100) {
      const puts = [];
      for (let i = start; i < start + 100; i++)
        puts.push({
          put: keys.token(randomBytes(32).toString('base64url')),
          value: JSON.stringify({ familyId, expiresAt: i < 100 ? expired : live, usedAt: Date.now() }),
        });
      expect((await store.txn([], puts)).succeeded).toBe(true);
    }
    await expect(records.sweep(10_000)).resolves.toMatchObject({ tokens: 100 });
  });

  it('should keep one active admin when two peers demote and deactivate the two admins at once', async () => {
    const keys = new ClusterKeys(`review-${randomBytes(3).toString('hex')}`);
    const [onA, onB] = [new EtcdUserStore(store, keys), new EtcdUserStore(store, keys)];
    for (const users of [onA, onB]) {
      await users.load();
      closing.push(() => users.close());
    }
    const hasher = new PasswordHasher();
    const [peerA, peerB] = [new UserAdminService(onA, hasher), new UserAdminService(onB, hasher)];
    for (let round = 0; round < 3; round++) {
      const x = await peerA.add({ email: `x${round}@example.com`, password: 'a-long-password', role: 'admin' });
      const y = await peerA.add({ email: `y${round}@example.com`, password: 'a-long-password', role: 'admin' });
      // Only x and y are active admins now: the ones of earlier rounds are demoted.
      for (const user of await peerA.list())
        if (user.role === 'admin' && user.id !== x.id && user.id !== y.id)
          await peerA.updateById(user.id, { role: 'reader' });
      await eventually(2000, async () => expect((await onB.findById(y.id))?.role).toBe('admin'));
      const outcomes = await Promise.allSettled([
        peerA.updateById(x.id, { role: 'reader' }),
        peerB.updateById(y.id, { isActive: false }),
      ]);
      expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1);
      const refused = outcomes.find((outcome) => outcome.status === 'rejected');
      expect((refused as PromiseRejectedResult).reason).toMatchObject({ kind: ErrorKind.FailedPrecondition });
      const admins = (await store.get(keys.users))!.value;
      const active = (JSON.parse(admins) as { users: UserRecord[] }).users.filter(
        (u) => u.role === 'admin' && u.isActive,
      );
      expect(active).toHaveLength(1);
    }
  });
});

describe('issue 26 security review: the users API (e2e, standalone)', () => {
  let server: RunningServer;
  const admin = () => ({ 'api-key': server.apiKey });

  beforeAll(async () => {
    server = await startServer();
  });

  afterAll(async () => {
    await server?.stop();
  });

  // Defect (fixed in 66e2011): @IsOptional() lets null through, so `is_active: null` was stored as is: the last
  // active admin was deactivated past the 412 guard (null counted as "unchanged" there, as falsy at login), and
  // users.json no longer passed its own check, so the server refused to start again. `password: null` and
  // `collections: null` were 500s.
  it('should refuse null for a field of PATCH /api/auth/users/{id} with 400 naming it, changing nothing', async () => {
    const users = await httpJson(server.httpUrl, 'GET', '/api/auth/users', undefined, admin());
    const id = (users.body as { users: Array<{ id: string }> }).users[0].id;
    for (const field of ['is_active', 'password', 'collections', 'role']) {
      const answer = await httpJson(server.httpUrl, 'PATCH', `/api/auth/users/${id}`, { [field]: null }, admin());
      expect({
        field,
        status: answer.status,
        error: (answer.body as { status?: { error?: string } }).status?.error,
      }).toEqual({
        field,
        status: 400,
        error: expect.stringContaining(`${field}: must`),
      });
    }
    expect((await login(server.httpUrl, server.adminEmail, server.adminPassword)).user.is_active).toBe(true);
    await server.stop();
    server = await server.restart();
    expect((await login(server.httpUrl, server.adminEmail, server.adminPassword)).user.is_active).toBe(true);
  });
});

describeWithEtcd('issue 26 security review: a peer cut off from etcd (e2e, 2 peers + etcd)', () => {
  let etcd: RunningEtcd;
  const peers: Array<{ server: RunningServer; proxy: TcpProxy }> = [];

  beforeAll(async () => {
    etcd = await startEtcd(etcdBin!);
    const shared = clusterSecrets();
    for (let i = 0; i < 2; i++) peers.push(await startClusterPeer(etcd, shared, { leaseTtlS: 2, etcdTimeoutMs: 1500 }));
  }, 180_000);

  afterAll(async () => {
    for (const peer of peers) {
      peer.proxy.pass();
      await peer.server.stop();
      await peer.proxy.close();
    }
    await etcd?.stop();
  }, 60_000);

  // Defect (not fixed): a peer keeps verifying access tokens against its watched copy of the users however long
  // it has been cut off from etcd, so a user deactivated (or whose password was reset) on another peer keeps using
  // that peer with an access token issued before, for up to the access token's lifetime (15 min by default);
  // docs/auth.md says such a change ends the user's tokens at once on every peer.
  it.failing('should stop accepting a deactivated user’s token on a peer cut off from the change', async () => {
    const [a, b] = peers.map((peer) => peer.server);
    const admin = { 'api-key': a.apiKey };
    const created = await httpJson(
      a.httpUrl,
      'POST',
      '/api/auth/users',
      { email: 'cut-off@example.com', password: 'cut-off-password-1', role: 'reader' },
      admin,
    );
    expect(created.status).toBe(201);
    const session = await eventually(5000, () => login(b.httpUrl, 'cut-off@example.com', 'cut-off-password-1'));
    const onB = () =>
      httpJson(b.httpUrl, 'GET', '/collections', undefined, { authorization: `Bearer ${session.tokens.access_token}` });
    expect((await onB()).status).toBe(200);
    peers[1].proxy.blackhole();
    const id = (created.body as { id: string }).id;
    expect((await httpJson(a.httpUrl, 'PATCH', `/api/auth/users/${id}`, { is_active: false }, admin)).status).toBe(200);
    // Well past the lease: B cannot know of the change, and must not go on trusting its copy.
    await new Promise((resolve) => setTimeout(resolve, 6000));
    expect((await onB()).status).toBe(401);
  });
});
