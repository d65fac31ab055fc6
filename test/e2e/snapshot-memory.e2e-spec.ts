import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import * as http from 'node:http';
import { Rng } from '../support/seeded-random';
import { RunningServer, startServer } from './support/server-harness';

jest.setTimeout(300_000);

const POINTS = 100_000;
const DIM = 128;
const MiB = 1024 * 1024;

function residentBytes(pid: number): number {
  const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return Number(kb) * 1024;
}

/** The server's RSS growth over its RSS at the start of `step`, sampled every 5 ms. */
async function growthDuring<T>(pid: number, step: () => Promise<T>): Promise<{ value: T; growth: number }> {
  const before = residentBytes(pid);
  let peak = before;
  const timer = setInterval(() => (peak = Math.max(peak, residentBytes(pid))), 5);
  try {
    const value = await step();
    peak = Math.max(peak, residentBytes(pid));
    return { value, growth: peak - before };
  } finally {
    clearInterval(timer);
  }
}

async function rest(server: RunningServer, method: string, route: string, body?: unknown): Promise<unknown> {
  const response = await fetch(`${server.httpUrl}${route}`, {
    method,
    headers: { 'api-key': server.apiKey, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  expect({ route, status: response.status }).toEqual({ route, status: 200 });
  return (JSON.parse(text) as { result: unknown }).result;
}

/** Reads a download slowly (a client on a slow link) and hashes it: the server must not buffer ahead. */
function slowDownload(server: RunningServer, route: string): Promise<{ bytes: number; sha256: string }> {
  return new Promise((resolve, reject) => {
    http
      .get(`${server.httpUrl}${route}`, { headers: { 'api-key': server.apiKey } }, (response) => {
        expect(response.statusCode).toBe(200);
        const hash = createHash('sha256');
        let bytes = 0;
        response.on('data', (chunk: Buffer) => {
          hash.update(chunk);
          bytes += chunk.length;
          // Pause a little every 4 MiB so that the socket fills and backpressure has to hold.
          if (bytes % (4 * MiB) < chunk.length) {
            response.pause();
            setTimeout(() => response.resume(), 20);
          }
        });
        response.on('end', () => resolve({ bytes, sha256: hash.digest('hex') }));
        response.on('error', reject);
      })
      .on('error', reject);
  });
}

describe('Snapshot memory (e2e)', () => {
  let server: RunningServer;

  beforeAll(async () => {
    server = await startServer();
  });

  afterAll(async () => {
    await server?.stop();
  });

  it('should write and stream a 100k-point snapshot without holding the archive in memory', async () => {
    await rest(server, 'PUT', '/collections/big', { vectors: { size: DIM, distance: 'Dot' } });
    const rng = new Rng(7);
    for (let from = 0; from < POINTS; from += 2000) {
      const points = Array.from({ length: 2000 }, (_, i) => ({
        id: from + i + 1,
        vector: rng.vector(DIM),
        payload: { n: from + i, text: `point ${from + i}` },
      }));
      await rest(server, 'PUT', '/collections/big/points?wait=true', { points });
    }
    // Let the optimizer finish first: its index builds take memory of their own.
    for (let waited = 0; ; waited += 200) {
      const info = (await rest(server, 'GET', '/collections/big')) as { status: string };
      if (info.status === 'green') break;
      if (waited > 240_000) throw new Error('the collection did not turn green');
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    // A first snapshot flushes what the upserts left in memory; the measured one copies settled files.

    const created = await growthDuring(server.pid, async () => {
      return (await rest(server, 'POST', '/collections/big/snapshots?wait=true')) as {
        name: string;
        size: number;
        checksum: string;
      };
    });
    const { name, size, checksum } = created.value;
    expect(size).toBeGreaterThan(50 * MiB);
    const downloaded = await growthDuring(server.pid, () => slowDownload(server, `/collections/big/snapshots/${name}`));
    expect(downloaded.value).toEqual({ bytes: size, sha256: checksum });

    // Holding the archive would take at least its size (> 50 MiB); streaming takes a few buffers.
    // The bounds leave room for GC and allocator noise, and stay well under the archive's size.
    expect(created.growth).toBeLessThan(32 * MiB);
    expect(downloaded.growth).toBeLessThan(24 * MiB);
  });
});
