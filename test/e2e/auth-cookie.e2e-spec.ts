import { httpJson, login, refresh } from './support/auth-helpers';
import { RunningServer, startServer } from './support/server-harness';

jest.setTimeout(60_000);

const COOKIE = { 'x-vectorstore-session': 'cookie' };

/** The `name=value` of the refresh cookie a response set, and its attributes. */
function setCookie(headers: Headers): { pair: string; value: string; attributes: string } {
  const header = headers.getSetCookie().find((c) => c.startsWith('vectorstore_refresh=')) ?? '';
  const [pair, ...attributes] = header.split(';').map((s) => s.trim());
  return { pair: pair ?? '', value: (pair ?? '').split('=')[1] ?? '', attributes: attributes.join('; ') };
}

describe('auth: refresh token in an HttpOnly cookie (e2e)', () => {
  let server: RunningServer;

  beforeAll(async () => {
    server = await startServer();
  });

  afterAll(async () => {
    await server?.stop();
  });

  async function cookieLogin(): Promise<{ access: string; cookie: string; attributes: string; body: unknown }> {
    const answer = await httpJson(
      server.httpUrl,
      'POST',
      '/api/auth/login',
      { email: server.adminEmail, password: server.adminPassword },
      COOKIE,
    );
    expect(answer.status).toBe(200);
    const { pair, attributes } = setCookie(answer.headers);
    return {
      access: (answer.body as { tokens: { access_token: string } }).tokens.access_token,
      cookie: pair,
      attributes,
      body: answer.body,
    };
  }

  it('should set the cookie on login and leave the refresh token out of the body', async () => {
    const { cookie, attributes, body, access } = await cookieLogin();
    expect(cookie).toMatch(/^vectorstore_refresh=[A-Za-z0-9_-]{20,}$/);
    expect(attributes).toMatch(/HttpOnly/);
    expect(attributes).toMatch(/SameSite=Strict/);
    expect(attributes).toMatch(/Path=\/api\/auth/);
    expect(attributes).toMatch(/Max-Age=604800/);
    // Plain HTTP: not Secure (a browser would not send it back otherwise).
    expect(attributes).not.toMatch(/Secure/);
    expect(body).toEqual({
      tokens: { access_token: expect.any(String), token_type: 'bearer' },
      user: expect.objectContaining({ email: server.adminEmail, role: 'admin' }),
    });
    expect((await httpJson(server.httpUrl, 'GET', '/collections', undefined, { 'api-key': access })).status).toBe(200);
  });

  it('should rotate the cookie on refresh, and within the reuse grace answer the used one too', async () => {
    const first = await cookieLogin();
    const answer = await httpJson(server.httpUrl, 'POST', '/api/auth/refresh', {}, { ...COOKIE, cookie: first.cookie });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('cache-control')).toBe('no-store');
    expect(answer.body).toEqual({ access_token: expect.any(String), token_type: 'bearer' });
    const second = setCookie(answer.headers).pair;
    expect(second).not.toBe(first.cookie);
    expect(second).toMatch(/^vectorstore_refresh=/);

    // Another tab presenting the same cookie at once (no Web Locks over plain HTTP) is not taken for theft: it gets
    // the same successor cookie and access token, so the session stays one chain.
    const reused = await httpJson(server.httpUrl, 'POST', '/api/auth/refresh', {}, { ...COOKIE, cookie: first.cookie });
    expect(reused.status).toBe(200);
    expect(setCookie(reused.headers).pair).toBe(second);
    expect(reused.body).toEqual(answer.body);
    const afterSecond = await httpJson(server.httpUrl, 'POST', '/api/auth/refresh', {}, { ...COOKIE, cookie: second });
    expect(afterSecond.status).toBe(200);
    expect((await httpJson(server.httpUrl, 'POST', '/api/auth/logout', {}, { ...COOKIE, cookie: second })).status).toBe(
      204,
    );
    const fourth = setCookie(afterSecond.headers).pair;
    const ended = await httpJson(server.httpUrl, 'POST', '/api/auth/refresh', {}, { ...COOKIE, cookie: fourth });
    expect(ended.status).toBe(401);
    expect(ended.body).toEqual({ status: { error: 'Invalid refresh token' } });
    // A refused cookie is cleared.
    expect(setCookie(ended.headers).attributes).toMatch(/Expires=Thu, 01 Jan 1970/);
  });

  it('should refuse a cookie refresh without the cookie, or with a token in the body too', async () => {
    const none = await httpJson(server.httpUrl, 'POST', '/api/auth/refresh', {}, COOKIE);
    expect(none.status).toBe(401);
    expect(none.body).toEqual({ status: { error: 'Invalid refresh token' } });

    const { cookie } = await cookieLogin();
    const both = await httpJson(
      server.httpUrl,
      'POST',
      '/api/auth/refresh',
      { refresh_token: 'x' },
      { ...COOKIE, cookie },
    );
    expect(both.status).toBe(400);
    expect((both.body as { status: { error: string } }).status.error).toBe(
      'Validation error in body: [refresh_token: must not be sent with x-vectorstore-session: cookie]',
    );
  });

  it('should end the session on logout and clear the cookie', async () => {
    const { cookie } = await cookieLogin();
    const out = await httpJson(server.httpUrl, 'POST', '/api/auth/logout', {}, { ...COOKIE, cookie });
    expect(out.status).toBe(204);
    expect(setCookie(out.headers).attributes).toMatch(/Expires=Thu, 01 Jan 1970/);
    const stale = await httpJson(server.httpUrl, 'POST', '/api/auth/refresh', {}, { ...COOKIE, cookie });
    expect(stale.status).toBe(401);
    // Without a cookie there is nothing to end.
    expect((await httpJson(server.httpUrl, 'POST', '/api/auth/logout', {}, COOKIE)).status).toBe(204);
  });

  it('should neither set nor read the cookie without the header (JSON bodies unchanged)', async () => {
    const body = await login(server.httpUrl, server.adminEmail, server.adminPassword);
    expect(body.tokens.refresh_token).toEqual(expect.any(String));
    const plain = await httpJson(server.httpUrl, 'POST', '/api/auth/login', {
      email: server.adminEmail,
      password: server.adminPassword,
    });
    expect(plain.headers.getSetCookie()).toEqual([]);

    const { cookie } = await cookieLogin();
    // The cookie alone is ignored: the body's token is still required, with the same message as before.
    const missing = await httpJson(server.httpUrl, 'POST', '/api/auth/refresh', {}, { cookie });
    expect(missing.status).toBe(400);
    expect((missing.body as { status: { error: string } }).status.error).toBe(
      'Validation error in body: [refresh_token: is required]',
    );
    const nulled = await httpJson(server.httpUrl, 'POST', '/api/auth/refresh', { refresh_token: null }, { cookie });
    expect((nulled.body as { status: { error: string } }).status.error).toBe(
      'Validation error in body: [refresh_token: is required]',
    );
    const rotated = await refresh(server.httpUrl, body.tokens.refresh_token);
    expect(rotated.status).toBe(200);
    expect(rotated.headers.getSetCookie()).toEqual([]);
    expect(rotated.body).toEqual(expect.objectContaining({ refresh_token: expect.any(String) }));
  });
});

