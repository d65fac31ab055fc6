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
}

export type SessionState =
  | { kind: 'signed-out'; notice?: string }
  | { kind: 'user'; user: User; readOnly: boolean }
  | { kind: 'api-key'; readOnly: boolean };

const COOKIE_SCHEME = { 'x-vectorstore-session': 'cookie' };

interface AccessToken {
  access_token: string;
}

let state: SessionState = { kind: 'signed-out' };
let accessToken: string | undefined;
let apiKey: string | undefined;
let refreshTimer: ReturnType<typeof setTimeout> | undefined;
let refreshing: Promise<boolean> | undefined;
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

/** Seconds until the JWT's `exp`, read without verifying (the server verifies). */
export function secondsLeft(token: string, now = Date.now()): number {
  try {
    const payload = JSON.parse(atob(token.split('.')[1].replace(/-/g, '+').replace(/_/g, '/'))) as { exp?: unknown };
    return typeof payload.exp === 'number' ? payload.exp - now / 1000 : 0;
  } catch {
    return 0;
  }
}

/** When to renew: a fifth of the lifetime (at most a minute) before expiry, and not sooner than in a second. */
export function refreshDelayMs(lifetimeSeconds: number): number {
  const margin = Math.min(60, lifetimeSeconds / 5);
  return Math.max(1000, (lifetimeSeconds - margin) * 1000);
}

function keepToken(token: string): void {
  accessToken = token;
  clearTimeout(refreshTimer);
  refreshTimer = setTimeout(() => void refreshNow(), refreshDelayMs(secondsLeft(token)));
}

function clearCredentials(): void {
  clearTimeout(refreshTimer);
  refreshTimer = undefined;
  accessToken = undefined;
  apiKey = undefined;
}

/**
 * One refresh at a time across every tab of this origin. The tabs share the cookie, and presenting a refresh token
 * that another tab has just used up would revoke the session (reuse detection): a Web Lock makes the second tab wait
 * and then send the cookie the first one received.
 */
async function exclusively<T>(task: () => Promise<T>): Promise<T> {
  if (typeof navigator === 'undefined' || !navigator.locks) return task();
  return await navigator.locks.request('vectorstore-refresh', task);
}

/** Rotates the refresh cookie for a new access token. Concurrent callers in this tab share one refresh. */
export function refreshNow(): Promise<boolean> {
  refreshing ??= exclusively(() =>
    request<AccessToken>('POST', '/api/auth/refresh', {}, { anonymous: true, headers: COOKIE_SCHEME }),
  )
    .then(
      (answer) => {
        keepToken(answer.access_token);
        return true;
      },
      (error: unknown) => {
        // Unreachable: keep the session, the next call will try again. Refused: the session is over.
        if (error instanceof ApiError && error.status !== 0) expire('Your session has ended. Please sign in again.');
        return false;
      },
    )
    .finally(() => (refreshing = undefined));
  return refreshing;
}

function expire(notice: string): void {
  if (state.kind === 'signed-out') return;
  clearCredentials();
  setState({ kind: 'signed-out', notice });
}

installAuth({
  headers: (): Record<string, string> =>
    apiKey !== undefined
      ? { 'api-key': apiKey }
      : accessToken !== undefined
        ? { authorization: `Bearer ${accessToken}` }
        : {},
  recover: (): Promise<boolean> => (state.kind === 'user' ? refreshNow() : Promise.resolve(false)),
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
 * Uses an API key instead of a login. Whether it may write is learned from a write that changes nothing: an
 * empty alias batch (manage access: done, read access: 403).
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
  let readOnly = false;
  try {
    await request('POST', '/collections/aliases', { actions: [] });
  } catch (error) {
    if (!(error instanceof ApiError) || error.status !== 403) throw error;
    readOnly = true;
  }
  setState({ kind: 'api-key', readOnly });
}

/** On page load: a refresh cookie from an earlier sign-in restores the session without a password. */
export async function restore(): Promise<void> {
  if (!(await refreshNow())) return;
  try {
    const user = await request<User>('GET', '/api/auth/me');
    setState({ kind: 'user', user, readOnly: user.role !== 'admin' });
  } catch {
    clearCredentials();
  }
}

export async function signOut(): Promise<void> {
  if (state.kind === 'user') {
    // Ends the session on the server (its refresh-token family) and drops the cookie; a failure still signs out here.
    await request('POST', '/api/auth/logout', {}, { anonymous: true, headers: COOKIE_SCHEME }).catch(() => undefined);
  }
  clearCredentials();
  setState({ kind: 'signed-out', notice: 'You are signed out.' });
}
