import * as grpc from '@grpc/grpc-js';
import { REFRESH_REUSE_GRACE_MS } from '@vectorstore/auth';
import { randomBytes } from 'node:crypto';
import { decodeJwtPart, httpJson, login, LoginBody, makeJwt, refresh, TokenPairBody } from './support/auth-helpers';
import { createCollectionsClient, credentials, unary } from './support/grpc-clients';
import { RunningServer, startServer } from './support/server-harness';

jest.setTimeout(60_000);

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const JWT_SECRET = `e2e-secret-${randomBytes(24).toString('hex')}`;

describe('auth over HTTP (e2e)', () => {
  let server: RunningServer;
  let admin: LoginBody;

  beforeAll(async () => {
    server = await startServer({ env: { VECTORSTORE_JWT_SECRET: JWT_SECRET } });
    admin = await login(server.httpUrl, server.adminEmail, server.adminPassword);
  });

  afterAll(async () => {
    await server?.stop();
  });

  /** Claims of a valid admin access token, to derive forged variants from. */
  function adminClaims(): Record<string, unknown> {
    return decodeJwtPart(admin.tokens.access_token, 1);
  }

  async function grpcListStatus(metadata: grpc.Metadata): Promise<number> {
    const client = createCollectionsClient(server.grpcAddress, metadata);
    try {
      await unary(client as unknown as grpc.Client, 'List', {});
      return 0;
    } catch (error) {
      return (error as grpc.ServiceError).code;
    } finally {
      (client as unknown as grpc.Client).close();
    }
  }

  describe('POST /api/auth/login', () => {
    it('should return a token pair and the public user', async () => {
      const answer = await httpJson(server.httpUrl, 'POST', '/api/auth/login', {
        email: server.adminEmail,
        password: server.adminPassword,
      });
      expect(answer.status).toBe(200);
      expect(answer.headers.get('cache-control')).toBe('no-store');
      const body = answer.body as LoginBody;
      expect(Object.keys(body).sort()).toEqual(['tokens', 'user']);
      expect(body.tokens.token_type).toBe('bearer');
      expect(Object.keys(body.user).sort()).toEqual(['created_at', 'email', 'full_name', 'id', 'is_active', 'role']);
      expect(body.user).toMatchObject({ email: server.adminEmail, role: 'admin', is_active: true });
      expect(body.user.id).toMatch(UUID);
      expect(answer.text).not.toMatch(/argon2|hash/i);
    });

    it('should issue an HS256 access token with sub, jti, iat and exp 900 s after iat', () => {
      const header = decodeJwtPart(admin.tokens.access_token, 0);
      const claims = adminClaims();
      expect(header.alg).toBe('HS256');
      expect(claims.sub).toBe(admin.user.id);
      expect(claims.token_use).toBe('access');
      expect(claims.access).toBe('m');
      expect(typeof claims.jti).toBe('string');
      expect(Number(claims.exp) - Number(claims.iat)).toBe(900);
      expect(Math.abs(Number(claims.iat) - Date.now() / 1000)).toBeLessThan(60);
    });

    it('should issue an opaque refresh token of at least 256 bits', () => {
      const token = admin.tokens.refresh_token;
      expect(token.split('.')).toHaveLength(1);
      expect(Buffer.from(token, 'base64url').length).toBeGreaterThanOrEqual(32);
    });

    it('should answer a wrong password and an unknown email identically', async () => {
      const wrong = await httpJson(server.httpUrl, 'POST', '/api/auth/login', {
        email: server.adminEmail,
        password: 'not-the-password',
      });
      const unknown = await httpJson(server.httpUrl, 'POST', '/api/auth/login', {
        email: 'nobody@example.com',
        password: 'not-the-password',
      });
      expect(wrong.status).toBe(401);
      expect(unknown.status).toBe(401);
      expect(unknown.text).toBe(wrong.text);
      expect(unknown.headers.get('www-authenticate')).toBe(wrong.headers.get('www-authenticate'));
      expect(wrong.headers.get('www-authenticate')).toMatch(/^Bearer /);
    });

    it('should take about the same time for a wrong password and an unknown email', async () => {
      const time = async (email: string): Promise<number> => {
        const started = performance.now();
        await httpJson(server.httpUrl, 'POST', '/api/auth/login', { email, password: 'still-not-the-password' });
        return performance.now() - started;
      };
      const median = (values: number[]): number => values.sort((a, b) => a - b)[Math.floor(values.length / 2)];
      const known: number[] = [];
      const unknown: number[] = [];
      for (let i = 0; i < 3; i++) {
        known.push(await time(server.adminEmail));
        unknown.push(await time(`ghost-${i}@example.com`));
      }
      // Both run one argon2id verification; without it the unknown email would answer in ~1 ms.
      expect(median(unknown)).toBeGreaterThan(median(known) / 3);
      expect(median(known)).toBeGreaterThan(median(unknown) / 3);
      // Clear the admin's failure count so later tests are not throttled.
      await login(server.httpUrl, server.adminEmail, server.adminPassword);
    });

    it.each([
      ['an invalid email', { email: 'not-an-email', password: 'x' }, 'email'],
      ['an empty password', { email: 'a@example.com', password: '' }, 'password'],
      ['a missing email', { password: 'x' }, 'email'],
      ['a missing password', { email: 'a@example.com' }, 'password'],
      ['a number as email', { email: 42, password: 'x' }, 'email'],
      ['an object as password', { email: 'a@example.com', password: { $ne: '' } }, 'password'],
      ['an unknown property', { email: 'a@example.com', password: 'x', role: 'admin' }, 'role'],
    ])('should answer 400 naming the field for %s', async (_, body, field) => {
      const answer = await httpJson(server.httpUrl, 'POST', '/api/auth/login', body);
      expect(answer.status).toBe(400);
      expect((answer.body as { status: { error: string } }).status.error).toContain(`${field}:`);
    });

    it.each([
      ['malformed JSON', '{"email": "a@example.com", '],
      ['a JSON array', '[]'],
      ['a JSON string', '"email"'],
    ])('should answer 400 for %s', async (_, raw) => {
      const answer = await httpJson(server.httpUrl, 'POST', '/api/auth/login', raw);
      expect(answer.status).toBe(400);
      expect(answer.body).toMatchObject({ status: { error: expect.any(String) } });
    });

    it('should answer 413 for an oversized body', async () => {
      const answer = await httpJson(server.httpUrl, 'POST', '/api/auth/login', {
        email: 'a@example.com',
        password: 'x'.repeat(2 * 1024 * 1024),
      });
      expect(answer.status).toBe(413);
    });
  });

  describe('bearer tokens', () => {
    it('should accept a valid token on HTTP and gRPC', async () => {
      const me = await httpJson(server.httpUrl, 'GET', '/api/auth/me', undefined, {
        authorization: `Bearer ${admin.tokens.access_token}`,
      });
      expect(me.status).toBe(200);
      expect(me.body).toEqual(admin.user);
      expect(await grpcListStatus(credentials(undefined, admin.tokens.access_token))).toBe(0);
      expect(await grpcListStatus(credentials(admin.tokens.access_token))).toBe(0);
    });

    it('should answer 401 with WWW-Authenticate without a credential', async () => {
      const answer = await httpJson(server.httpUrl, 'GET', '/api/auth/me');
      expect(answer.status).toBe(401);
      expect(answer.headers.get('www-authenticate')).toMatch(/^Bearer realm=/);
    });

    const forged: Array<[string, () => string]> = [
      [
        'an expired token',
        () => makeJwt({ alg: 'HS256', typ: 'JWT' }, { ...adminClaims(), iat: 1_000, exp: 1_900 }, JWT_SECRET),
      ],
      [
        'a token signed with another key',
        () => makeJwt({ alg: 'HS256', typ: 'JWT' }, adminClaims(), `${JWT_SECRET}-other`),
      ],
      ['alg none', () => makeJwt({ alg: 'none', typ: 'JWT' }, adminClaims())],
      ['another HMAC algorithm (HS512)', () => makeJwt({ alg: 'HS512', typ: 'JWT' }, adminClaims(), JWT_SECRET)],
      [
        'a token without exp',
        () => {
          const { exp: _exp, ...claims } = adminClaims();
          return makeJwt({ alg: 'HS256', typ: 'JWT' }, claims, JWT_SECRET);
        },
      ],
      [
        'a tampered payload',
        () => {
          const [header, , signature] = admin.tokens.access_token.split('.');
          const payload = Buffer.from(
            JSON.stringify({ ...adminClaims(), sub: '00000000-0000-4000-8000-000000000000' }),
          ).toString('base64url');
          return `${header}.${payload}.${signature}`;
        },
      ],
      [
        'a token of another type',
        () => makeJwt({ alg: 'HS256', typ: 'JWT' }, { ...adminClaims(), token_use: 'refresh' }, JWT_SECRET),
      ],
      [
        'a token without the access claim',
        () => {
          const { access: _access, ...claims } = adminClaims();
          return makeJwt({ alg: 'HS256', typ: 'JWT' }, claims, JWT_SECRET);
        },
      ],
      ['a refresh token', () => admin.tokens.refresh_token],
      ['garbage', () => 'not-a-token'],
    ];

    it.each(forged)('should refuse %s: 401 on HTTP, UNAUTHENTICATED on gRPC', async (_, make) => {
      const token = make();
      const answer = await httpJson(server.httpUrl, 'GET', '/api/auth/me', undefined, {
        authorization: `Bearer ${token}`,
      });
      expect(answer.status).toBe(401);
      expect(answer.headers.get('www-authenticate')).toMatch(/^Bearer .*error="invalid_token"/);
      expect(await grpcListStatus(credentials(undefined, token))).toBe(grpc.status.UNAUTHENTICATED);
      expect(await grpcListStatus(credentials(token))).toBe(grpc.status.UNAUTHENTICATED);
    });

    it('should accept the same claims when correctly signed (the forgeries differ only where stated)', async () => {
      const token = makeJwt({ alg: 'HS256', typ: 'JWT' }, adminClaims(), JWT_SECRET);
      const answer = await httpJson(server.httpUrl, 'GET', '/api/auth/me', undefined, {
        authorization: `Bearer ${token}`,
      });
      expect(answer.status).toBe(200);
    });
  });

  describe('POST /api/auth/refresh', () => {
    it('should rotate the refresh token and issue a working access token', async () => {
      const first = await login(server.httpUrl, server.adminEmail, server.adminPassword);
      const answer = await refresh(server.httpUrl, first.tokens.refresh_token);
      expect(answer.status).toBe(200);
      expect(answer.headers.get('cache-control')).toBe('no-store');
      const pair = answer.body as TokenPairBody;
      expect(Object.keys(pair).sort()).toEqual(['access_token', 'refresh_token', 'token_type']);
      expect(pair.token_type).toBe('bearer');
      expect(pair.refresh_token).not.toBe(first.tokens.refresh_token);
      const me = await httpJson(server.httpUrl, 'GET', '/api/auth/me', undefined, {
        authorization: `Bearer ${pair.access_token}`,
      });
      expect(me.status).toBe(200);
    });

    it('should revoke the whole family when a used refresh token comes back after the reuse grace', async () => {
      const first = await login(server.httpUrl, server.adminEmail, server.adminPassword);
      const second = (await refresh(server.httpUrl, first.tokens.refresh_token)).body as TokenPairBody;
      await new Promise((resolve) => setTimeout(resolve, REFRESH_REUSE_GRACE_MS + 200));
      const reuse = await refresh(server.httpUrl, first.tokens.refresh_token);
      expect(reuse.status).toBe(401);
      expect(reuse.headers.get('www-authenticate')).toMatch(/^Bearer /);
      expect((await refresh(server.httpUrl, second.refresh_token)).status).toBe(401);
    });

    it('should give 10 concurrent refreshes with one token (tabs restoring at once) one successor pair', async () => {
      const session = await login(server.httpUrl, server.adminEmail, server.adminPassword);
      const answers = await Promise.all(
        Array.from({ length: 10 }, () => refresh(server.httpUrl, session.tokens.refresh_token)),
      );
      expect(answers.map((answer) => answer.status)).toEqual(Array(10).fill(200));
      const pairs = answers.map((answer) => answer.body as TokenPairBody);
      expect(new Set(pairs.map((pair) => pair.refresh_token)).size).toBe(1);
      expect(new Set(pairs.map((pair) => pair.access_token)).size).toBe(1);
      // An immediate reuse too gets that pair, and the chain goes on from it.
      const again = await refresh(server.httpUrl, session.tokens.refresh_token);
      expect(again.body).toEqual(pairs[0]);
      expect((await refresh(server.httpUrl, pairs[0].refresh_token)).status).toBe(200);
    });

    it('should refuse an access token as refresh token', async () => {
      const answer = await refresh(server.httpUrl, admin.tokens.access_token);
      expect(answer.status).toBe(401);
    });

    it.each([
      ['a missing refresh_token', {}],
      ['a numeric refresh_token', { refresh_token: 7 }],
      ['an empty refresh_token', { refresh_token: '' }],
    ])('should answer 400 naming the field for %s', async (_, body) => {
      const answer = await httpJson(server.httpUrl, 'POST', '/api/auth/refresh', body);
      expect(answer.status).toBe(400);
      expect((answer.body as { status: { error: string } }).status.error).toContain('refresh_token:');
    });
  });

  describe('POST /api/auth/logout', () => {
    it('should revoke the refresh token family', async () => {
      const session = await login(server.httpUrl, server.adminEmail, server.adminPassword);
      const rotated = (await refresh(server.httpUrl, session.tokens.refresh_token)).body as TokenPairBody;
      const answer = await httpJson(server.httpUrl, 'POST', '/api/auth/logout', {
        refresh_token: rotated.refresh_token,
      });
      expect(answer.status).toBe(204);
      expect((await refresh(server.httpUrl, rotated.refresh_token)).status).toBe(401);
    });

    it('should accept an unknown token without saying so', async () => {
      const answer = await httpJson(server.httpUrl, 'POST', '/api/auth/logout', { refresh_token: 'unknown' });
      expect(answer.status).toBe(204);
    });
  });

  describe('GET /api/auth/me', () => {
    it('should answer 403 for an API key, which has no user', async () => {
      const answer = await httpJson(server.httpUrl, 'GET', '/api/auth/me', undefined, { 'api-key': server.apiKey });
      expect(answer.status).toBe(403);
    });
  });

  describe('health', () => {
    it.each(['/healthz', '/livez', '/readyz', '/'])('should keep %s open', async (route) => {
      expect((await httpJson(server.httpUrl, 'GET', route)).status).toBe(200);
    });
  });
});

