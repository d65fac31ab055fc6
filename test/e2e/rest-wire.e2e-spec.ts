// The REST wire after the request path was made cheaper (issue 27): bodies read by every route shape a client may
// send them in, answers written as one buffer with Qdrant's headers, and the envelope on every route it belongs to.
import { connect } from 'node:net';
import { gzipSync } from 'node:zlib';
import { RunningServer, startServer } from './support/server-harness';

/**
 * One raw HTTP/1.1 exchange on its own connection (the request says `connection: close`): the status line and
 * headers, then the body text. `closeAfterMs`: the client closes its side that long after sending (a body cut short).
 */
function rawExchange(port: number, request: string, closeAfterMs?: number): Promise<{ head: string; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const at = text.indexOf('\r\n\r\n');
      resolve({ head: at < 0 ? text : text.slice(0, at), body: at < 0 ? '' : text.slice(at + 4) });
    });
    socket.write(request);
    if (closeAfterMs !== undefined) setTimeout(() => socket.end(), closeAfterMs);
  });
}

describe('REST wire (e2e)', () => {
  let server: RunningServer;
  const headers = () => ({ 'api-key': server.apiKey, 'content-type': 'application/json' });

  beforeAll(async () => {
    server = await startServer();
    const created = await fetch(`${server.httpUrl}/collections/w`, {
      method: 'PUT',
      headers: headers(),
      body: JSON.stringify({ vectors: { size: 2, distance: 'Dot' } }),
    });
    expect(created.status).toBe(200);
  });
  afterAll(async () => server?.stop());

  it('writes an enveloped answer as JSON with its length and no ETag', async () => {
    const answer = await fetch(`${server.httpUrl}/collections/w`, { headers: headers() });
    const text = await answer.text();
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('application/json');
    expect(Number(answer.headers.get('content-length'))).toBe(Buffer.byteLength(text));
    expect(answer.headers.get('etag')).toBeNull();
    expect(JSON.parse(text)).toMatchObject({ status: 'ok', result: { status: 'green' } });
  });

  it('reads a body sent with a length, chunked, or gzip-compressed alike', async () => {
    const upsert = (id: number) => JSON.stringify({ points: [{ id, vector: [1, id], payload: { n: id } }] });
    const plain = await fetch(`${server.httpUrl}/collections/w/points?wait=true`, {
      method: 'PUT',
      headers: headers(),
      body: upsert(1),
    });
    expect(plain.status).toBe(200);
    const chunked = await rawExchange(
      server.httpPort,
      `PUT /collections/w/points?wait=true HTTP/1.1\r\nHost: x\r\napi-key: ${server.apiKey}\r\ncontent-type: application/json\r\n` +
        `transfer-encoding: chunked\r\nconnection: close\r\n\r\n${Buffer.byteLength(upsert(2)).toString(16)}\r\n${upsert(2)}\r\n0\r\n\r\n`,
    );
    expect(chunked.head).toMatch(/^HTTP\/1\.1 200/);
    const zipped = gzipSync(upsert(3));
    const compressed = await fetch(`${server.httpUrl}/collections/w/points?wait=true`, {
      method: 'PUT',
      headers: { ...headers(), 'content-encoding': 'gzip' },
      body: zipped,
    });
    expect(compressed.status).toBe(200);
    const count = await fetch(`${server.httpUrl}/collections/w/points/count`, {
      method: 'POST',
      headers: headers(),
      body: JSON.stringify({ exact: true }),
    });
    expect(((await count.json()) as { result: { count: number } }).result.count).toBe(3);
  });

  it('refuses a body that ends before its declared length with 400, and keeps serving', async () => {
    const body = '{"points":[]}';
    const short = await rawExchange(
      server.httpPort,
      `PUT /collections/w/points HTTP/1.1\r\nHost: x\r\napi-key: ${server.apiKey}\r\ncontent-type: application/json\r\n` +
        `content-length: ${body.length + 10}\r\nconnection: close\r\n\r\n${body}`,
      200,
    );
    // The client closed its side early: the server answers 400 or closes; it must never answer 2xx or 5xx.
    expect(short.head).not.toMatch(/^HTTP\/1\.1 [25]/);
    const after = await fetch(`${server.httpUrl}/collections/w`, { headers: headers() });
    expect(after.status).toBe(200);
  });

  it('keeps /api/auth and the raw routes out of the envelope', async () => {
    const login = await fetch(`${server.httpUrl}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: server.adminEmail, password: server.adminPassword }),
    });
    expect(login.status).toBe(200);
    const tokens = (await login.json()) as Record<string, unknown>;
    expect(tokens).toHaveProperty('tokens.access_token');
    expect(tokens).not.toHaveProperty('result');
    const root = await fetch(`${server.httpUrl}/`, { headers: headers() });
    expect(await root.json()).toHaveProperty('title');
    const health = await fetch(`${server.httpUrl}/healthz`);
    expect(await health.text()).toMatch(/passed/);
  });
});
