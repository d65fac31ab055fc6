import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { httpJson, login, refresh, runUserCli } from './support/auth-helpers';
import { freePort, RunningServer, startServer } from './support/server-harness';

jest.setTimeout(60_000);

const SERVER_ENTRY = path.resolve(__dirname, '..', '..', 'dist', 'apps', 'server', 'src', 'main.js');
const mode = (file: string): number => statSync(file).mode & 0o777;

describe('user CLI and durable auth state (e2e)', () => {
  let server: RunningServer;

  beforeAll(async () => {
    server = await startServer();
  });

  afterAll(async () => {
    await server?.stop();
  });

  it('should add a user the running server accepts at once', async () => {
    const added = await runUserCli(
      server.dataDir,
      ['add', 'Ann@Example.com', '--role', 'reader', '--name', 'Ann Example'],
      'ann-password-1234\n',
    );
    expect(added).toMatchObject({ code: 0 });
    expect(added.stdout).toContain('ann@example.com (Ann Example) role=reader active');
    const session = await login(server.httpUrl, 'ann@example.com', 'ann-password-1234');
    expect(session.user).toMatchObject({
      email: 'ann@example.com',
      full_name: 'Ann Example',
      role: 'reader',
      is_active: true,
    });
  });

  it('should refuse a duplicate, a bad role and a short password', async () => {
    expect((await runUserCli(server.dataDir, ['add', 'ann@example.com'], 'another-password-1\n')).code).toBe(1);
    expect(
      (await runUserCli(server.dataDir, ['add', 'bob@example.com', '--role', 'root'], 'bob-password-1234\n')).code,
    ).toBe(2);
    expect((await runUserCli(server.dataDir, ['add', 'bob@example.com'], 'short\n')).code).toBe(1);
    expect((await runUserCli(server.dataDir, ['frobnicate'])).code).toBe(2);
  });

  it('should end sessions on deactivation and answer a login like a wrong password', async () => {
    const session = await login(server.httpUrl, 'ann@example.com', 'ann-password-1234');
    expect((await runUserCli(server.dataDir, ['deactivate', 'ann@example.com'])).code).toBe(0);
    const inactive = await httpJson(server.httpUrl, 'POST', '/api/auth/login', {
      email: 'ann@example.com',
      password: 'ann-password-1234',
    });
    const wrong = await httpJson(server.httpUrl, 'POST', '/api/auth/login', {
      email: 'ann@example.com',
      password: 'wrong-password',
    });
    expect(inactive.status).toBe(401);
    expect(inactive.text).toBe(wrong.text);
    const me = await httpJson(server.httpUrl, 'GET', '/api/auth/me', undefined, {
      authorization: `Bearer ${session.tokens.access_token}`,
    });
    expect(me.status).toBe(401);
    expect((await refresh(server.httpUrl, session.tokens.refresh_token)).status).toBe(401);
    expect((await runUserCli(server.dataDir, ['activate', 'ann@example.com'])).code).toBe(0);
    await login(server.httpUrl, 'ann@example.com', 'ann-password-1234');
  });

  it('should change roles and reset passwords, ending old sessions', async () => {
    expect((await runUserCli(server.dataDir, ['set-role', 'ann@example.com', 'admin'])).code).toBe(0);
    const session = await login(server.httpUrl, 'ann@example.com', 'ann-password-1234');
    expect(session.user.role).toBe('admin');
    expect(
      (await runUserCli(server.dataDir, ['reset-password', 'ann@example.com'], 'new-ann-password-99\n')).code,
    ).toBe(0);
    expect(
      (
        await httpJson(server.httpUrl, 'POST', '/api/auth/login', {
          email: 'ann@example.com',
          password: 'ann-password-1234',
        })
      ).status,
    ).toBe(401);
    expect((await refresh(server.httpUrl, session.tokens.refresh_token)).status).toBe(401);
    await login(server.httpUrl, 'ann@example.com', 'new-ann-password-99');
  });

  it('should list users without any secret', async () => {
    const listed = await runUserCli(server.dataDir, ['list', '--json']);
    expect(listed.code).toBe(0);
    const users = JSON.parse(listed.stdout) as Array<Record<string, unknown>>;
    expect(users.map((user) => user.email)).toEqual([server.adminEmail, 'ann@example.com']);
    expect(listed.stdout).not.toMatch(/argon2|hash|password/i);
  });

  it('should keep users, secrets and sessions in owner-only files, passwords only hashed', async () => {
    const authDir = path.join(server.dataDir, 'auth');
    expect(mode(authDir)).toBe(0o700);
    for (const file of ['users.json', 'refresh-tokens.json', 'jwt-secret'])
      expect(mode(path.join(authDir, file))).toBe(0o600);
    const users = readFileSync(path.join(authDir, 'users.json'), 'utf8');
    expect(users).toContain('$argon2id$v=19$m=19456,t=2,p=1$');
    expect(users).not.toContain(server.adminPassword);
  });

  it('should keep sessions and access tokens valid across a restart', async () => {
    const session = await login(server.httpUrl, server.adminEmail, server.adminPassword);
    expect(readFileSync(path.join(server.dataDir, 'auth', 'refresh-tokens.json'), 'utf8')).not.toContain(
      session.tokens.refresh_token,
    );
    server = await server.restart();
    const me = await httpJson(server.httpUrl, 'GET', '/api/auth/me', undefined, {
      authorization: `Bearer ${session.tokens.access_token}`,
    });
    expect(me.status).toBe(200);
    expect((await refresh(server.httpUrl, session.tokens.refresh_token)).status).toBe(200);
  });

  it('should expire access tokens after VECTORSTORE_ACCESS_TTL', async () => {
    const shortLived = await startServer({ env: { VECTORSTORE_ACCESS_TTL: '1' } });
    try {
      const session = await login(shortLived.httpUrl, shortLived.adminEmail, shortLived.adminPassword);
      await new Promise((resolve) => setTimeout(resolve, 2_100));
      const me = await httpJson(shortLived.httpUrl, 'GET', '/api/auth/me', undefined, {
        authorization: `Bearer ${session.tokens.access_token}`,
      });
      expect(me.status).toBe(401);
      expect(me.headers.get('www-authenticate')).toContain('token expired');
      // The refresh token outlives it and gets a fresh access token.
      expect((await refresh(shortLived.httpUrl, session.tokens.refresh_token)).status).toBe(200);
    } finally {
      await shortLived.stop();
    }
  });
});

describe('first admin without configured credentials (e2e)', () => {
  it('should generate a strong password, log it once and accept it', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'vectorstore-e2e-admin-'));
    const httpPort = await freePort();
    const env = {
      PATH: process.env.PATH,
      TZ: 'UTC',
      VECTORSTORE_HOST: '127.0.0.1',
      VECTORSTORE_HTTP_PORT: String(httpPort),
      VECTORSTORE_GRPC_PORT: String(await freePort()),
      VECTORSTORE_DATA_DIR: dataDir,
      VECTORSTORE_LOG_LEVEL: 'info',
    };
    const child = spawn(process.execPath, [SERVER_ENTRY], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    try {
      const deadline = Date.now() + 30_000;
      while (!/vectorstore is ready/.test(output) && Date.now() < deadline && child.exitCode === null) {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const match = /first admin (\S+) with the generated password (\S+)/.exec(output);
      expect(match).not.toBeNull();
      const [, email, password] = match as RegExpExecArray;
      expect(password.length).toBeGreaterThanOrEqual(32);
      expect(output.split(password)).toHaveLength(2);
      const session = await login(`http://127.0.0.1:${httpPort}`, email, password);
      expect(session.user.role).toBe('admin');
    } finally {
      await new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      });
    }
  });
});
