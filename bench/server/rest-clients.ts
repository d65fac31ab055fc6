// The REST search clients the server benches compare with the gRPC ones (clients.ts), behind the same
// SearchClient interface: a lean client on node:http with a keep-alive agent (one connection per client, as each
// gRPC client has its own channel), and Qdrant's official @qdrant/js-client-rest (undici fetch, as users run it).
// Both send `POST /collections/bench/points/query` with the request gRPC's Query carries: the vector as a nearest
// query, limit, hnsw_ef, and the `tag = t0` filter when filtered.
import { QdrantClient } from '@qdrant/js-client-rest';
import * as http from 'node:http';
import { SearchClient, SearchOptions, TAG_FIELD, TAG_MATCH } from './clients';

const FILTER = { must: [{ key: TAG_FIELD, match: { value: TAG_MATCH } }] };

/** A REST answer that was not 2xx: the bench stops, the server's words in the message. */
export class RestCallError extends Error {}

/**
 * Plain HTTP/1.1 calls over one kept-alive connection per instance (node:http Agent, maxSockets 1): JSON bodies
 * with the api key, answers as text. Nothing else on the way: no retries, no compression, no body checks.
 */
export class LeanRestCaller {
  private readonly agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  private readonly host: string;
  private readonly port: number;

  constructor(
    httpUrl: string,
    private readonly apiKey: string,
  ) {
    const url = new URL(httpUrl);
    this.host = url.hostname;
    this.port = Number(url.port);
  }

  /** Resolves to the answer's text; rejects with a RestCallError on a status outside 2xx. */
  call(method: string, path: string, body?: unknown): Promise<string> {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const headers: http.OutgoingHttpHeaders = { 'api-key': this.apiKey };
    if (payload !== undefined) {
      headers['content-type'] = 'application/json';
      headers['content-length'] = Buffer.byteLength(payload);
    }
    return new Promise((resolve, reject) => {
      const request = http.request(
        { host: this.host, port: this.port, method, path, agent: this.agent, headers },
        (response) => {
          let text = '';
          response.setEncoding('utf8');
          response.on('data', (chunk: string) => (text += chunk));
          response.on('end', () => {
            const status = response.statusCode ?? 0;
            if (status >= 200 && status < 300) resolve(text);
            else reject(new RestCallError(`${method} ${path} -> ${status} ${text.slice(0, 300)}`));
          });
          response.on('error', reject);
        },
      );
      request.on('error', reject);
      request.end(payload);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}

/** The answer of `…/points/query`, as far as the bench reads it. */
interface QueryAnswer {
  result: { points: { id: number | string }[] };
}

/** The lean REST client: node:http keep-alive, JSON.stringify and JSON.parse, nothing more. */
export function leanRestClient(httpUrl: string, apiKey: string, options: SearchOptions): SearchClient {
  const caller = new LeanRestCaller(httpUrl, apiKey);
  const params = { hnsw_ef: options.ef };
  return {
    async search(vector, filtered) {
      const text = await caller.call('POST', '/collections/bench/points/query', {
        query: vector,
        limit: options.limit,
        params,
        filter: filtered ? FILTER : undefined,
      });
      return (JSON.parse(text) as QueryAnswer).result.points.map((p) => Number(p.id));
    },
    close: () => caller.close(),
  };
}

/** The official REST client; each instance has its own undici Agent, so its own connection(s). */
export function officialRestClient(httpUrl: string, apiKey: string, options: SearchOptions): SearchClient {
  const url = new URL(httpUrl);
  // The key as a header (as clients.ts does for gRPC): the same bytes, without the client's warning about a
  // key over plain HTTP, and without its switch to https when a key is given.
  const client = new QdrantClient({
    host: url.hostname,
    port: Number(url.port),
    https: false,
    headers: { 'api-key': apiKey },
    checkCompatibility: false,
  });
  const params = { hnsw_ef: options.ef };
  return {
    async search(vector, filtered) {
      const answer = await client.query('bench', {
        query: vector,
        limit: options.limit,
        params,
        filter: filtered ? FILTER : undefined,
      });
      return answer.points.map((p) => Number(p.id));
    },
    // the client keeps its undici Agent to itself; its idle connections close with the server's keep-alive timeout
    close: () => undefined,
  };
}
