// Per-collection access (issue 26, part 4), Qdrant's JWT RBAC form: users granted read (`r`) or read-write (`rw`) on
// collection `a` only. A matrix over every REST route and every gRPC method of both packages, each aimed at `a`, at
// an alias of `a` and at `b`: the expected answer comes from the operation table (libs/auth operations.ts) through
// the same rule the guards apply, and a denial must be exactly 403 / PERMISSION_DENIED, an allowed call anything but.
import * as grpc from '@grpc/grpc-js';
import { Access, checkAccess, OPERATION_ACCESS, OperationName } from '@vectorstore/auth';
import { enumerateRpcMethods, httpJson, login, RpcMethod } from './support/auth-helpers';
import { credentials } from './support/grpc-clients';
import { RestRoute, restRoutes } from './support/rest-routes';
import { RunningServer, startServer } from './support/server-harness';

jest.setTimeout(120_000);

const FORMS: Array<{ name: string; email: string; grants: Access }> = [
  { name: 'a:r', email: 'read-a@example.com', grants: [{ collection: 'a', access: 'r' }] },
  { name: 'a:rw', email: 'write-a@example.com', grants: [{ collection: 'a', access: 'rw' }] },
];
const TARGETS = ['a', 'alias-of-a', 'b'] as const;
const resolved = (target: string) => (target === 'alias-of-a' ? 'a' : target);

function expectedDenial(grants: Access, operation: OperationName | undefined, target: string | undefined): boolean {
  const rule = operation ? OPERATION_ACCESS[operation] : { scope: 'global' as const, manage: true };
  try {
    checkAccess(grants, rule, target === undefined ? [] : [resolved(target)]);
    return false;
  } catch {
    return true;
  }
}

