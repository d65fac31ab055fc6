import * as grpc from '@grpc/grpc-js';
import { spawn } from 'node:child_process';
import { createHmac } from 'node:crypto';
import * as path from 'node:path';
import { loadServiceDefinitions, ProtoPackage } from './grpc-clients';

const REPO_ROOT = path.resolve(__dirname, '..', '..', '..');
const USER_CLI = path.join(REPO_ROOT, 'dist', 'apps', 'server', 'src', 'cli', 'user.cli.js');

export interface HttpAnswer {
  status: number;
  headers: Headers;
  body: unknown;
  text: string;
}

/** A JSON request to the server; `body` given as a string is sent verbatim. */
export async function httpJson(
  baseUrl: string,
  method: string,
  route: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<HttpAnswer> {
  const response = await fetch(`${baseUrl}${route}`, {
    method,
    headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await response.text();
  let parsed: unknown = undefined;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    parsed = text;
  }
  return { status: response.status, headers: response.headers, body: parsed, text };
}

export interface TokenPairBody {
  access_token: string;
  refresh_token: string;
  token_type: string;
}

export interface LoginBody {
  tokens: TokenPairBody;
  user: Record<string, unknown>;
}

export async function login(baseUrl: string, email: string, password: string): Promise<LoginBody> {
  const answer = await httpJson(baseUrl, 'POST', '/api/auth/login', { email, password });
  if (answer.status !== 200) throw new Error(`login of ${email} failed: ${answer.status} ${answer.text}`);
  return answer.body as LoginBody;
}

export function refresh(baseUrl: string, refreshToken: string): Promise<HttpAnswer> {
  return httpJson(baseUrl, 'POST', '/api/auth/refresh', { refresh_token: refreshToken });
}

export function decodeJwtPart(token: string, index: 0 | 1): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split('.')[index], 'base64url').toString('utf8')) as Record<string, unknown>;
}

/** A hand-made JWT, so tests control every byte: header, claims, algorithm, signature. */
export function makeJwt(header: Record<string, unknown>, payload: Record<string, unknown>, secret?: string): string {
  const encode = (part: Record<string, unknown>): string => Buffer.from(JSON.stringify(part)).toString('base64url');
  const unsigned = `${encode(header)}.${encode(payload)}`;
  if (secret === undefined) return `${unsigned}.`;
  const hmac = header.alg === 'HS512' ? 'sha512' : header.alg === 'HS384' ? 'sha384' : 'sha256';
  return `${unsigned}.${createHmac(hmac, secret).update(unsigned).digest('base64url')}`;
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `npm run user -- <args>` (the built CLI) on `dataDir`, with `input` on stdin and `env` added. */
export function runUserCli(
  dataDir: string,
  args: string[],
  input = '',
  env: Record<string, string> = {},
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [USER_CLI, ...args], {
      env: { PATH: process.env.PATH, TZ: 'UTC', VECTORSTORE_DATA_DIR: dataDir, ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input);
  });
}

export interface RpcMethod {
  /** e.g. `qdrant.Collections` */
  service: string;
  /** e.g. `Create` */
  method: string;
  definition: grpc.ServiceDefinition;
}

/** Every RPC of the loaded definitions of `pkg`, health services included (filter as needed). */
export function enumerateRpcMethods(pkg: ProtoPackage): RpcMethod[] {
  const definitions = loadServiceDefinitions(pkg);
  const methods: RpcMethod[] = [];
  for (const [service, definition] of Object.entries(definitions)) {
    const entries = Object.entries(definition as Record<string, unknown>);
    const isService =
      entries.length > 0 &&
      entries.every(([, value]) => typeof value === 'object' && value !== null && 'path' in value);
    if (!isService) continue;
    for (const [method, value] of entries) {
      // proto-loader lists each method twice (Name and name); keep the one matching the path.
      if (!(value as { path: string }).path.endsWith(`/${method}`)) continue;
      methods.push({ service, method, definition: definition as grpc.ServiceDefinition });
    }
  }
  return methods;
}

export function isHealthService(service: string): boolean {
  return service === 'grpc.health.v1.Health' || service.endsWith('.Qdrant');
}

/** Calls `service/method` with an empty request and `metadata`; resolves to the status code (0 on success). */
export function callForStatus(
  address: string,
  rpc: RpcMethod,
  metadata: grpc.Metadata = new grpc.Metadata(),
): Promise<{ code: number; details: string }> {
  const Client = grpc.makeGenericClientConstructor(rpc.definition, rpc.service);
  const client = new Client(address, grpc.credentials.createInsecure());
  const fn = (client as unknown as Record<string, grpc.requestCallback<unknown> & ((...args: unknown[]) => void)>)[
    rpc.method
  ];
  return new Promise((resolve) => {
    fn.call(client, {}, metadata, { deadline: Date.now() + 10_000 }, (error: grpc.ServiceError | null) => {
      client.close();
      resolve(error ? { code: error.code, details: error.details } : { code: 0, details: '' });
    });
  });
}
