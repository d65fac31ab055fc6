import { ApiError, installAuth, request } from './http';

/**
 * The signed-in state. The access token lives in this module's memory only (never in storage); the refresh token
 * lives in an HttpOnly cookie that page scripts cannot read (docs/auth.md, "Refresh token in a cookie"). A reload
 * restores the session by one refresh. The access token is renewed before it expires, with rotation.
 */

export interface User {
  id: string;
  email: string;
  full_name?: string | null;
  role: 'admin' | 'reader';
  /** Only for a reader limited to named collections (`/api/auth/me` and the login answer carry them). */
  collections?: { collection: string; access: 'r' | 'rw' }[];
}

/**
 * `readOnly`: no global manage access (readers, the read-only key); it hides every control that needs it. A reader
 * limited to collections may still write to those granted `rw`: {@link canWrite} says so per collection.
 */
export type SessionState =
  | { kind: 'signed-out'; notice?: string }
  | { kind: 'user'; user: User; readOnly: boolean }
  | { kind: 'api-key'; readOnly: boolean };

/** The collection grants of the session, or undefined for global access (admins, readers without grants, keys). */
export function grantsOf(session: SessionState): User['collections'] | undefined {
  return session.kind === 'user' && session.user.collections && session.user.collections.length > 0
    ? session.user.collections
    : undefined;
}

/**
 * Whether the session may write points, payloads and payload indexes and take snapshots of `collection`: global
 * manage access, or an `rw` grant on it (Qdrant's per-collection write). The server decides anyway.
 */
export function canWrite(session: SessionState, collection: string): boolean {
  if (session.kind === 'signed-out') return false;
  if (!session.readOnly) return true;
  return (grantsOf(session) ?? []).some((grant) => grant.collection === collection && grant.access === 'rw');
}

const COOKIE_SCHEME = { 'x-vectorstore-session': 'cookie' };
/** A collection name the server refuses ("/" is not allowed), so deleting it can never delete anything. */
const WRITE_PROBE_NAME = 'bad/name';

interface AccessToken {
  access_token: string;
}

let state: SessionState = { kind: 'signed-out' };
let accessToken: string | undefined;
let apiKey: string | undefined;
let refreshTimer: ReturnType<typeof setTimeout> | undefined;
let refreshing: Promise<RefreshOutcome> | undefined;
const listeners = new Set<(state: SessionState) => void>();

export function sessionState(): SessionState {
  return state;
}

