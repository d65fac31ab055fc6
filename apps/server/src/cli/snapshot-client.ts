import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream, promises as fs } from 'node:fs';
import * as http from 'node:http';
import * as https from 'node:https';
import * as path from 'node:path';
import { pipeline } from 'node:stream/promises';

/** Told how many bytes moved so far, of how many (when known). */
export type ProgressListener = (done: number, total: number | undefined) => void;

/** The server answered with an error (its REST envelope's message), or could not be reached. */
export class SnapshotClientError extends Error {}

/** A REST client for the snapshot routes of a running server: what the snapshot CLI sends. */
export class SnapshotClient {
  constructor(
    private readonly baseUrl: URL,
    private readonly apiKey: string | undefined,
  ) {}

  /** JSON call; resolves to the envelope's `result`. */
  async call<T>(method: string, route: string, json?: unknown): Promise<T> {
    const response = await this.request(method, route, json);
    const text = await readText(response);
    let body: { result?: T; status?: unknown };
    try {
      body = JSON.parse(text) as { result?: T; status?: unknown };
    } catch {
      throw new SnapshotClientError(`${method} ${route}: HTTP ${response.statusCode}: ${text.slice(0, 200)}`);
    }
    if (response.statusCode !== 200) throw new SnapshotClientError(errorOf(method, route, response, body));
    return body.result as T;
  }

  /** Streams a snapshot into `file` (written as `file.part`, renamed when complete). */
  async download(route: string, file: string, progress: ProgressListener): Promise<number> {
    const response = await this.request('GET', route);
    if (response.statusCode !== 200) {
      const text = await readText(response);
      throw new SnapshotClientError(errorOf('GET', route, response, parseOrText(text)));
    }
    const total = Number(response.headers['content-length']) || undefined;
    let done = 0;
    response.on('data', (chunk: Buffer) => {
      done += chunk.length;
      progress(done, total);
    });
    const partial = `${file}.part`;
    try {
      await pipeline(response, createWriteStream(partial, { flags: 'wx', mode: 0o600 }));
      if (total !== undefined && done !== total) {
        throw new SnapshotClientError(`download cut short: ${done} of ${total} bytes`);
      }
      await fs.rename(partial, file);
    } catch (error) {
      await fs.rm(partial, { force: true });
      throw error;
    }
    return done;
  }

  /** Uploads `file` as the multipart field `snapshot`, streamed; resolves to the envelope's `result`. */
  async upload<T>(route: string, file: string, progress: ProgressListener): Promise<T> {
    const size = (await fs.stat(file)).size;
    const boundary = `vectorstore-${randomBytes(12).toString('hex')}`;
    const head = Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="snapshot"; filename="${path
        .basename(file)
        .replace(/["\r\n]/g, '_')}"\r\nContent-Type: application/octet-stream\r\n\r\n`,
    );
    const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
    const response = await new Promise<http.IncomingMessage>((resolve, reject) => {
      const request = this.send('POST', route, {
        'content-type': `multipart/form-data; boundary=${boundary}`,
        'content-length': String(head.length + size + tail.length),
      });
      request.on('response', resolve);
      request.on('error', (error) => reject(this.unreachable(error)));
      request.write(head);
      let done = 0;
      const source = createReadStream(file);
      source.on('data', (chunk) => {
        done += chunk.length;
        progress(done, size);
      });
      source.on('error', reject);
      source.on('end', () => request.end(tail));
      source.pipe(request, { end: false });
    });
    const text = await readText(response);
    const body = parseOrText(text);
    if (response.statusCode !== 200) throw new SnapshotClientError(errorOf('POST', route, response, body));
    return (body as { result?: T }).result as T;
  }

  private request(method: string, route: string, json?: unknown): Promise<http.IncomingMessage> {
    return new Promise((resolve, reject) => {
      const body = json === undefined ? undefined : JSON.stringify(json);
      const request = this.send(method, route, body === undefined ? {} : { 'content-type': 'application/json' });
      request.on('response', resolve);
      request.on('error', (error) => reject(this.unreachable(error)));
      request.end(body);
    });
  }

  private send(method: string, route: string, headers: http.OutgoingHttpHeaders): http.ClientRequest {
    const url = new URL(route.replace(/^\//, ''), this.baseUrl.href.endsWith('/') ? this.baseUrl : `${this.baseUrl}/`);
    const transport = url.protocol === 'https:' ? https : http;
    return transport.request(url, {
      method,
      headers: { ...headers, ...(this.apiKey ? { 'api-key': this.apiKey } : {}) },
    });
  }

  private unreachable(error: Error): SnapshotClientError {
    return new SnapshotClientError(`cannot reach the server at ${this.baseUrl.href}: ${error.message}`);
  }
}

function readText(response: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    response.on('data', (chunk: Buffer) => chunks.push(chunk));
    response.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    response.on('error', reject);
  });
}

function parseOrText(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function errorOf(method: string, route: string, response: http.IncomingMessage, body: unknown): string {
  const message =
    typeof body === 'object' && body !== null
      ? ((body as { status?: { error?: string } }).status?.error ?? JSON.stringify(body))
      : String(body).slice(0, 200);
  return `${method} ${route}: HTTP ${response.statusCode}: ${message}`;
}
