import * as grpc from '@grpc/grpc-js';
import { globalLevelNeeded, isOperationName, OPERATION_ACCESS } from '@vectorstore/auth';
import {
  callForStatus,
  enumerateRpcMethods,
  isHealthService,
  login,
  LoginBody,
  RpcMethod,
  runUserCli,
} from './support/auth-helpers';
import { credentials } from './support/grpc-clients';
import { RunningServer, startServer } from './support/server-harness';

// The official client, unchanged (CommonJS build).
const { QdrantClient } = require('@qdrant/js-client-grpc') as typeof import('@qdrant/js-client-grpc');

jest.setTimeout(60_000);

const label = (rpc: RpcMethod): string => `/${rpc.service}/${rpc.method}`;
/** Every method of both packages, from the service definitions (the health service is shared). */
const ALL_METHODS: RpcMethod[] = [
  ...new Map(
    [...enumerateRpcMethods('vectorstore'), ...enumerateRpcMethods('qdrant')].map((rpc) => [label(rpc), rpc]),
  ).values(),
];
const PROTECTED = ALL_METHODS.filter((rpc) => !isHealthService(rpc.service));
const HEALTH = ALL_METHODS.filter((rpc) => isHealthService(rpc.service));
/** The operation table decides; a method missing from it counts as a write (the guard fails closed too). */
const WRITES = PROTECTED.filter((rpc) => {
  const operation = `${rpc.service.split('.').pop()}/${rpc.method}`;
  return !isOperationName(operation) || globalLevelNeeded(OPERATION_ACCESS[operation]) === 'manage';
});
const READS = PROTECTED.filter((rpc) => !WRITES.includes(rpc));
/** Codes an allowed call may still fail with on an empty request (Qdrant's auth tests allow the same). */
const ALLOWED_FAILURES = [
  grpc.status.OK,
  grpc.status.INVALID_ARGUMENT,
  grpc.status.NOT_FOUND,
  grpc.status.FAILED_PRECONDITION,
  grpc.status.UNIMPLEMENTED,
];

describe('auth over gRPC (e2e)', () => {
  let server: RunningServer;
  let readerSession: LoginBody;
  let adminSession: LoginBody;

  beforeAll(async () => {
    server = await startServer();
    const added = await runUserCli(
      server.dataDir,
      ['add', 'reader@example.com', '--role', 'reader'],
      'reader-password-123\n',
    );
    expect(added.code).toBe(0);
    readerSession = await login(server.httpUrl, 'reader@example.com', 'reader-password-123');
    adminSession = await login(server.httpUrl, server.adminEmail, server.adminPassword);
  });

  afterAll(async () => {
    await server?.stop();
  });

  it('should find every service of both packages in the definitions', () => {
    const services = new Set(PROTECTED.map((rpc) => rpc.service));
    expect([...services]).toEqual(expect.arrayContaining(['vectorstore.Collections', 'qdrant.Collections']));
    expect(WRITES.length).toBeGreaterThanOrEqual(14);
  });

  it.each(PROTECTED.map((rpc) => [label(rpc), rpc] as const))(
    '%s without a credential should be UNAUTHENTICATED',
    async (_, rpc) => {
      const answer = await callForStatus(server.grpcAddress, rpc);
      expect(answer).toEqual({
        code: grpc.status.UNAUTHENTICATED,
        details: 'Must provide an API key or an Authorization bearer token',
      });
    },
  );

  it.each(PROTECTED.map((rpc) => [label(rpc), rpc] as const))(
    '%s with a wrong key or token should be UNAUTHENTICATED',
    async (_, rpc) => {
      expect((await callForStatus(server.grpcAddress, rpc, credentials('wrong-key-wrong-key'))).code).toBe(
        grpc.status.UNAUTHENTICATED,
      );
      expect((await callForStatus(server.grpcAddress, rpc, credentials(undefined, 'a.b.c'))).code).toBe(
        grpc.status.UNAUTHENTICATED,
      );
    },
  );

  it.each(HEALTH.map((rpc) => [label(rpc), rpc] as const))('%s should be open without a credential', async (_, rpc) => {
    expect((await callForStatus(server.grpcAddress, rpc)).code).toBe(grpc.status.OK);
  });

  it.each(WRITES.map((rpc) => [label(rpc), rpc] as const))(
    '%s should be PERMISSION_DENIED for readers',
    async (_, rpc) => {
      expect((await callForStatus(server.grpcAddress, rpc, credentials(server.readOnlyApiKey))).code).toBe(
        grpc.status.PERMISSION_DENIED,
      );
      expect(
        (await callForStatus(server.grpcAddress, rpc, credentials(undefined, readerSession.tokens.access_token))).code,
      ).toBe(grpc.status.PERMISSION_DENIED);
    },
  );

  it.each(WRITES.map((rpc) => [label(rpc), rpc] as const))('%s should pass the guard for managers', async (_, rpc) => {
    expect(ALLOWED_FAILURES).toContain((await callForStatus(server.grpcAddress, rpc, credentials(server.apiKey))).code);
    expect(ALLOWED_FAILURES).toContain(
      (await callForStatus(server.grpcAddress, rpc, credentials(undefined, adminSession.tokens.access_token))).code,
    );
  });

  it.each(READS.map((rpc) => [label(rpc), rpc] as const))('%s should work for readers', async (_, rpc) => {
    expect(ALLOWED_FAILURES).toContain(
      (await callForStatus(server.grpcAddress, rpc, credentials(server.readOnlyApiKey))).code,
    );
    expect(ALLOWED_FAILURES).toContain(
      (await callForStatus(server.grpcAddress, rpc, credentials(undefined, readerSession.tokens.access_token))).code,
    );
  });

  describe('official @qdrant/js-client-grpc', () => {
    const client = (apiKey: string): InstanceType<typeof QdrantClient> =>
      new QdrantClient({
        host: '127.0.0.1',
        port: server.grpcPort,
        https: false,
        apiKey,
        checkCompatibility: false,
        timeout: 10_000,
      });

    beforeAll(() => {
      // The client warns about an API key over plaintext; expected in tests.
      jest.spyOn(console, 'warn').mockImplementation(() => undefined);
    });

    it('should work with apiKey set to an access token', async () => {
      const collections = client(adminSession.tokens.access_token).api('collections');
      expect(
        (
          await collections.create({
            collectionName: 'with-token',
            vectorsConfig: { config: { case: 'params', value: { size: 4n, distance: 1 } } },
          })
        ).result,
      ).toBe(true);
      expect((await collections.list({})).collections.map((c) => c.name)).toContain('with-token');
    });

    it('should work with apiKey set to the API key, and refuse writes with the read-only key', async () => {
      expect((await client(server.apiKey).api('collections').list({})).collections.map((c) => c.name)).toContain(
        'with-token',
      );
      const readOnly = client(server.readOnlyApiKey).api('collections');
      expect((await readOnly.list({})).collections.map((c) => c.name)).toContain('with-token');
      await expect(readOnly.delete({ collectionName: 'with-token' })).rejects.toMatchObject({ code: 7 });
    });

    it('should be refused without a valid credential', async () => {
      await expect(client('not-a-valid-key').api('collections').list({})).rejects.toMatchObject({ code: 16 });
    });
  });
});