export function onSession(listener: (state: SessionState) => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

function setState(next: SessionState): void {
  state = next;
  for (const listener of listeners) listener(next);
}

/** The longest delay `setTimeout` honours (2^31-1 ms, about 24.8 days); a longer one would fire at once. */
export const MAX_TIMEOUT_MS = 2 ** 31 - 1;
/** After a refresh that failed without being refused (server error, no answer), try again this soon. */
export const REFRESH_RETRY_MS = 5000;

/** `setTimeout` with the delay clamped to what browsers honour. */
export function later(task: () => void, delayMs: number): ReturnType<typeof setTimeout> {
  return setTimeout(task, Math.min(MAX_TIMEOUT_MS, Math.max(0, delayMs)));
}

/**
 * The token's lifetime in seconds, `exp - iat`, read without verifying (the server verifies). Both claims come from
 * the server's clock, so the difference holds however wrong the browser's clock is: the session measures it from
 * when the token arrived, never against `Date.now()`.
 */
export function lifetimeSeconds(token: string): number {
  try {
    const payload = JSON.parse(atob(token.split('.')[1].replace(/-/g, '+').replace(/_/g, '/'))) as {
      exp?: unknown;
      iat?: unknown;
    };
    return typeof payload.exp === 'number' && typeof payload.iat === 'number' ? payload.exp - payload.iat : 0;
  } catch {
    return 0;
  }
}

/** When to renew: a fifth of the lifetime (at most a minute) before expiry, and not sooner than in a second. */
export function refreshDelayMs(lifetimeSeconds: number): number {
  const margin = Math.min(60, lifetimeSeconds / 5);
  return Math.min(MAX_TIMEOUT_MS, Math.max(1000, (lifetimeSeconds - margin) * 1000));
}

function scheduleRefresh(delayMs: number): void {
  clearTimeout(refreshTimer);
  refreshTimer = later(() => void refreshNow(), delayMs);
}

function keepToken(token: string): void {
  accessToken = token;
  scheduleRefresh(refreshDelayMs(lifetimeSeconds(token)));
}

function clearCredentials(): void {
  clearTimeout(refreshTimer);
  refreshTimer = undefined;
  accessToken = undefined;
  apiKey = undefined;
}

/**
 * One refresh at a time across every tab of this origin. The tabs share the cookie, and presenting a refresh token
 * that another tab has just used up is reuse: a Web Lock makes the second tab wait and then send the cookie the first
 * one received. Outside a secure context (plain HTTP to a host other than localhost) browsers have no Web Locks;
 * there the server's short reuse grace keeps concurrent tabs signed in (docs/auth.md, "Reuse grace").
 */
async function exclusively<T>(task: () => Promise<T>): Promise<T> {
  if (typeof navigator === 'undefined' || !navigator.locks) return task();
  return await navigator.locks.request('vectorstore-refresh', task);
}

/**
 * Rotates the refresh cookie for a new access token. Concurrent callers in this tab share one refresh. Only a 401
 * ends the session; a server error or no answer keeps it and tries again in {@link REFRESH_RETRY_MS}.
 */
export function refreshNow(): Promise<RefreshOutcome> {
  refreshing ??= exclusively(() =>
    request<AccessToken>('POST', '/api/auth/refresh', {}, { anonymous: true, headers: COOKIE_SCHEME }),
  )
    .then(
      (answer): RefreshOutcome => {
        keepToken(answer.access_token);
        return { kind: 'renewed' };
      },
      (error: unknown): RefreshOutcome => {
        const status = error instanceof ApiError ? error.status : 0;
        const message = error instanceof Error ? error.message : String(error);
        if (status === 401) {
          expire('Your session has ended. Please sign in again.');
          return { kind: 'refused', message };
        }
        if (state.kind === 'user') scheduleRefresh(REFRESH_RETRY_MS);
        return { kind: 'unavailable', status, message };
      },
    )
    .finally(() => (refreshing = undefined));
  return refreshing;
}

/** What a refresh came to: a new token, a refusal (the session is over), or a failure that may pass. */
export type RefreshOutcome =
  { kind: 'renewed' } | { kind: 'refused'; message: string } | { kind: 'unavailable'; status: number; message: string };

function expire(notice: string): void {
  if (state.kind === 'signed-out') return;
  clearCredentials();
  setState({ kind: 'signed-out', notice });
}

installAuth({
  grants: () => grantsOf(state),
  headers: (): Record<string, string> =>
    apiKey !== undefined
      ? { 'api-key': apiKey }
      : accessToken !== undefined
        ? { authorization: `Bearer ${accessToken}` }
        : {},
  recover: (): Promise<RefreshOutcome> =>
    state.kind === 'user' ? refreshNow() : Promise.resolve({ kind: 'refused', message: 'no session to renew' }),
  expired: (message: string): void => expire(`Signed out: ${message}`),
});

export async function signIn(email: string, password: string): Promise<void> {
  const answer = await request<{ tokens: AccessToken; user: User }>(
    'POST',
    '/api/auth/login',
    { email, password },
    { anonymous: true, headers: COOKIE_SCHEME },
  );
  clearCredentials();
  keepToken(answer.tokens.access_token);
  setState({ kind: 'user', user: answer.user, readOnly: answer.user.role !== 'admin' });
}

/**
 * Uses an API key instead of a login. Whether it may write is learned from a write the server refuses before it can
 * change anything: deleting a collection whose name is invalid. The access guard answers first, so a read-only key
 * gets 403 and a manage key gets the name's 422; nothing is written (an empty alias batch, the earlier probe, saves
 * the catalog, an etcd write in cluster mode).
 */
export async function useApiKey(key: string): Promise<void> {
  clearCredentials();
  apiKey = key;
  try {
    await request('GET', '/collections');
  } catch (error) {
    apiKey = undefined;
    throw error;
  }
  let status: number;
  try {
    await request('DELETE', `/collections/${encodeURIComponent(WRITE_PROBE_NAME)}`);
    status = 200;
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    status = error.status;
  }
  if (status !== 403 && status !== 422) {
    apiKey = undefined;
    throw new ApiError(status, `Could not learn the key's access (DELETE answered ${status}).`);
  }
  setState({ kind: 'api-key', readOnly: status === 403 });
}

/** On page load: a refresh cookie from an earlier sign-in restores the session without a password. */
export async function restore(): Promise<void> {
  const outcome = await refreshNow();
  if (outcome.kind === 'unavailable' && outcome.status !== 0) {
    // The cookie was kept (only a 401 clears it): a reload may restore the session once the server is well.
    setState({
      kind: 'signed-out',
      notice: `Your session could not be restored now (${outcome.message}). Reload to try again.`,
    });
  }
  if (outcome.kind !== 'renewed') return;
  try {
    const user = await request<User>('GET', '/api/auth/me');
    setState({ kind: 'user', user, readOnly: user.role !== 'admin' });
  } catch {
    clearCredentials();
  }
}

/**
 * Reads the signed-in user again (`/api/auth/me`), after a change an administrator made to their own account: a new
 * role changes what the screens offer; a deactivation or a new password ends the session (the 401 goes to sign-in).
 */
export async function recheckUser(): Promise<void> {
  if (state.kind !== 'user') return;
  const user = await request<User>('GET', '/api/auth/me');
  if (state.kind === 'user') setState({ kind: 'user', user, readOnly: user.role !== 'admin' });
}

/**
 * Signs out. For a user the server must end the session (its refresh-token family) and drop the cookie: until it has,
 * a reload would bring the session back, so a failure rejects (an {@link ApiError}) and the session stays here, for
 * the page to say so and offer a retry.
 */
export async function signOut(): Promise<void> {
  if (state.kind === 'user') {
    await request('POST', '/api/auth/logout', {}, { anonymous: true, headers: COOKIE_SCHEME });
  }
  clearCredentials();
  setState({ kind: 'signed-out', notice: 'You are signed out.' });
}
