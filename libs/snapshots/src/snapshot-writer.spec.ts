import { ErrorKind } from '@vectorstore/common';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { readSnapshot } from './snapshot-reader';
import { writeSnapshot, type WriteSnapshotRequest } from './snapshot-writer';
import {
  domainErrorOf,
  listTree,
  makeTempDir,
  pseudoRandomBytes,
  removeTempDir,
  sha256,
} from './testing/snapshot-fixtures';

const NAME = 'my-collection-3766212330831337-2024-07-22-08-31-55.snapshot';
const LONG_PATH = `segments/${'long-name-'.repeat(12)}/données-é.seg`;

describe('writeSnapshot', () => {
  let dir: string;
  let source: string;
  let out: string;

  beforeEach(() => {
    dir = makeTempDir('vs-snap-writer-');
    source = path.join(dir, 'source');
    out = path.join(dir, 'snapshots', 'my-collection');
  });

  afterEach(() => removeTempDir(dir));

  /** A shard-like tree: nested folders, a 0-byte file, a 5 MiB file, a long non-ASCII path. */
  function makeTree(): Map<string, Buffer> {
    const files = new Map<string, Buffer>([
      ['manifest.json', Buffer.from('{"op_num":42}')],
      ['wal/00000001.wal', pseudoRandomBytes(70_000, 7)],
      ['wal/empty.wal', Buffer.alloc(0)],
      ['segments/1.3.seg', pseudoRandomBytes(5 * 1024 * 1024 + 123, 3)],
      [LONG_PATH, Buffer.from('long path')],
    ]);
    for (const [relative, data] of files) {
      fs.mkdirSync(path.dirname(path.join(source, relative)), { recursive: true });
      fs.writeFileSync(path.join(source, relative), data);
    }
    return files;
  }

  function request(overrides: Partial<WriteSnapshotRequest> = {}): WriteSnapshotRequest {
    return {
      dir: out,
      name: NAME,
      kind: 'collection',
      peerId: '3766212330831337',
      collections: ['my-collection'],
      createdAt: new Date('2024-07-22T08:31:55.250Z'),
      ...overrides,
    };
  }

  it('should round-trip a tree with a 0-byte file, a 5 MiB file and a long path, checksums included', async () => {
    const tree = makeTree();
    const config = path.join(dir, 'config.json');
    fs.writeFileSync(config, '{"params":{}}');

    const written = await writeSnapshot(
      request({
        files: [{ archivePath: 'collection/config.json', sourcePath: config }],
        directories: [{ root: source, prefix: 'collection/shards/0' }],
      }),
    );

    const archive = fs.readFileSync(written.path);
    expect(written.path).toBe(path.join(out, NAME));
    expect(written.size).toBe(archive.length);
    expect(archive.length % 512).toBe(0);
    expect(written.sha256).toBe(sha256(archive));
    expect(fs.readFileSync(`${written.path}.sha256`, 'utf8')).toBe(`${sha256(archive)}  ${NAME}\n`);
    expect(listTree(out)).toEqual([NAME, `${NAME}.sha256`]);
    expect(written.manifest).toMatchObject({
      format: 'vectorstore-snapshot',
      version: 1,
      kind: 'collection',
      created_at: '2024-07-22T08:31:55.250Z',
      peer_id: '3766212330831337',
      collections: ['my-collection'],
    });
    expect(written.manifest.files.map((file) => file.path)).toEqual([
      'collection/config.json',
      'collection/shards/0/manifest.json',
      'collection/shards/0/segments/1.3.seg',
      `collection/shards/0/${LONG_PATH}`,
      'collection/shards/0/wal/00000001.wal',
      'collection/shards/0/wal/empty.wal',
    ]);

    const read = await readSnapshot(written.path, { extractParent: path.join(dir, 'work'), maxTotalBytes: 1 << 30 });

    expect(read.manifest).toEqual(written.manifest);
    expect(read.sha256).toBe(written.sha256);
    expect(read.archiveSize).toBe(archive.length);
    expect(fs.readFileSync(path.join(read.dir, 'collection/config.json'), 'utf8')).toBe('{"params":{}}');
    for (const [relative, data] of tree) {
      const extracted = fs.readFileSync(path.join(read.dir, 'collection/shards/0', relative));
      expect(extracted.equals(data)).toBe(true);
      const listed = read.manifest.files.find((file) => file.path === `collection/shards/0/${relative}`);
      expect(listed).toEqual({ path: `collection/shards/0/${relative}`, size: data.length, sha256: sha256(data) });
    }
    expect(path.dirname(read.dir)).toBe(path.join(dir, 'work'));
  });

  it('should write an archive that the system tar lists and sha256sum -c accepts', async () => {
    makeTree();
    const written = await writeSnapshot(request({ directories: [{ root: source }] }));

    const listing = execFileSync('tar', ['-tf', written.path], { encoding: 'utf8' }).trim().split('\n');
    expect(listing[0]).toBe('snapshot.json');
    expect(listing).toContain(LONG_PATH);
    expect(listing).toHaveLength(6);
    const check = execFileSync('sha256sum', ['-c', `${NAME}.sha256`], { cwd: out, encoding: 'utf8' });
    expect(check.trim()).toBe(`${NAME}: OK`);
  });

  it('should write a snapshot of no files', async () => {
    const written = await writeSnapshot(request({ kind: 'full', collections: [], name: 'full-snapshot-x.snapshot' }));

    const read = await readSnapshot(written.path, { extractParent: path.join(dir, 'work'), maxTotalBytes: 0 });
    expect(read.manifest.files).toEqual([]);
    expect(listTree(read.dir)).toEqual([]);
  });

  it('should never replace an existing snapshot, and leave no temporary file', async () => {
    fs.mkdirSync(out, { recursive: true });
    fs.writeFileSync(path.join(out, NAME), 'the older snapshot');

    const error = await domainErrorOf(writeSnapshot(request()));

    expect(error.kind).toBe(ErrorKind.AlreadyExists);
    expect(error.message).toBe(`Snapshot ${NAME} already exists`);
    expect(fs.readFileSync(path.join(out, NAME), 'utf8')).toBe('the older snapshot');
    expect(listTree(out)).toEqual([NAME]);
  });

  it('should refuse a symbolic link among the sources and leave nothing behind', async () => {
    makeTree();
    fs.symlinkSync('/etc/passwd', path.join(source, 'wal', 'link'));

    const error = await domainErrorOf(writeSnapshot(request({ directories: [{ root: source }] })));

    expect(error.kind).toBe(ErrorKind.Internal);
    expect(error.message).toMatch(/link is not a regular file or folder; snapshots take only those/);
    expect(fs.existsSync(out) ? listTree(out) : []).toEqual([]);
  });

  it('should refuse a source file given as a symbolic link', async () => {
    fs.symlinkSync('/etc/hostname', path.join(dir, 'link'));

    const error = await domainErrorOf(
      writeSnapshot(request({ files: [{ archivePath: 'x', sourcePath: path.join(dir, 'link') }] })),
    );

    expect(error.kind).toBe(ErrorKind.Internal);
    expect(error.message).toContain('ELOOP');
    expect(fs.existsSync(out)).toBe(false);
  });

  it.each([
    ['../escape', 'Bad request: snapshot entry path "../escape" contains a `..` segment'],
    ['/abs', 'Bad request: snapshot entry path "/abs" is absolute'],
    ['snapshot.json', `Bad request: snapshot entry path "snapshot.json" is the manifest's own name`],
  ])('should refuse the archive path %s', async (archivePath, message) => {
    const file = path.join(dir, 'f');
    fs.writeFileSync(file, 'x');

    const error = await domainErrorOf(writeSnapshot(request({ files: [{ archivePath, sourcePath: file }] })));

    expect(error.kind).toBe(ErrorKind.InvalidArgument);
    expect(error.message).toBe(message);
  });

  it('should refuse two sources for one archive path', async () => {
    const file = path.join(dir, 'f');
    fs.writeFileSync(file, 'x');

    const error = await domainErrorOf(
      writeSnapshot(
        request({
          files: [
            { archivePath: 'a', sourcePath: file },
            { archivePath: 'a', sourcePath: file },
          ],
        }),
      ),
    );

    expect(error.message).toBe('Bad request: snapshot entry path "a" is given twice');
  });

  it.each([
    ['with a path separator', '../x.snapshot', 'contains a path separator'],
    ['without .snapshot', 'x.tar', 'does not end in .snapshot'],
    ['that is only .snapshot', '.snapshot', 'does not end in .snapshot'],
    ['too long for its .sha256 to fit', `${'a'.repeat(240)}.snapshot`, 'is longer than 248 bytes'],
  ])('should refuse a snapshot name %s', async (_what, name, problem) => {
    const error = await domainErrorOf(writeSnapshot(request({ name })));

    expect(error.kind).toBe(ErrorKind.InvalidArgument);
    expect(error.message).toBe(`Bad request: snapshot name ${JSON.stringify(name)} ${problem}`);
  });

  it('should refuse manifest fields the reader would refuse', async () => {
    const error = await domainErrorOf(writeSnapshot(request({ collections: ['a', 'b'] })));

    expect(error.message).toContain('collections must hold exactly one name in a collection snapshot, got 2');
    expect(fs.existsSync(out)).toBe(false);
  });
});