describe('auth: the refresh cookie with VECTORSTORE_COOKIE_SECURE=always (behind a TLS proxy) (e2e)', () => {
  let server: RunningServer;

  beforeAll(async () => {
    server = await startServer({ env: { VECTORSTORE_COOKIE_SECURE: 'always' } });
  });

  afterAll(async () => {
    await server?.stop();
  });

  it('should set a Secure cookie named __Secure-vectorstore_refresh over plain HTTP, and read it back', async () => {
    const answer = await httpJson(
      server.httpUrl,
      'POST',
      '/api/auth/login',
      { email: server.adminEmail, password: server.adminPassword },
      COOKIE,
    );
    expect(answer.status).toBe(200);
    const [header] = answer.headers.getSetCookie();
    const [pair, ...attributes] = (header ?? '').split(';').map((s) => s.trim());
    expect(pair).toMatch(/^__Secure-vectorstore_refresh=[A-Za-z0-9_-]{20,}$/);
    expect(attributes).toEqual(expect.arrayContaining(['Secure', 'HttpOnly', 'SameSite=Strict', 'Path=/api/auth']));

    const refreshed = await httpJson(server.httpUrl, 'POST', '/api/auth/refresh', {}, { ...COOKIE, cookie: pair });
    expect(refreshed.status).toBe(200);
    expect(refreshed.headers.getSetCookie()[0]).toMatch(/^__Secure-vectorstore_refresh=.*; Secure/);
    // The plain name is not read in this mode.
    const plainName = pair.replace('__Secure-', '');
    expect(
      (await httpJson(server.httpUrl, 'POST', '/api/auth/refresh', {}, { ...COOKIE, cookie: plainName })).status,
    ).toBe(401);
  });
});
