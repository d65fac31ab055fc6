import * as grpc from '@grpc/grpc-js';
import { spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { createPointsClient, credentials, unary } from './support/grpc-clients';
import { pollUntil } from './support/points-helpers';
import { filesUnder } from './support/data-files';
import { RunningServer, SERVER_ENTRY, startServer } from './support/server-harness';
import { Rng } from '../support/seeded-random';

jest.setTimeout(300_000);

/** A stack frame, printed or inside a JSON log line. */
const STACK_TRACE = /(\n|\\n)\s+at /;

/**
 * Issue 28, item 3: corruption is detected at open and never served. Each case damages one durable file of a
 * stopped server (a flipped byte or a torn write), starts it again and checks what happens: a shard whose write-ahead
 * log still holds every operation is rebuilt from it and serves exactly what was written; one whose log no longer
 * reaches back refuses its collection's requests with a message naming the file, while the other collections
 * serve; a damaged catalog or users file is recovered from the copy kept beside it, and with both copies damaged
 * the server refuses to start with one line naming the file. No case serves a changed vector or prints a trace.
 */
describe('Corrupted files (e2e)', () => {
  /** Small, with the whole log kept: a damaged segment or manifest is rebuilt from the log. */
  const COVERED = 'covered';
  /** Optimized into segments keeping vectors and payloads in files, with a log that no longer starts at op 1. */
  const ON_DISK = 'on-disk';
  /** Untouched: serves throughout. */
  const BYSTANDER = 'bystander';
  const SMALL_DIM = 8;
  const DISK_DIM = 128;
  const DISK_POINTS = 5000;

  let server: RunningServer;

  const vectorOf = (collection: string, id: number, dim: number) =>
    new Rng(id * 7919 + collection.length).vector(dim).map((x) => Math.fround(x));

  /** A REST answer: `result`, or Qdrant's `status.error`. */
  interface Answer {
    result?: unknown;
    status?: { error?: string } | string;
  }

  async function rest(method: string, route: string, body?: unknown): Promise<{ status: number; json: Answer }> {
    const response = await fetch(`${server.httpUrl}${route}`, {
      method,
      headers: { 'api-key': server.apiKey, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, json: (text ? JSON.parse(text) : {}) as Answer };
  }

  async function ok<T = unknown>(method: string, route: string, body?: unknown): Promise<T> {
    const { status, json } = await rest(method, route, body);
    if (status !== 200) throw new Error(`${method} ${route}: ${status} ${JSON.stringify(json)}`);
    return json.result as T;
  }

  async function upsert(collection: string, ids: number[], dim: number): Promise<void> {
    await ok('PUT', `/collections/${collection}/points?wait=true`, {
      points: ids.map((id) => ({ id, vector: vectorOf(collection, id, dim), payload: { id, tag: `t${id % 7}` } })),
    });
  }

  /** Every point of `ids` comes back with exactly the vector and payload written (a float32 read back exactly). */
  async function expectExact(collection: string, ids: number[], dim: number): Promise<void> {
    const points = await ok<Array<{ id: number; vector: number[]; payload: { id: number } }>>(
      'POST',
      `/collections/${collection}/points`,
      {
        ids,
        with_vector: true,
        with_payload: true,
      },
    );
    expect(points).toHaveLength(ids.length);
    for (const point of points) {
      expect(point.payload.id).toBe(point.id);
      expect(point.vector.map((x) => Math.fround(x))).toEqual(vectorOf(collection, point.id, dim));
    }
  }

  /** Requests to `collection` are refused with a 500 whose message names `file`; nothing of it is served. */
  async function expectRefused(collection: string, file: RegExp): Promise<string> {
    const retrieve = await rest('POST', `/collections/${collection}/points`, { ids: [1, 2], with_vector: true });
    expect(retrieve.status).toBe(500);
    const message = String((retrieve.json.status as { error?: string }).error);
    expect(message).toMatch(file);
    expect(message).toMatch(/is damaged/);
    expect(message).not.toMatch(STACK_TRACE);
    const query = await rest('POST', `/collections/${collection}/points/query`, {
      query: vectorOf(ON_DISK, 1, DISK_DIM),
    });
    expect(query.status).toBe(500);
    expect(query.json.result).toBeUndefined();
    return message;
  }

  const collectionDir = async (name: string) => {
    const catalog = JSON.parse(await fs.readFile(path.join(server.dataDir, 'catalog.json'), 'utf8')) as {
      collections: Array<{ id: string; name: string }>;
    };
    return path.join(server.dataDir, 'collections', catalog.collections.find((c) => c.name === name)!.id);
  };
  const shardDir = async (name: string) => path.join(await collectionDir(name), 'shards', '0');

  /** Flips every bit of the byte at `at` (from the end when negative); returns an undo. */
  async function flipByte(file: string, at: number): Promise<() => Promise<void>> {
    const bytes = await fs.readFile(file);
    const original = Buffer.from(bytes);
    const index = at < 0 ? bytes.length + at : at;
    bytes[index] ^= 0xff;
    await fs.writeFile(file, bytes);
    return () => fs.writeFile(file, original);
  }

  /** Cuts the file to `keep` of its length (a torn write); returns an undo. */
  async function truncate(file: string, keep: number): Promise<() => Promise<void>> {
    const original = await fs.readFile(file);
    await fs.truncate(file, Math.floor(original.length * keep));
    return () => fs.writeFile(file, original);
  }

  /** The largest file of the on-disk collection's shard whose name matches. */
  async function onDiskFile(pattern: RegExp): Promise<string> {
    const found = (await filesUnder(path.join(await shardDir(ON_DISK), 'segments'))).filter((f) =>
      pattern.test(path.basename(f)),
    );
    expect(found.length).toBeGreaterThan(0);
    const sizes = await Promise.all(found.map(async (f) => (await fs.stat(f)).size));
    return found[sizes.indexOf(Math.max(...sizes))];
  }

  const restart = async () => {
    server = await server.restart();
  };

  const smallIds = Array.from({ length: 60 }, (_, i) => i + 1);
  const diskIds = Array.from({ length: DISK_POINTS }, (_, i) => i + 1);
  const deletedIds = [3, 5, 8];
  const liveDiskIds = diskIds.filter((id) => !deletedIds.includes(id));
  const sampleDiskIds = liveDiskIds.filter((id) => id % 97 === 1);

  beforeAll(async () => {
    server = await startServer();
    await ok('PUT', `/collections/${COVERED}`, { vectors: { size: SMALL_DIM, distance: 'Euclid' } });
    await ok('PUT', `/collections/${BYSTANDER}`, { vectors: { size: SMALL_DIM, distance: 'Euclid' } });
    await ok('PUT', `/collections/${ON_DISK}`, {
      vectors: { size: DISK_DIM, distance: 'Euclid', on_disk: true },
      on_disk_payload: true,
      optimizers_config: { indexing_threshold: 100, default_segment_number: 2, flush_interval_sec: 1 },
      wal_config: { wal_capacity_mb: 1, wal_segments_ahead: 0 },
    });
    await upsert(COVERED, smallIds, SMALL_DIM);
    await upsert(BYSTANDER, smallIds, SMALL_DIM);
    for (let i = 0; i < diskIds.length; i += 100) await upsert(ON_DISK, diskIds.slice(i, i + 100), DISK_DIM);
    // Optimized into immutable segments with .vec and .pay files, then deletes on them (a .del file).
    await pollUntil(async () => {
      const info = await ok<{ status: string; indexed_vectors_count: number }>('GET', `/collections/${ON_DISK}`);
      return info.status === 'green' && info.indexed_vectors_count >= DISK_POINTS - 200 ? info : undefined;
    }, 120_000);
    await ok('POST', `/collections/${ON_DISK}/points/delete?wait=true`, { points: deletedIds });
    await server.stop();
    server = await server.restart();
    await server.stop();
  });

  afterAll(async () => {
    await server?.stop();
  });

  it('should start from files laid out as the cases need (on-disk segment files, a log past op 1)', async () => {
    const segments = (await filesUnder(path.join(await shardDir(ON_DISK), 'segments'))).map((f) => path.basename(f));
    expect(segments.some((name) => name.endsWith('.vec'))).toBe(true);
    expect(segments.some((name) => name.endsWith('.pay'))).toBe(true);
    expect(segments.some((name) => name.endsWith('.del'))).toBe(true);
    const wal = (await fs.readdir(path.join(await shardDir(ON_DISK), 'wal'))).filter((n) => /^\d+\.wal$/.test(n));
    expect(Math.min(...wal.map((n) => Number(n.slice(0, -4))))).toBeGreaterThan(1);
    const manifest = JSON.parse(await fs.readFile(path.join(await shardDir(ON_DISK), 'manifest.json'), 'utf8'));
    expect(manifest.checksum).toMatch(/^crc32:[0-9a-f]{8}$/);
    for (const segment of manifest.segments) expect(segment.files.length).toBeGreaterThan(0);
    await restart();
    await expectExact(ON_DISK, sampleDiskIds, DISK_DIM);
    await expectExact(COVERED, smallIds, SMALL_DIM);
    await server.stop();
  });

  const unrecoverable: Array<[string, RegExp, () => Promise<() => Promise<void>>]> = [
    [
      'a flipped byte in a vector file',
      /\.vec is damaged: checksum mismatch/,
      async () => flipByte(await onDiskFile(/\.vec$/), 4096),
    ],
    [
      'a torn vector file',
      /\.vec is damaged: .* bytes where .* were written \(truncated\)/,
      async () => truncate(await onDiskFile(/\.vec$/), 0.5),
    ],
    [
      'a flipped byte in a payload file',
      /\.pay is damaged: checksum mismatch/,
      async () => flipByte(await onDiskFile(/\.pay$/), 10),
    ],
    [
      'a flipped byte in a segment body',
      /\.seg is damaged: checksum mismatch/,
      async () => flipByte(await onDiskFile(/\.seg$/), -100),
    ],
    ['a torn delete file', /\.del is damaged: .*truncated/, async () => truncate(await onDiskFile(/\.del$/), 0.5)],
    [
      'a flipped digit in manifest.json',
      /manifest\.json is damaged: checksum mismatch/,
      async () => {
        const file = path.join(await shardDir(ON_DISK), 'manifest.json');
        const text = await fs.readFile(file, 'utf8');
        const at = text.indexOf('"persistedOpNum"') + '"persistedOpNum": '.length;
        return flipDigit(file, at);
      },
    ],
    [
      'a torn manifest.json',
      /manifest\.json is damaged: not valid JSON/,
      async () => truncate(path.join(await shardDir(ON_DISK), 'manifest.json'), 0.6),
    ],
    [
      'a segment file gone',
      /\.vec is damaged: the file is missing/,
      async () => {
        const file = await onDiskFile(/\.vec$/);
        const original = await fs.readFile(file);
        await fs.rm(file);
        return () => fs.writeFile(file, original);
      },
    ],
  ];

  it.each(unrecoverable)(
    'should refuse the collection, naming the file, after %s its log cannot rebuild, and serve the others',
    async (_case, named, damage) => {
      const undo = await damage();
      try {
        await restart();
        const message = await expectRefused(ON_DISK, named);
        expect(message).toMatch(/cannot be rebuilt from its write-ahead log/);
        expect(message).toContain(await shardDir(ON_DISK));
        // gRPC says the same, as INTERNAL.
        const points = createPointsClient(server.grpcAddress, credentials(server.apiKey));
        try {
          await expect(
            unary(points, 'Get', { collectionName: ON_DISK, ids: [{ num: '1' }], withVectors: { enable: true } }),
          ).rejects.toMatchObject({ code: grpc.status.INTERNAL, details: expect.stringMatching(named) });
        } finally {
          points.close();
        }
        await expectExact(BYSTANDER, smallIds, SMALL_DIM);
        await expectExact(COVERED, smallIds, SMALL_DIM);
        expect(server.output()).not.toMatch(STACK_TRACE);
        await server.stop();
      } finally {
        await server.stop();
        await undo();
      }
      // Put back, the files open again and hold exactly what was written: detection is not a false alarm.
      await restart();
      await expectExact(ON_DISK, sampleDiskIds, DISK_DIM);
      await server.stop();
    },
  );

  it.each([
    ['a flipped byte in its segment body', async () => flipByte(await coveredFile(/\.seg$/), -50)],
    ['a torn segment body', async () => truncate(await coveredFile(/\.seg$/), 0.3)],
    ['a flipped byte in its manifest', async () => flipDigit(path.join(await shardDir(COVERED), 'manifest.json'), -1)],
  ])('should rebuild a shard whose log holds every operation after %s, and serve it exactly', async (_case, damage) => {
    await damage();
    await restart();
    await expectExact(COVERED, smallIds, SMALL_DIM);
    expect(server.output()).toMatch(/is damaged: .*; the shard was rebuilt from its write-ahead log/);
    // The rebuilt shard was flushed at once: the next start finds intact files.
    expect(server.output()).not.toMatch(STACK_TRACE);
    await server.stop();
    await restart();
    await expectExact(COVERED, smallIds, SMALL_DIM);
    expect(server.output()).not.toContain(`${await shardDir(COVERED)}`);
    await server.stop();
  });

  async function coveredFile(pattern: RegExp): Promise<string> {
    const found = (await filesUnder(path.join(await shardDir(COVERED), 'segments'))).filter((f) =>
      pattern.test(path.basename(f)),
    );
    expect(found).toHaveLength(1);
    return found[0];
  }

  /** Changes the first digit at or after `at` (from the end when negative, searching backwards) to another digit. */
  async function flipDigit(file: string, at: number): Promise<() => Promise<void>> {
    const bytes = await fs.readFile(file);
    const original = Buffer.from(bytes);
    const isDigit = (i: number) => bytes[i] >= 0x30 && bytes[i] <= 0x39;
    let index = at < 0 ? bytes.length + at : at;
    while (!isDigit(index)) index += at < 0 ? -1 : 1;
    bytes[index] = bytes[index] === 0x39 ? 0x38 : bytes[index] + 1;
    await fs.writeFile(file, bytes);
    return () => fs.writeFile(file, original);
  }

  it('should recover a damaged catalog.json from its copy and serve every collection', async () => {
    await flipDigit(path.join(server.dataDir, 'catalog.json'), 200);
    await restart();
    expect(server.output()).toMatch(
      /catalog\.json is damaged: checksum mismatch.*recovered from .*catalog\.copy\.json/,
    );
    await expectExact(COVERED, smallIds, SMALL_DIM);
    await expectExact(BYSTANDER, smallIds, SMALL_DIM);
    await expectExact(ON_DISK, sampleDiskIds, DISK_DIM);
    await server.stop();
  });

  it('should refuse to start with one line naming catalog.json when it and its copy are damaged', async () => {
    const catalog = path.join(server.dataDir, 'catalog.json');
    const undoCatalog = await truncate(catalog, 0.5);
    const undoCopy = await flipDigit(path.join(server.dataDir, 'catalog.copy.json'), 200);
    let run: { code: number | null; stderr: string };
    try {
      run = await runToExit(server.env);
    } finally {
      await undoCatalog();
      await undoCopy();
    }
    const { code, stderr } = run;
    expect(code).toBe(1);
    const lines = stderr.split('\n').filter((line) => line.trim() !== '');
    const naming = lines.filter((line) => line.includes(catalog));
    expect({ naming, stderr }).toEqual({ naming: [expect.any(String)], stderr });
    expect(naming[0]).toMatch(
      /^vectorstore failed to start: .*catalog\.json is damaged: not valid JSON.*copy\.json is damaged too/,
    );
    expect(stderr).not.toMatch(STACK_TRACE);
    // Nothing was removed meanwhile: put back, every collection is there.
    await restart();
    await expectExact(ON_DISK, sampleDiskIds, DISK_DIM);
    await expectExact(COVERED, smallIds, SMALL_DIM);
    await server.stop();
  });

  it('should recover a damaged users.json from its copy: the admin still signs in', async () => {
    const users = path.join(server.dataDir, 'auth', 'users.json');
    const text = await fs.readFile(users, 'utf8');
    expect(JSON.parse(text).checksum).toMatch(/^crc32:/);
    await fs.writeFile(users, text.replace('"admin"', '"reader"').replace(/"tokenVersion": \d+/, '"tokenVersion": 7'));
    await restart();
    const login = await fetch(`${server.httpUrl}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: server.adminEmail, password: server.adminPassword }),
    });
    expect(login.status).toBe(200);
    const body = (await login.json()) as { user: { role: string } };
    expect(body.user.role).toBe('admin');
    expect(server.output()).toMatch(/users\.json is damaged: checksum mismatch.*read from .*users\.copy\.json/);
  });
});

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
