// Auth as one system across the cluster (issue 26): three peers and one etcd; users and refresh sessions live in
// etcd, so a credential from one peer works on every peer, over REST and gRPC, and every change holds everywhere.
import * as grpc from '@grpc/grpc-js';
import { randomBytes } from 'node:crypto';
import { httpJson, login, LoginBody, refresh, runUserCli, TokenPairBody } from './support/auth-helpers';
import { clusterSecrets, eventually, startClusterPeer } from './support/cluster-harness';
import { livePeerIds } from './support/cluster-client';
import { etcdOrSkip, RunningEtcd, startEtcd } from './support/etcd-harness';
import { createCollectionsClient, credentials, unary } from './support/grpc-clients';
import { RunningServer } from './support/server-harness';
import { TcpProxy } from './support/tcp-proxy';

const etcdBin = etcdOrSkip();
const describeWithEtcd = etcdBin ? describe : describe.skip;

jest.setTimeout(60_000);

describeWithEtcd('auth across the cluster (e2e, 3 peers + etcd)', () => {
  let etcd: RunningEtcd;
  const peers: Array<{ server: RunningServer; proxy: TcpProxy }> = [];
  const shared = clusterSecrets();
  const [a, b, c] = [0, 1, 2].map((i) => () => peers[i].server);
  const suffix = randomBytes(3).toString('hex');

  beforeAll(async () => {
    etcd = await startEtcd(etcdBin!);
    for (let i = 0; i < 3; i++) peers.push(await startClusterPeer(etcd, shared, { leaseTtlS: 2, etcdTimeoutMs: 1500 }));
    await eventually(15_000, async () => {
      for (const peer of peers) expect(await livePeerIds(peer.server)).toHaveLength(3);
    });
  }, 120_000);

  afterAll(async () => {
    for (const peer of peers) {
      await peer.server.stop();
      await peer.proxy.close();
    }
    await etcd?.stop();
  }, 60_000);

  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

  async function grpcListStatus(server: RunningServer, token: string): Promise<number> {
    const client = createCollectionsClient(server.grpcAddress, credentials(undefined, token));
    try {
      await unary(client as unknown as grpc.Client, 'List', {});
      return 0;
    } catch (error) {
      return (error as grpc.ServiceError).code;
    } finally {
      (client as unknown as grpc.Client).close();
    }
  }

  const restStatus = async (server: RunningServer, token: string) =>
    (await httpJson(server.httpUrl, 'GET', '/collections', undefined, bearer(token))).status;

  it('should have made one first admin for the whole cluster', async () => {
    const ids = new Set<string>();
    for (const peer of peers) {
      const session = await login(peer.server.httpUrl, peer.server.adminEmail, peer.server.adminPassword);
      ids.add(String(session.user.id));
    }
    expect(ids.size).toBe(1);
    const listed = await httpJson(a().httpUrl, 'GET', '/api/auth/users', undefined, { 'api-key': a().apiKey });
    expect((listed.body as { users: unknown[] }).users).toHaveLength(1);
  });

  it('should accept a login made on A on B and C, over REST and gRPC', async () => {
    const session = await login(a().httpUrl, a().adminEmail, a().adminPassword);
    for (const server of [a(), b(), c()]) {
      expect(await restStatus(server, session.tokens.access_token)).toBe(200);
      expect(await grpcListStatus(server, session.tokens.access_token)).toBe(0);
    }
  });

  it('should refresh on C with A’s token, and end the session everywhere with a logout on B', async () => {
    const session = await login(a().httpUrl, a().adminEmail, a().adminPassword);
    const rotated = await refresh(c().httpUrl, session.tokens.refresh_token);
    expect(rotated.status).toBe(200);
    const pair = rotated.body as TokenPairBody;
    expect(await restStatus(b(), pair.access_token)).toBe(200);
    const loggedOut = await httpJson(b().httpUrl, 'POST', '/api/auth/logout', { refresh_token: pair.refresh_token });
    expect(loggedOut.status).toBe(204);
    const started = Date.now();
    await eventually(2000, async () => expect((await refresh(a().httpUrl, pair.refresh_token)).status).toBe(401));
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('should give two peers refreshing one token at the same moment one successor', async () => {
    const session = await login(b().httpUrl, b().adminEmail, b().adminPassword);
    const answers = await Promise.all(
      [a(), b(), c(), a(), b(), c()].map((server) => refresh(server.httpUrl, session.tokens.refresh_token)),
    );
    expect(answers.map((answer) => answer.status)).toEqual(Array(6).fill(200));
    const successors = new Set(answers.map((answer) => (answer.body as TokenPairBody).refresh_token));
    expect(successors.size).toBe(1);
    // And the one chain goes on from it.
    expect((await refresh(c().httpUrl, [...successors][0])).status).toBe(200);
  });

  it('should let a user created through A log in on C within 2 s, and a password reset on A hold on B', async () => {
    const email = `ann-${suffix}@example.com`;
    const created = await httpJson(
      a().httpUrl,
      'POST',
      '/api/auth/users',
      { email, password: 'ann-password-1234', role: 'reader' },
      { 'api-key': a().apiKey },
    );
    expect(created.status).toBe(201);
    const id = (created.body as { id: string }).id;
    let session: LoginBody | undefined;
    await eventually(2000, async () => (session = await login(c().httpUrl, email, 'ann-password-1234')));
    // Readers read, everywhere.
    expect(await restStatus(b(), session!.tokens.access_token)).toBe(200);
    const reset = await httpJson(
      a().httpUrl,
      'PATCH',
      `/api/auth/users/${id}`,
      { password: 'ann-new-password-99' },
      { 'api-key': a().apiKey },
    );
    expect(reset.status).toBe(200);
    await eventually(2000, async () => {
      const old = await httpJson(b().httpUrl, 'POST', '/api/auth/login', { email, password: 'ann-password-1234' });
      expect(old.status).toBe(401);
      // The reset ended the sessions: the old access token stops working on every peer.
      expect(await restStatus(c(), session!.tokens.access_token)).toBe(401);
    });
    await login(b().httpUrl, email, 'ann-new-password-99');
    // Deactivated on C: refused on A.
    await httpJson(c().httpUrl, 'PATCH', `/api/auth/users/${id}`, { is_active: false }, { 'api-key': c().apiKey });
    await eventually(2000, async () => {
      const refused = await httpJson(a().httpUrl, 'POST', '/api/auth/login', {
        email,
        password: 'ann-new-password-99',
      });
      expect(refused.status).toBe(401);
    });
  });

  it('should let the user CLI, run with a peer’s environment, change the cluster’s users', async () => {
    const email = `cli-${suffix}@example.com`;
    const env = { ...b().env };
    const added = await runUserCli(b().dataDir, ['add', email, '--role', 'reader'], 'cli-password-12345\n', env);
    expect(added).toMatchObject({ code: 0 });
    expect(added.stdout).toContain(`${email} role=reader active`);
    await eventually(2000, async () => login(a().httpUrl, email, 'cli-password-12345'));
    const listed = await runUserCli(c().dataDir, ['list', '--json'], '', { ...c().env });
    expect((JSON.parse(listed.stdout) as Array<{ email: string }>).map((u) => u.email)).toContain(email);
  });
});
