import { ErrorKind } from '@vectorstore/common';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { downloadSnapshot, resolveSnapshotLocation, type DownloadSnapshotOptions } from './snapshot-location';
import {
  domainErrorOf,
  listTree,
  makeTempDir,
  pseudoRandomBytes,
  removeTempDir,
  sha256,
} from './testing/snapshot-fixtures';

describe('resolveSnapshotLocation', () => {
  let sandbox: string;
  let allowed: string;
  let outside: string;

  beforeEach(() => {
    sandbox = makeTempDir('vs-snap-location-');
    allowed = path.join(sandbox, 'snapshots');
    outside = path.join(sandbox, 'elsewhere');
    fs.mkdirSync(path.join(allowed, 'c'), { recursive: true });
    fs.mkdirSync(outside);
    fs.writeFileSync(path.join(allowed, 'c', 'in.snapshot'), 'in');
    fs.writeFileSync(path.join(outside, 'out.snapshot'), 'out');
  });

  afterEach(() => removeTempDir(sandbox));

  const forbidden = () =>
    `Forbidden: Snapshot file path must be inside the snapshots directory "${fs.realpathSync(allowed)}"`;

  it('should accept a file inside the allowed folder, as its real path', async () => {
    const location = await resolveSnapshotLocation(pathToFileURL(path.join(allowed, 'c', 'in.snapshot')).href, allowed);

    expect(location).toEqual({ kind: 'file', path: fs.realpathSync(path.join(allowed, 'c', 'in.snapshot')) });
  });

  it('should accept file://localhost/', async () => {
    const location = await resolveSnapshotLocation(
      `file://localhost${path.join(allowed, 'c', 'in.snapshot')}`,
      allowed,
    );

    expect(location.kind).toBe('file');
  });

  it('should refuse a file outside the allowed folder', async () => {
    const error = await domainErrorOf(
      resolveSnapshotLocation(pathToFileURL(path.join(outside, 'out.snapshot')).href, allowed),
    );

    expect(error.kind).toBe(ErrorKind.PermissionDenied);
    expect(error.message).toBe(forbidden());
  });

  it('should refuse a file reached with .. out of the allowed folder', async () => {
    const error = await domainErrorOf(
      resolveSnapshotLocation(`file://${allowed}/c/../../elsewhere/out.snapshot`, allowed),
    );

    expect(error.message).toBe(forbidden());
  });

  it('should refuse a symbolic link inside the allowed folder that leads out of it', async () => {
    fs.symlinkSync(path.join(outside, 'out.snapshot'), path.join(allowed, 'c', 'link.snapshot'));
    fs.symlinkSync(outside, path.join(allowed, 'dirlink'));

    for (const file of ['c/link.snapshot', 'dirlink/out.snapshot']) {
      const error = await domainErrorOf(resolveSnapshotLocation(pathToFileURL(path.join(allowed, file)).href, allowed));
      expect(error.message).toBe(forbidden());
    }
  });

  it('should refuse a prefix sibling of the allowed folder', async () => {
    const sibling = `${allowed}-2`;
    fs.mkdirSync(sibling);
    fs.writeFileSync(path.join(sibling, 'x.snapshot'), 'x');

    const error = await domainErrorOf(
      resolveSnapshotLocation(pathToFileURL(path.join(sibling, 'x.snapshot')).href, allowed),
    );

    expect(error.message).toBe(forbidden());
  });

  it('should say when the file does not exist, or is not a file', async () => {
    const missing = path.join(allowed, 'missing.snapshot');

    const error = await domainErrorOf(resolveSnapshotLocation(pathToFileURL(missing).href, allowed));
    expect(error.kind).toBe(ErrorKind.InvalidArgument);
    expect(error.message).toBe(`Bad request: Snapshot file "${missing}" does not exist`);

    const folder = await domainErrorOf(resolveSnapshotLocation(pathToFileURL(path.join(allowed, 'c')).href, allowed));
    expect(folder.message).toBe(`Bad request: Snapshot file "${path.join(allowed, 'c')}" is not a regular file`);
  });

  it('should refuse a file URL on another host', async () => {
    const error = await domainErrorOf(resolveSnapshotLocation('file://example.com/x.snapshot', allowed));

    expect(error.message).toBe('Bad request: Invalid snapshot URI, file path must be absolute or on localhost');
  });

  it.each([
    ['ftp://example.com/x.snapshot', 'ftp'],
    ['s3://bucket/x.snapshot', 's3'],
    ['data:application/octet-stream;base64,AAAA', 'data'],
    ['javascript:alert(1)', 'javascript'],
  ])("should refuse %s with Qdrant's message", async (location, scheme) => {
    const error = await domainErrorOf(resolveSnapshotLocation(location, allowed));

    expect(error.kind).toBe(ErrorKind.InvalidArgument);
    expect(error.message).toBe(`Bad request: URL ${new URL(location).href} with scheme ${scheme} is not supported`);
  });

  it('should not show a password in a message', async () => {
    const error = await domainErrorOf(resolveSnapshotLocation('ftp://user:secret@example.com/x.snapshot', allowed));

    expect(error.message).toBe('Bad request: URL ftp://user@example.com/x.snapshot with scheme ftp is not supported');
  });

  it('should refuse something that is not a URL', async () => {
    const error = await domainErrorOf(resolveSnapshotLocation('/abs/path.snapshot', allowed));

    expect(error.message).toBe(
      'Bad request: snapshot location "/abs/path.snapshot" is not a URL (expected file:///<path> or http(s)://…)',
    );
  });

  it('should accept http and https URLs without fetching them', async () => {
    for (const location of ['http://127.0.0.1:1/x.snapshot', 'https://example.com/a/b.snapshot?x=1']) {
      await expect(resolveSnapshotLocation(location, allowed)).resolves.toEqual({
        kind: 'url',
        url: new URL(location),
      });
    }
  });
});

