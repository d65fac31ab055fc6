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
  /**
   * Called once on a 401: refresh if possible. `renewed`: retry the call; `refused`: the credential is no good;
   * `unavailable`: the refresh failed for a reason that may pass (server error, no answer), the session stays.
   */
  recover(): Promise<
    { kind: 'renewed' } | { kind: 'refused' } | { kind: 'unavailable'; status: number; message: string }
  >;
  /** The credential is no good: back to sign-in. */
  expired(reason: string): void;
  /** The session's collection grants, when it is limited to named collections (for the words of a 403). */
  grants?(): { collection: string; access: 'r' | 'rw' }[] | undefined;
}

/** Connectivity: listeners learn when the server stops or starts answering. */
type ReachabilityListener = (reachable: boolean) => void;
const reachabilityListeners = new Set<ReachabilityListener>();
let reachable = true;
let probing: ReturnType<typeof setTimeout> | undefined;
/** How often an unreachable server is tried again, in ms. */
export const RETRY_MS = 2000;
/** How long a call may take before it counts as unanswered, in ms: auth calls (the refresh holds a lock), others. */
export const AUTH_TIMEOUT_MS = 15_000;
export const REQUEST_TIMEOUT_MS = 120_000;

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

/**
 * Explains a 403: which permission the credential lacks. `grants`: the session is limited to these collections
 * (a reader with grants), so "read access" would be wrong: it may write where it holds `rw`.
 */
export function forbiddenMessage(
  serverMessage: string,
  grants?: readonly { collection: string; access: 'r' | 'rw' }[],
): string {
  const manage = /manage access/i.test(serverMessage);
  if (grants === undefined || grants.length === 0) {
    return manage
      ? `Permission missing: this needs manage (write) access, and you are signed in with read access. (${serverMessage})`
      : `Permission missing: ${serverMessage}`;
  }
  const yours = `you are limited to ${grants.map((g) => `${g.collection} (${g.access === 'rw' ? 'read and write' : 'read'})`).join(', ')}`;
  const write = /Write access to collection (.+) is required/.exec(serverMessage);
  const collection = /Access to collection (.+) is required/.exec(serverMessage);
  const explained = manage
    ? `this needs manage access, which only administrators have; ${yours}`
    : write
      ? `this needs write access to ${write[1]}; ${yours}`
      : collection
        ? `${collection[1]} is not among your collections; ${yours}`
        : /Global access/i.test(serverMessage) || /named collection/i.test(serverMessage)
          ? `this needs access to every collection; ${yours}`
          : yours;
  return `Permission missing: ${explained}. (${serverMessage})`;
}

/** The credential's headers, for calls `request` cannot make (a download streamed to a file, an upload's progress). */
export function authHeaders(): Record<string, string> {
  return hooks?.headers() ?? {};
}

/** The {@link ApiError} of an error answer, a 403 in words that say which permission is missing. */
export function apiErrorOf(status: number, text: string): ApiError {
  const message = errorMessage(status, text);
  return new ApiError(status, status === 403 ? forbiddenMessage(message, hooks?.grants?.()) : message);
}

/** Tries one silent refresh after a 401 of such a call; true when the call should be sent again. */
export async function recoverAuth(): Promise<boolean> {
  return (await hooks?.recover())?.kind === 'renewed';
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
      body: body === undefined ? undefined : stringifyJson(body),
      credentials: 'same-origin',
      cache: 'no-store',
      // A hung call must not hang the page, nor hold the refresh lock that every tab waits for.
      signal: AbortSignal.timeout(path.startsWith('/api/auth/') ? AUTH_TIMEOUT_MS : REQUEST_TIMEOUT_MS),
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
  if (response.status === 401 && !options.anonymous && hooks) {
    const recovered = await hooks.recover();
    if (recovered.kind === 'renewed') response = await send(method, path, body, options);
    else if (recovered.kind === 'unavailable')
      throw new ApiError(recovered.status, `The session could not be renewed: ${recovered.message}`);
  }
  const text = await response.text();
  if (!response.ok) {
    if (response.status === 401 && !options.anonymous) hooks?.expired(errorMessage(response.status, text));
    throw apiErrorOf(response.status, text);
  }
  if (options.text) return text as T;
  if (text === '') return undefined as T;
  const parsed = parseJson(text) as { result?: unknown };
  return (path.startsWith('/api/auth/') ? parsed : parsed.result) as T;
}

/**
 * `JSON.parse` that keeps integers beyond 2^53 (u64 point and peer ids) exact, as `bigint`s, where the browser gives
 * the reviver the source text (Chromium 114+, Firefox 135+, Safari 18.4+); elsewhere they round.
 * {@link stringifyJson} writes them back as JSON numbers, so a scroll offset returns to the server as it came.
 */
export function parseJson(text: string): unknown {
  const reviver = (_key: string, value: unknown, context?: { source?: string }): unknown =>
    typeof value === 'number' && !Number.isSafeInteger(value) && context?.source && /^-?\d+$/.test(context.source)
      ? BigInt(context.source)
      : value;
  return JSON.parse(text, reviver as (key: string, value: unknown) => unknown);
}

/**
 * `JSON.stringify` that writes a `bigint` as a JSON number of its digits (the built-in throws on one). Otherwise
 * the same output, `indent` spaces per level as `JSON.stringify(value, null, indent)`.
 */
export function stringifyJson(value: unknown, indent = 0): string {
  return write(value, ' '.repeat(indent), '') ?? 'null';
}

function write(value: unknown, step: string, pad: string): string | undefined {
  if (typeof value === 'bigint') return value.toString();
  if (value !== null && typeof value === 'object' && typeof (value as { toJSON?: unknown }).toJSON === 'function')
    return write((value as { toJSON(): unknown }).toJSON(), step, pad);
  if (value === null || typeof value !== 'object') return JSON.stringify(value) as string | undefined;
  const inner = pad + step;
  const [open, separator, close] = step === '' ? ['', ',', ''] : [`\n${inner}`, `,\n${inner}`, `\n${pad}`];
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    return `[${open}${value.map((item) => write(item, step, inner) ?? 'null').join(separator)}${close}]`;
  }
  const members = Object.entries(value).flatMap(([key, item]) => {
    const text = write(item, step, inner);
    return text === undefined ? [] : [`${JSON.stringify(key)}:${step === '' ? '' : ' '}${text}`];
  });
  return members.length === 0 ? '{}' : `{${open}${members.join(separator)}${close}}`;
}
