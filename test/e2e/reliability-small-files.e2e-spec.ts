import { spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { httpJson, login, refresh } from './support/auth-helpers';
import { RunningServer, SERVER_ENTRY, startServer } from './support/server-harness';

jest.setTimeout(180_000);

/** A stack frame, printed or inside a JSON log line. */
const STACK_TRACE = /(\n|\\n)\s+at /;

/**
 * Issue 28, items 1 and 3, for the small files (docs/reliability.md, "Small files"): the JWT secret, the refresh
 * sessions and node.json carry checksums, and a damaged one is handled as a user would expect on the real server: a
 * damaged secret or sessions file costs a sign-in (the server starts and says why on one line), a damaged node.json
 * stops the start with one line naming it, and the server starts again once it is put back.
 */
describe('Damaged small files (e2e)', () => {
  let server: RunningServer;
  let authDir: string;

  beforeAll(async () => {
    server = await startServer();
    authDir = path.join(server.dataDir, 'auth');
  });

  afterAll(async () => {
    await server.stop();
    await fs.rm(server.dataDir, { recursive: true, force: true });
  });

  const me = (accessToken: string) =>
    httpJson(server.httpUrl, 'GET', '/api/auth/me', undefined, { authorization: `Bearer ${accessToken}` });

  it('should write the secret, the sessions and node.json with checksums', async () => {
    await login(server.httpUrl, server.adminEmail, server.adminPassword);
    expect(await fs.readFile(path.join(authDir, 'jwt-secret'), 'utf8')).toMatch(/^crc32:[0-9a-f]{8}\n[\w-]{64,}\n$/);
    for (const file of [path.join(authDir, 'refresh-tokens.json'), path.join(server.dataDir, 'node.json')])
      expect(JSON.parse(await fs.readFile(file, 'utf8')).checksum).toMatch(/^crc32:[0-9a-f]{8}$/);
  });

  it('should start with a new secret after a flipped byte in jwt-secret, warning on one line; sessions go on', async () => {
    const session = await login(server.httpUrl, server.adminEmail, server.adminPassword);
    await server.stop();
    const secretFile = path.join(authDir, 'jwt-secret');
    const text = await fs.readFile(secretFile, 'utf8');
    await fs.writeFile(secretFile, flipAt(text, 30));
    server = await server.restart();

    expect(server.output()).toMatch(/jwt-secret is damaged: checksum mismatch .*a new secret was made/);
    expect(server.output()).not.toMatch(STACK_TRACE);
    expect(await fs.readFile(`${secretFile}.damaged`, 'utf8')).toBe(flipAt(text, 30));
    // the access token signed with the old secret is refused; its refresh token still gets a new pair
    expect((await me(session.tokens.access_token)).status).toBe(401);
    const renewed = await refresh(server.httpUrl, session.tokens.refresh_token);
    expect(renewed.status).toBe(200);
    expect((await me((renewed.body as { access_token: string }).access_token)).status).toBe(200);
  });

  it('should start without the sessions after a torn refresh-tokens.json, warning on one line', async () => {
    const session = await login(server.httpUrl, server.adminEmail, server.adminPassword);
    await server.stop();
    const sessionsFile = path.join(authDir, 'refresh-tokens.json');
    const text = await fs.readFile(sessionsFile, 'utf8');
    await fs.writeFile(sessionsFile, text.slice(0, text.length >> 1));
    server = await server.restart();

    expect(server.output()).toMatch(/refresh-tokens\.json is damaged: not valid JSON.*everyone signs in again/);
    expect(server.output()).not.toMatch(STACK_TRACE);
    expect((await refresh(server.httpUrl, session.tokens.refresh_token)).status).toBe(401);
    await login(server.httpUrl, server.adminEmail, server.adminPassword);
  });

  it('should refuse to start with one line naming node.json when a byte of it is flipped, and start once it is back', async () => {
    await server.stop();
    const nodeFile = path.join(server.dataDir, 'node.json');
    const text = await fs.readFile(nodeFile, 'utf8');
    // the last digit of the peer id, so the JSON still parses and only the checksum can tell
    const at = text.indexOf(',');
    await fs.writeFile(nodeFile, flipAt(text, at - 1));
    let run: { code: number | null; stderr: string };
    try {
      run = await runToExit(server.env);
    } finally {
      await fs.writeFile(nodeFile, text);
    }
    const { code, stderr } = run;
    expect(code).toBe(1);
    const naming = stderr.split('\n').filter((line) => line.includes(nodeFile));
    expect({ naming, stderr }).toEqual({ naming: [expect.any(String)], stderr });
    // Nest reports an error made while making its providers itself, on one line (DamagedFileError is inspected as one)
    expect(naming[0]).toMatch(/node\.json is damaged: checksum mismatch.*backup/);
    expect(stderr).not.toMatch(STACK_TRACE);

    server = await server.restart();
    expect((await httpJson(server.httpUrl, 'GET', '/readyz')).status).toBe(200);
  });
});

/** `text` with the character at `at` changed by one bit. */
function flipAt(text: string, at: number): string {
  return text.slice(0, at) + String.fromCharCode(text.charCodeAt(at) ^ 1) + text.slice(at + 1);
}

/** Runs the server on `env` until it exits by itself (within 30 s); its exit code and standard error. */
function runToExit(env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [SERVER_ENTRY], {
      env: { PATH: process.env.PATH, TZ: 'UTC', NODE_ENV: 'test', ...env },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the server did not exit within 30 s:\n${stderr}`));
    }, 30_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr });
    });
  });
}
