/**
 * The one way the dashboard talks to the server: same-origin fetch with the session's credential, Qdrant's
 * envelope unwrapped, and failures turned into {@link ApiError}s that say what happened in a person's words.
 */

/** A failed call. `status` 0 means the server could not be reached. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** Hooks the session installs: the credential's headers, and what to do on 401. */
export interface AuthHooks {
  headers(): Record<string, string>;
  /** Called once on a 401: refresh if possible and say whether a retry is worth it. */
  recover(): Promise<boolean>;
  /** The credential is no good: back to sign-in. */
  expired(reason: string): void;
}

/** Connectivity: listeners learn when the server stops or starts answering. */
type ReachabilityListener = (reachable: boolean) => void;
const reachabilityListeners = new Set<ReachabilityListener>();
let reachable = true;
let probing: ReturnType<typeof setTimeout> | undefined;
/** How often an unreachable server is tried again, in ms. */
export const RETRY_MS = 2000;

export function onReachability(listener: ReachabilityListener): () => void {
  reachabilityListeners.add(listener);
  return () => reachabilityListeners.delete(listener);
}

function setReachable(value: boolean): void {
  if (value === reachable) return;
  reachable = value;
  for (const listener of reachabilityListeners) listener(value);
  if (!value) probe();
}

/** While the server is down, ask `/readyz` (open, cheap) every {@link RETRY_MS} until it answers. */
function probe(): void {
  if (probing !== undefined) return;
  probing = setTimeout(() => {
    probing = undefined;
    fetch('/readyz', { cache: 'no-store' }).then(
      (response) => (response.ok ? setReachable(true) : probe()),
      () => probe(),
    );
  }, RETRY_MS);
}

let hooks: AuthHooks | undefined;
export function installAuth(auth: AuthHooks): void {
  hooks = auth;
}

/** The message of an error answer: Qdrant's `{status: {error}}`, or the plain text of a 401. */
export function errorMessage(status: number, text: string): string {
  try {
    const body = JSON.parse(text) as { status?: { error?: unknown } };
    if (typeof body.status?.error === 'string') return body.status.error;
  } catch {
    // not JSON: plain text
  }
  return text.trim() || `HTTP ${status}`;
}

/** Explains a 403: which permission the credential lacks. */
export function forbiddenMessage(serverMessage: string): string {
  const manage = /manage access/i.test(serverMessage);
  return manage
    ? `Permission missing: this needs manage (write) access, and you are signed in with read access. (${serverMessage})`
    : `Permission missing: ${serverMessage}`;
}

export interface RequestOptions {
  /** Raw text answer (e.g. `/metrics`), not Qdrant's JSON envelope. */
  text?: boolean;
  /** No credential and no 401 handling (the auth routes themselves). */
  anonymous?: boolean;
  headers?: Record<string, string>;
}

async function send(method: string, path: string, body: unknown, options: RequestOptions): Promise<Response> {
  const headers: Record<string, string> = { ...(options.anonymous ? {} : hooks?.headers()), ...options.headers };
  if (body !== undefined) headers['content-type'] = 'application/json';
  try {
    const response = await fetch(path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: 'same-origin',
      cache: 'no-store',
    });
    setReachable(true);
    return response;
  } catch {
    setReachable(false);
    throw new ApiError(0, 'The server cannot be reached. Retrying…');
  }
}

/** Calls the API. Resolves with Qdrant's `result` (or the raw body), rejects with an {@link ApiError}. */
export async function request<T>(
  method: string,
  path: string,
  body?: unknown,
  options: RequestOptions = {},
): Promise<T> {
  let response = await send(method, path, body, options);
  if (response.status === 401 && !options.anonymous && hooks && (await hooks.recover())) {
    response = await send(method, path, body, options);
  }
  const text = await response.text();
  if (!response.ok) {
    const message = errorMessage(response.status, text);
    if (response.status === 401 && !options.anonymous) hooks?.expired(message);
    throw new ApiError(response.status, response.status === 403 ? forbiddenMessage(message) : message);
  }
  if (options.text) return text as T;
  if (text === '') return undefined as T;
  const parsed = parseJson(text) as { result?: unknown };
  return (path.startsWith('/api/auth/') ? parsed : parsed.result) as T;
}

/**
 * `JSON.parse` that keeps integers beyond 2^53 (u64 point and peer ids) exact, as strings of their digits, where the
 * browser gives the reviver the source text (Chromium 114+, Firefox 135+, Safari 18.4+); elsewhere they round.
 */
export function parseJson(text: string): unknown {
  const reviver = (_key: string, value: unknown, context?: { source?: string }): unknown =>
    typeof value === 'number' && !Number.isSafeInteger(value) && context?.source && /^-?\d+$/.test(context.source)
      ? context.source
      : value;
  return JSON.parse(text, reviver as (key: string, value: unknown) => unknown);
}