describe('login throttling (e2e)', () => {
  let server: RunningServer;

  beforeAll(async () => {
    server = await startServer();
  });

  afterAll(async () => {
    await server?.stop();
  });

  it('should answer 429 with Retry-After after repeated failures for one account', async () => {
    for (let i = 0; i < 5; i++) {
      const answer = await httpJson(server.httpUrl, 'POST', '/api/auth/login', {
        email: server.adminEmail,
        password: `wrong-${i}`,
      });
      expect(answer.status).toBe(401);
    }
    const blocked = await httpJson(server.httpUrl, 'POST', '/api/auth/login', {
      email: server.adminEmail,
      password: server.adminPassword,
    });
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('should answer 429 after repeated failures from one address, whatever the account', async () => {
    // 5 failures so far from this address; the limit per address is 20.
    for (let i = 0; i < 15; i++) {
      const answer = await httpJson(server.httpUrl, 'POST', '/api/auth/login', {
        email: `guess-${i}@example.com`,
        password: 'wrong',
      });
      expect(answer.status).toBe(401);
    }
    const blocked = await httpJson(server.httpUrl, 'POST', '/api/auth/login', {
      email: 'fresh@example.com',
      password: 'wrong',
    });
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});

describe('strict refresh rotation, VECTORSTORE_REFRESH_REUSE_GRACE=0 (e2e)', () => {
  let server: RunningServer;

  beforeAll(async () => {
    server = await startServer({ env: { VECTORSTORE_REFRESH_REUSE_GRACE: '0' } });
  });

  afterAll(async () => {
    await server?.stop();
  });

  it('should revoke the family on the first reuse, however soon', async () => {
    const session = await login(server.httpUrl, server.adminEmail, server.adminPassword);
    const next = await refresh(server.httpUrl, session.tokens.refresh_token);
    expect(next.status).toBe(200);
    expect((await refresh(server.httpUrl, session.tokens.refresh_token)).status).toBe(401);
    expect((await refresh(server.httpUrl, (next.body as TokenPairBody).refresh_token)).status).toBe(401);
  });

  it('should let one of concurrent refreshes through and end the session', async () => {
    const session = await login(server.httpUrl, server.adminEmail, server.adminPassword);
    const answers = await Promise.all(
      Array.from({ length: 5 }, () => refresh(server.httpUrl, session.tokens.refresh_token)),
    );
    const statuses = answers.map((answer) => answer.status).sort();
    expect(statuses).toEqual([200, 401, 401, 401, 401]);
    const winner = answers.find((answer) => answer.status === 200)?.body as TokenPairBody;
    expect((await refresh(server.httpUrl, winner.refresh_token)).status).toBe(401);
  });
});
