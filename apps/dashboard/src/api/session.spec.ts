import { request } from './http';
import * as session from './session';
import { lifetimeSeconds, MAX_TIMEOUT_MS, refreshDelayMs, REFRESH_RETRY_MS } from './session';

function jwtWith(claims: Record<string, unknown>): string {
  const part = (value: unknown): string => btoa(JSON.stringify(value)).replace(/=+$/, '');
  return `${part({ alg: 'HS256' })}.${part(claims)}.signature`;
}

/** A 15-minute token issued by a server whose clock reads `iat` (seconds). */
const token = (iat: number): string => jwtWith({ iat, exp: iat + 900 });

/** What reading a fetch Response needs; only the clocks and timeouts are faked. */
const REAL: ('nextTick' | 'queueMicrotask' | 'setImmediate')[] = ['nextTick', 'queueMicrotask', 'setImmediate'];

type Answer = { status: number; body?: unknown } | 'network-error';

/** A fake server: answers per "METHOD path" (the last one repeats), recording every call. */
function fakeServer(routes: Record<string, Answer[]>): { calls: string[] } {
  const calls: string[] = [];
  globalThis.fetch = jest.fn(async (path: RequestInfo | URL, init?: RequestInit) => {
    const key = `${init?.method ?? 'GET'} ${String(path)}`;
    calls.push(key);
    const answers = routes[key];
    if (!answers) throw new Error(`unexpected ${key}`);
    const answer = answers.length > 1 ? answers.shift()! : answers[0];
    if (answer === 'network-error') throw new TypeError('Failed to fetch');
    return new Response(answer.body === undefined ? null : JSON.stringify(answer.body), { status: answer.status });
  }) as typeof fetch;
  return { calls };
}

const LOGIN = { status: 200, body: { tokens: { access_token: token(1000) }, user: { email: 'a@b', role: 'admin' } } };

describe('session', () => {
  const realFetch = globalThis.fetch;

  // The session's state is module-wide: every test below starts by signing in (or with a key), which resets it, and
  // runs on fake timers, so no refresh timer outlives it.
  beforeEach(() => {
    jest.useFakeTimers({ doNotFake: REAL });
  });

  afterEach(() => {
    globalThis.fetch = realFetch;
    jest.useRealTimers();
  });

  describe(lifetimeSeconds.name, () => {
    it('should read exp - iat, whatever the browser clock says', () => {
      expect(lifetimeSeconds(jwtWith({ iat: 1000, exp: 1900 }))).toBe(900);
    });

    it('should answer 0 for anything that is not a JWT with iat and exp', () => {
      expect(lifetimeSeconds('nope')).toBe(0);
      expect(lifetimeSeconds(jwtWith({ exp: 1000 }))).toBe(0);
    });
  });

  describe(refreshDelayMs.name, () => {
    it('should renew a minute before a 15-minute token expires', () => {
      expect(refreshDelayMs(900)).toBe(840_000);
    });

    it('should renew short tokens at four fifths of their life, and never sooner than in a second', () => {
      expect(refreshDelayMs(10)).toBe(8000);
      expect(refreshDelayMs(0)).toBe(1000);
      expect(refreshDelayMs(-5)).toBe(1000);
    });

    it('should never exceed what setTimeout honours (a longer delay would fire at once)', () => {
      expect(refreshDelayMs(365 * 24 * 3600)).toBe(MAX_TIMEOUT_MS);
    });
  });

  describe('silent refresh', () => {
    it('should time the refresh from the token lifetime, not the browser clock (a skewed clock)', async () => {
      jest.setSystemTime(new Date('2030-01-01T00:00:00Z')); // the token says 1970: decades of skew
      const server = fakeServer({
        'POST /api/auth/login': [LOGIN],
        'POST /api/auth/refresh': [{ status: 200, body: { access_token: token(1840) } }],
      });
      await session.signIn('a@b', 'pw');
      await jest.advanceTimersByTimeAsync(839_000);
      expect(server.calls.filter((call) => call.includes('refresh'))).toEqual([]);
      await jest.advanceTimersByTimeAsync(2000);
      expect(server.calls.filter((call) => call.includes('refresh'))).toHaveLength(1);
    });

    it('should keep the session on a server error and try again, and end it on a 401', async () => {
      const server = fakeServer({
        'POST /api/auth/login': [LOGIN],
        'POST /api/auth/refresh': [{ status: 503, body: { status: { error: 'busy' } } }, { status: 401 }],
      });
      await session.signIn('a@b', 'pw');
      await jest.advanceTimersByTimeAsync(840_000);
      expect(server.calls.filter((call) => call.includes('refresh'))).toHaveLength(1);
      expect(session.sessionState().kind).toBe('user');
      await jest.advanceTimersByTimeAsync(REFRESH_RETRY_MS);
      expect(server.calls.filter((call) => call.includes('refresh'))).toHaveLength(2);
      expect(session.sessionState()).toMatchObject({ kind: 'signed-out' });
    });

    it('should not sign out when a 401 cannot be recovered because the refresh hit a server error', async () => {
      fakeServer({
        'POST /api/auth/login': [LOGIN],
        'GET /collections': [{ status: 401 }],
        'POST /api/auth/refresh': [{ status: 500 }],
      });
      await session.signIn('a@b', 'pw');
      await expect(request('GET', '/collections')).rejects.toMatchObject({ status: 500 });
      expect(session.sessionState().kind).toBe('user');
    });
  });

  describe('signOut', () => {
    it.each<[string, Answer]>([
      ['cannot reach the server', 'network-error'],
      ['gets a server error', { status: 500 }],
    ])('should keep the session and reject when logout %s', async (_, failure) => {
      fakeServer({ 'POST /api/auth/login': [LOGIN], 'POST /api/auth/logout': [failure] });
      await session.signIn('a@b', 'pw');
      await expect(session.signOut()).rejects.toBeDefined();
      expect(session.sessionState().kind).toBe('user');
    });

    it('should sign out once the server has ended the session', async () => {
      fakeServer({ 'POST /api/auth/login': [LOGIN], 'POST /api/auth/logout': [{ status: 204 }] });
      await session.signIn('a@b', 'pw');
      await session.signOut();
      expect(session.sessionState()).toEqual({ kind: 'signed-out', notice: 'You are signed out.' });
    });
  });

  describe('useApiKey', () => {
    it.each([
      [403, true],
      [422, false],
    ])('should learn the access from a write refused before it changes anything (%i)', async (status, readOnly) => {
      const server = fakeServer({
        'GET /collections': [{ status: 200, body: { result: { collections: [] } } }],
        'DELETE /collections/bad%2Fname': [{ status, body: { status: { error: 'no' } } }],
      });
      await session.useApiKey('k'.repeat(16));
      expect(session.sessionState()).toEqual({ kind: 'api-key', readOnly });
      expect(server.calls).toEqual(['GET /collections', 'DELETE /collections/bad%2Fname']);
    });
  });
});