describe('per-collection access, REST and gRPC (e2e)', () => {
  let server: RunningServer;
  const tokens = new Map<string, string>();

  beforeAll(async () => {
    server = await startServer();
    const admin = { 'api-key': server.apiKey };
    for (const name of ['a', 'b']) {
      const created = await httpJson(
        server.httpUrl,
        'PUT',
        `/collections/${name}`,
        {
          vectors: { size: 2, distance: 'Dot' },
        },
        admin,
      );
      expect(created.status).toBe(200);
    }
    await httpJson(
      server.httpUrl,
      'POST',
      '/collections/aliases',
      { actions: [{ create_alias: { collection_name: 'a', alias_name: 'alias-of-a' } }] },
      admin,
    );
    await httpJson(
      server.httpUrl,
      'PUT',
      '/collections/b/points?wait=true',
      {
        points: [{ id: 1, vector: [1, 0] }],
      },
      admin,
    );
    for (const form of FORMS) {
      const created = await httpJson(
        server.httpUrl,
        'POST',
        '/api/auth/users',
        { email: form.email, password: 'grant-password-123', collections: form.grants },
        admin,
      );
      expect(created.status).toBe(201);
      expect((created.body as { collections: unknown }).collections).toEqual(form.grants);
      tokens.set(form.name, (await login(server.httpUrl, form.email, 'grant-password-123')).tokens.access_token);
    }
  });

  afterAll(async () => {
    await server?.stop();
  });

  const bearer = (form: string) => ({ authorization: `Bearer ${tokens.get(form)}` });

  it('should read a, refuse writes with r and allow them with rw, and neither see nor touch b', async () => {
    const upsert = (form: string, collection: string) =>
      httpJson(
        server.httpUrl,
        'PUT',
        `/collections/${collection}/points?wait=true`,
        {
          points: [{ id: 7, vector: [0, 1] }],
        },
        bearer(form),
      );
    expect((await upsert('a:r', 'a')).status).toBe(403);
    expect(((await upsert('a:r', 'a')).body as { status: { error: string } }).status.error).toBe(
      'Forbidden: Write access to collection a is required',
    );
    expect((await upsert('a:rw', 'a')).status).toBe(200);
    expect((await upsert('a:rw', 'alias-of-a')).status).toBe(200);
    expect((await upsert('a:rw', 'b')).status).toBe(403);
    const read = await httpJson(server.httpUrl, 'POST', '/collections/a/points', { ids: [7] }, bearer('a:r'));
    expect((read.body as { result: Array<{ id: number }> }).result.map((p) => p.id)).toEqual([7]);
    const other = await httpJson(server.httpUrl, 'POST', '/collections/b/points', { ids: [1] }, bearer('a:r'));
    expect(other.status).toBe(403);
    expect((other.body as { status: { error: string } }).status.error).toBe(
      'Forbidden: Access to collection b is required',
    );
    // Lists show what is granted only.
    for (const form of ['a:r', 'a:rw']) {
      const listed = await httpJson(server.httpUrl, 'GET', '/collections', undefined, bearer(form));
      expect((listed.body as { result: { collections: Array<{ name: string }> } }).result.collections).toEqual([
        { name: 'a' },
      ]);
      const aliases = await httpJson(server.httpUrl, 'GET', '/aliases', undefined, bearer(form));
      expect(
        (aliases.body as { result: { aliases: Array<{ alias_name: string }> } }).result.aliases.map(
          (x) => x.alias_name,
        ),
      ).toEqual(['alias-of-a']);
    }
    // gRPC List too.
    const listed = await grpcCall('a:r', { service: 'qdrant.Collections', method: 'List' } as RpcMethod, {});
    expect(listed.code).toBe(0);
    expect((listed.response as { collections: Array<{ name: string }> }).collections.map((c) => c.name)).toEqual(['a']);
  });

  // ---- REST: every route, each collection-named one at a, at the alias and at b ----------------------------

  const ROUTES = restRoutes((param) => (param === 'peer_id' ? '7' : `x_${param}`)).filter(
    (route) => !route.isPublic && !route.pattern.startsWith('/api/auth/login') && !route.pattern.includes('refresh'),
  );
  interface RouteCase {
    route: RestRoute;
    target: string | undefined;
  }
  const CASES: RouteCase[] = ROUTES.flatMap((route): RouteCase[] =>
    route.pattern.includes(':collection_name')
      ? TARGETS.map((target) => ({ route, target }))
      : [{ route, target: undefined }],
  );

  async function restCall(form: string, route: RestRoute, target: string | undefined): Promise<number> {
    const path = target === undefined ? route.path : route.path.replace('x_collection_name', target);
    const response = await fetch(`${server.httpUrl}${path}`, {
      method: route.method,
      headers: { 'content-type': 'application/json', ...bearer(form) },
      body: route.method === 'GET' || route.method === 'DELETE' ? undefined : '{}',
    });
    await response.arrayBuffer();
    return response.status;
  }

  it.each(
    FORMS.flatMap((form) =>
      CASES.map((c) => [form.name, `${c.route.method} ${c.route.pattern}`, c.target ?? '-', form, c] as const),
    ),
  )('%s: %s on %s', async (_, __, ___, form, { route, target }) => {
    const status = await restCall(form.name, route, target);
    if (expectedDenial(form.grants, route.operation, target)) expect(status).toBe(403);
    else {
      expect(status).not.toBe(403);
      expect(status).not.toBe(401);
      expect(status).toBeLessThan(500);
    }
  });

  // ---- gRPC: every method of both packages, at a, at the alias and at b ------------------------------------

  const RPCS = [
    ...new Map(
      [...enumerateRpcMethods('vectorstore'), ...enumerateRpcMethods('qdrant')]
        // The health services are open to all.
        .filter((rpc) => !/grpc\.health|\.Qdrant$/.test(rpc.service))
        .map((rpc) => [`/${rpc.service}/${rpc.method}`, rpc]),
    ).values(),
  ];

  async function grpcCall(
    form: string,
    rpc: Pick<RpcMethod, 'service' | 'method'>,
    request: Record<string, unknown>,
  ): Promise<{ code: number; response?: unknown }> {
    const pkg = rpc.service.startsWith('qdrant.') ? 'qdrant' : 'vectorstore';
    const definition = enumerateRpcMethods(pkg).find((m) => m.service === rpc.service && m.method === rpc.method)!
      .definition[rpc.method];
    const client = new grpc.Client(server.grpcAddress, grpc.credentials.createInsecure());
    try {
      const response = await new Promise<unknown>((resolve, reject) => {
        if (definition.requestStream || definition.responseStream) {
          reject(Object.assign(new Error('streaming'), { code: -1 }));
          return;
        }
        client.makeUnaryRequest(
          definition.path,
          definition.requestSerialize,
          definition.responseDeserialize,
          request,
          credentials(undefined, tokens.get(form)),
          { deadline: Date.now() + 20_000 },
          (error, value) => (error ? reject(error) : resolve(value)),
        );
      });
      return { code: 0, response };
    } catch (error) {
      return { code: (error as grpc.ServiceError).code };
    } finally {
      client.close();
    }
  }

  const GRPC_CASES = RPCS.flatMap((rpc) => TARGETS.map((target) => ({ rpc, target })));

  it.each(
    FORMS.flatMap((form) =>
      GRPC_CASES.map((c) => [form.name, `/${c.rpc.service}/${c.rpc.method}`, c.target, form, c] as const),
    ),
  )('%s: %s on %s', async (_, __, ___, form, { rpc, target }) => {
    const operation = `${rpc.service.split('.').pop()}/${rpc.method}` as OperationName;
    const { code } = await grpcCall(form.name, rpc, { collectionName: target });
    if (code === -1) return; // a streaming method: not one of the table's
    // Methods that name no collection (List, ListAliases, full snapshots…) ignore the field.
    const names =
      operation in OPERATION_ACCESS && OPERATION_ACCESS[operation].scope === 'collection' ? target : undefined;
    if (expectedDenial(form.grants, operation in OPERATION_ACCESS ? operation : undefined, names))
      expect(code).toBe(grpc.status.PERMISSION_DENIED);
    else {
      expect(code).not.toBe(grpc.status.PERMISSION_DENIED);
      expect(code).not.toBe(grpc.status.UNAUTHENTICATED);
    }
  });
});