describe('downloadSnapshot', () => {
  const body = pseudoRandomBytes(300_000, 11);
  let server: http.Server;
  let base: string;
  let dir: string;
  let seenApiKey: string | undefined;

  beforeAll(async () => {
    server = http.createServer((request, response) => {
      seenApiKey = request.headers['api-key'] as string | undefined;
      switch (request.url) {
        case '/ok.snapshot':
          response.writeHead(200, { 'content-length': body.length });
          response.end(body);
          return;
        case '/chunked.snapshot':
          // no content-length: the limit must be enforced while streaming
          response.writeHead(200);
          response.write(body.subarray(0, 100_000));
          setTimeout(() => response.end(body.subarray(100_000)), 10);
          return;
        case '/redirect':
          response.writeHead(302, { location: '/ok.snapshot' });
          response.end();
          return;
        case '/slow.snapshot':
          response.writeHead(200);
          response.write(body.subarray(0, 1000)); // then never finishes
          return;
        default:
          response.writeHead(404, { 'content-type': 'text/plain' });
          response.end('no such snapshot');
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  beforeEach(() => {
    dir = makeTempDir('vs-snap-download-');
    seenApiKey = undefined;
  });

  afterEach(() => removeTempDir(dir));

  const options = (overrides: Partial<DownloadSnapshotOptions> = {}): DownloadSnapshotOptions => ({
    targetDir: path.join(dir, 'tmp'),
    maxBytes: 1 << 20,
    timeoutMs: 5_000,
    ...overrides,
  });

  it('should stream the body into a work file and hash it', async () => {
    const downloaded = await downloadSnapshot(new URL(`${base}/ok.snapshot`), options({ apiKey: 'secret-key' }));

    expect(path.dirname(downloaded.path)).toBe(path.join(dir, 'tmp'));
    expect(path.basename(downloaded.path)).toMatch(/^download-[0-9a-f]{16}\.part$/);
    expect(downloaded.size).toBe(body.length);
    expect(downloaded.sha256).toBe(sha256(body));
    expect(fs.readFileSync(downloaded.path).equals(body)).toBe(true);
    expect(seenApiKey).toBe('secret-key');
  });

  it('should follow a redirect', async () => {
    const downloaded = await downloadSnapshot(new URL(`${base}/redirect`), options());

    expect(downloaded.sha256).toBe(sha256(body));
  });

  it('should refuse a body whose Content-Length is over the limit, before reading it', async () => {
    const error = await domainErrorOf(downloadSnapshot(new URL(`${base}/ok.snapshot`), options({ maxBytes: 1000 })));

    expect(error.kind).toBe(ErrorKind.InvalidArgument);
    expect(error.message).toBe(
      `Bad request: downloading snapshot from ${base}/ok.snapshot failed: it is ${body.length} bytes, over the limit of 1000 bytes`,
    );
    expect(listTree(dir)).toEqual(['tmp/']);
  });

  it('should cut off a streamed body that grows over the limit, and remove the work file', async () => {
    const error = await domainErrorOf(
      downloadSnapshot(new URL(`${base}/chunked.snapshot`), options({ maxBytes: 150_000 })),
    );

    expect(error.message).toBe(
      `Bad request: downloading snapshot from ${base}/chunked.snapshot failed: it is larger than the limit of 150000 bytes`,
    );
    expect(listTree(dir)).toEqual(['tmp/']);
  });

  it('should accept a streamed body within the limit', async () => {
    const downloaded = await downloadSnapshot(new URL(`${base}/chunked.snapshot`), options({ maxBytes: body.length }));

    expect(downloaded.sha256).toBe(sha256(body));
  });

  it('should give up after the timeout', async () => {
    const started = Date.now();

    const error = await domainErrorOf(downloadSnapshot(new URL(`${base}/slow.snapshot`), options({ timeoutMs: 300 })));

    expect(error.message).toBe(`Bad request: downloading snapshot from ${base}/slow.snapshot timed out after 300 ms`);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(listTree(dir)).toEqual(['tmp/']);
  });

  it('should refuse an error status', async () => {
    const error = await domainErrorOf(downloadSnapshot(new URL(`${base}/missing.snapshot`), options()));

    expect(error.message).toBe(
      `Bad request: downloading snapshot from ${base}/missing.snapshot failed: HTTP 404 Not Found`,
    );
  });

  it('should refuse a connection that fails', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));

    const error = await domainErrorOf(downloadSnapshot(new URL(`http://127.0.0.1:${port}/x.snapshot`), options()));

    expect(error.message).toMatch(
      new RegExp(
        `^Bad request: downloading snapshot from http://127.0.0.1:${port}/x.snapshot failed: fetch failed \\(.*ECONNREFUSED.*\\)$`,
      ),
    );
  });

  it('should refuse another scheme', async () => {
    const error = await domainErrorOf(downloadSnapshot(new URL('ftp://example.com/x.snapshot'), options()));

    expect(error.message).toBe('Bad request: URL ftp://example.com/x.snapshot with scheme ftp is not supported');
  });
});
