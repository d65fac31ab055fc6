// The users API (/api/auth/users, administrators only) and the user CLI through it (--url), on a standalone server.
import { httpJson, login, LoginBody, runUserCli } from './support/auth-helpers';
import { RunningServer, startServer } from './support/server-harness';

jest.setTimeout(60_000);

interface UserBody {
  id: string;
  email: string;
  full_name: string | null;
  role: string;
  is_active: boolean;
  created_at: string;
}

describe('users API (e2e)', () => {
  let server: RunningServer;
  let admin: LoginBody;
  const asAdmin = () => ({ authorization: `Bearer ${admin.tokens.access_token}` });

  beforeAll(async () => {
    server = await startServer();
    admin = await login(server.httpUrl, server.adminEmail, server.adminPassword);
  });

  afterAll(async () => {
    await server?.stop();
  });

  const create = (body: unknown, headers = asAdmin()) =>
    httpJson(server.httpUrl, 'POST', '/api/auth/users', body, headers);
  const patch = (id: string, body: unknown, headers = asAdmin()) =>
    httpJson(server.httpUrl, 'PATCH', `/api/auth/users/${id}`, body, headers);

  it('should create, list and change users, each change holding at once', async () => {
    const created = await create({ email: 'Ann@Example.com', password: 'ann-password-1234', full_name: 'Ann' });
    expect(created.status).toBe(201);
    const ann = created.body as UserBody;
    expect(ann).toMatchObject({ email: 'ann@example.com', role: 'reader', is_active: true, full_name: 'Ann' });
    expect(created.text).not.toMatch(/hash|argon/i);

    const listed = await httpJson(server.httpUrl, 'GET', '/api/auth/users', undefined, asAdmin());
    expect(listed.status).toBe(200);
    expect(listed.headers.get('cache-control')).toBe('no-store');
    expect((listed.body as { users: UserBody[] }).users.map((u) => u.email)).toEqual([
      server.adminEmail,
      'ann@example.com',
    ]);

    const session = await login(server.httpUrl, 'ann@example.com', 'ann-password-1234');
    expect(session.user).toMatchObject({ role: 'reader' });
    const promoted = await patch(ann.id, { role: 'admin' });
    expect(promoted.body).toMatchObject({ role: 'admin' });
    // A reset password ends the sessions and refuses the old one.
    const reset = await patch(ann.id, { password: 'ann-new-password-99' });
    expect(reset.status).toBe(200);
    const old = await httpJson(server.httpUrl, 'POST', '/api/auth/login', {
      email: 'ann@example.com',
      password: 'ann-password-1234',
    });
    expect(old.status).toBe(401);
    const me = await httpJson(server.httpUrl, 'GET', '/api/auth/me', undefined, {
      authorization: `Bearer ${session.tokens.access_token}`,
    });
    expect(me.status).toBe(401);
    // Deactivated: no login.
    expect((await patch(ann.id, { is_active: false })).body).toMatchObject({ is_active: false });
    const inactive = await httpJson(server.httpUrl, 'POST', '/api/auth/login', {
      email: 'ann@example.com',
      password: 'ann-new-password-99',
    });
    expect(inactive.status).toBe(401);
  });

  it.each([
    ['a missing email', { password: 'long-enough-password' }, 'email: is required'],
    ['a short password', { email: 'x@example.com', password: 'short' }, 'password: must be at least 12 characters'],
    [
      'an unknown role',
      { email: 'x@example.com', password: 'long-enough-password', role: 'root' },
      'role: must be one of admin, reader',
    ],
    [
      'an unknown property',
      { email: 'x@example.com', password: 'long-enough-password', admin: true },
      'admin: unknown property',
    ],
  ])('should refuse %s with 400 naming the field', async (_, body, message) => {
    const answer = await create(body);
    expect(answer.status).toBe(400);
    expect((answer.body as { status: { error: string } }).status.error).toContain(message);
  });

  it('should answer 409 for an email taken, 404 for an unknown id and 400 for an empty change', async () => {
    expect((await create({ email: server.adminEmail, password: 'long-enough-password' })).status).toBe(409);
    expect((await patch('no-such-id', { role: 'reader' })).status).toBe(404);
    const empty = await patch('no-such-id', {});
    expect(empty.status).toBe(400);
  });

  it('should refuse to demote or deactivate the last active admin', async () => {
    const me = (await httpJson(server.httpUrl, 'GET', '/api/auth/me', undefined, asAdmin())).body as UserBody;
    const listed = (await httpJson(server.httpUrl, 'GET', '/api/auth/users', undefined, asAdmin())).body as {
      users: UserBody[];
    };
    // Ann was made admin then deactivated above: the first admin is the last active one.
    expect(listed.users.filter((u) => u.role === 'admin' && u.is_active).map((u) => u.id)).toEqual([me.id]);
    const demoted = await patch(me.id, { role: 'reader' });
    expect(demoted.status).toBe(412);
    expect((demoted.body as { status: { error: string } }).status.error).toContain('last active admin');
    expect((await patch(me.id, { is_active: false })).status).toBe(412);
  });

  it('should be for administrators only: 401 without a credential, 403 for a reader, 200 with the API key', async () => {
    expect((await httpJson(server.httpUrl, 'GET', '/api/auth/users')).status).toBe(401);
    await create({ email: 'reader@example.com', password: 'reader-password-1', role: 'reader' });
    const reader = await login(server.httpUrl, 'reader@example.com', 'reader-password-1');
    const refused = await httpJson(server.httpUrl, 'GET', '/api/auth/users', undefined, {
      authorization: `Bearer ${reader.tokens.access_token}`,
    });
    expect(refused.status).toBe(403);
    const withKey = await httpJson(server.httpUrl, 'GET', '/api/auth/users', undefined, { 'api-key': server.apiKey });
    expect(withKey.status).toBe(200);
    const readOnlyKey = await httpJson(
      server.httpUrl,
      'POST',
      '/api/auth/users',
      { email: 'y@example.com', password: 'long-enough-password' },
      {
        'api-key': server.readOnlyApiKey,
      },
    );
    expect(readOnlyKey.status).toBe(403);
  });

  it('should let the CLI manage users through the API with --url', async () => {
    const env = { VECTORSTORE_API_KEY: server.apiKey };
    const added = await runUserCli(
      server.dataDir,
      ['--url', server.httpUrl, 'add', 'cli@example.com', '--role', 'reader'],
      'cli-password-12345\n',
      env,
    );
    expect(added).toMatchObject({ code: 0 });
    expect(added.stdout).toContain('cli@example.com role=reader active');
    await login(server.httpUrl, 'cli@example.com', 'cli-password-12345');
    const role = await runUserCli(
      server.dataDir,
      ['--url', server.httpUrl, 'set-role', 'cli@example.com', 'admin'],
      '',
      env,
    );
    expect(role.stdout).toContain('role=admin');
    const listed = await runUserCli(server.dataDir, ['--url', server.httpUrl, 'list', '--json'], '', env);
    expect((JSON.parse(listed.stdout) as UserBody[]).map((u) => u.email)).toContain('cli@example.com');
    const refused = await runUserCli(server.dataDir, ['--url', server.httpUrl, 'list'], '', {
      VECTORSTORE_API_KEY: 'x'.repeat(20),
    });
    expect(refused.code).toBe(1);
  });
});
