import { ErrorKind } from '@vectorstore/common';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { resolveSnapshotsDir, SnapshotStore, type SnapshotScope } from './snapshot-store';
import { writeSnapshot } from './snapshot-writer';
import { domainErrorOf, listTree, makeTempDir, removeTempDir, sha256 } from './testing/snapshot-fixtures';

const PEER = '3766212330831337';
const AT = new Date('2024-07-22T08:31:55.678Z');
const COLLECTION: SnapshotScope = { kind: 'collection', collection: 'my-collection' };

describe('SnapshotStore', () => {
  let root: string;
  let store: SnapshotStore;
  let now: Date;

  beforeEach(() => {
    root = makeTempDir('vs-snap-store-');
    now = AT;
    store = new SnapshotStore(root, { peerId: PEER, now: () => now });
  });

  afterEach(() => removeTempDir(root));

  /** Reserves a name and writes a real snapshot under it. */
  async function makeSnapshot(scope: SnapshotScope = COLLECTION) {
    const reservation = await store.reserveName(scope);
    return writeSnapshot({
      dir: reservation.dir,
      name: reservation.name,
      kind: scope.kind,
      peerId: PEER,
      collections: scope.kind === 'full' || scope.kind === 'cluster' ? [] : [scope.collection],
      ...(scope.kind === 'shard' ? { shardId: scope.shardId } : {}),
    });
  }

  describe('layout', () => {
    it("should follow Qdrant's folders: full at the top, collections by name, shards under shards/<id>", () => {
      expect(store.dirOf({ kind: 'full' })).toBe(root);
      expect(store.dirOf(COLLECTION)).toBe(path.join(root, 'my-collection'));
      expect(store.dirOf({ kind: 'shard', collection: 'c', shardId: 2 })).toBe(path.join(root, 'c', 'shards', '2'));
      expect(store.tempDir).toBe(path.join(root, 'tmp'));
    });

    it.each([['..'], ['.'], ['a/b'], ['']])('should refuse the collection name %j', (collection) => {
      expect(() => store.dirOf({ kind: 'collection', collection })).toThrow(
        expect.objectContaining({ kind: ErrorKind.InvalidArgument }),
      );
    });

    it('should refuse a shard id that is not a u32', () => {
      expect(() => store.dirOf({ kind: 'shard', collection: 'c', shardId: -1 })).toThrow(
        'Bad request: shard id -1 is not a u32',
      );
    });

    it('should put snapshots in <data dir>/snapshots unless VECTORSTORE_SNAPSHOTS_DIR says otherwise', () => {
      expect(resolveSnapshotsDir('/var/lib/vs')).toBe('/var/lib/vs/snapshots');
      expect(resolveSnapshotsDir('/var/lib/vs', '  ')).toBe('/var/lib/vs/snapshots');
      expect(resolveSnapshotsDir('/var/lib/vs', '/backups/vs')).toBe('/backups/vs');
    });
  });

  describe('names', () => {
    it('should name snapshots as Qdrant does: <collection>-<peer id>-<YYYY-MM-DD-HH-MM-SS>.snapshot', async () => {
      const collection = await store.reserveName(COLLECTION);
      const full = await store.reserveName({ kind: 'full' });
      const shard = await store.reserveName({ kind: 'shard', collection: 'my-collection', shardId: 1 });

      expect(collection.name).toBe(`my-collection-${PEER}-2024-07-22-08-31-55.snapshot`);
      expect(full.name).toBe('full-snapshot-2024-07-22-08-31-55.snapshot');
      expect(shard.name).toBe('my-collection-shard-1-2024-07-22-08-31-55.snapshot');
      expect(collection.path).toBe(path.join(root, 'my-collection', collection.name));
    });

    it('should give snapshots made in the same second distinct names', async () => {
      const first = await makeSnapshot();
      const second = await makeSnapshot();
      const reserved = await store.reserveName(COLLECTION);

      expect(first.name).toBe(`my-collection-${PEER}-2024-07-22-08-31-55.snapshot`);
      expect(second.name).toBe(`my-collection-${PEER}-2024-07-22-08-31-55-2.snapshot`);
      expect(reserved.name).toBe(`my-collection-${PEER}-2024-07-22-08-31-55-3.snapshot`);
    });

    it('should give concurrent reservations distinct names, and take a released name back', async () => {
      const reservations = await Promise.all(Array.from({ length: 8 }, () => store.reserveName(COLLECTION)));

      expect(new Set(reservations.map((r) => r.name)).size).toBe(8);
      await reservations[0].release();
      expect((await store.reserveName(COLLECTION)).name).toBe(reservations[0].name);
    });

    it('should refuse a collection name that makes the snapshot name too long for the file system', async () => {
      const error = await domainErrorOf(store.reserveName({ kind: 'collection', collection: 'c'.repeat(230) }));

      expect(error.kind).toBe(ErrorKind.InvalidArgument);
      expect(error.message).toMatch(/^Bad request: the snapshot name "c+-3766.*\.snapshot" is longer than 248 bytes$/);
    });
  });

  describe('list', () => {
    it('should describe snapshots as Qdrant shows them: name, creation_time, size, checksum', async () => {
      const written = await makeSnapshot();

      const listed = await store.list(COLLECTION);

      expect(listed).toEqual([
        {
          name: written.name,
          creation_time: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/),
          size: written.size,
          checksum: sha256(fs.readFileSync(written.path)),
        },
      ]);
      const created = Date.parse(`${listed[0].creation_time}Z`);
      expect(Math.abs(created - Date.now())).toBeLessThan(60_000);
    });

    it('should list only *.snapshot regular files, sorted, and leave out a missing checksum', async () => {
      const dir = store.dirOf(COLLECTION);
      fs.mkdirSync(path.join(dir, 'folder.snapshot'), { recursive: true });
      fs.writeFileSync(path.join(dir, 'b.snapshot'), 'bb');
      fs.writeFileSync(path.join(dir, 'a.snapshot'), 'a');
      fs.writeFileSync(path.join(dir, 'c.snapshot.tmp'), 'partial');
      fs.writeFileSync(path.join(dir, 'notes.txt'), 'x');
      fs.symlinkSync(path.join(dir, 'a.snapshot'), path.join(dir, 'link.snapshot'));

      const listed = await store.list(COLLECTION);

      expect(listed.map(({ name, size, checksum }) => ({ name, size, checksum }))).toEqual([
        { name: 'a.snapshot', size: 1, checksum: undefined },
        { name: 'b.snapshot', size: 2, checksum: undefined },
      ]);
      expect('checksum' in listed[0]).toBe(false);
    });

    it('should keep full, collection and shard snapshots apart', async () => {
      await makeSnapshot({ kind: 'full' });
      await makeSnapshot(COLLECTION);
      await makeSnapshot({ kind: 'shard', collection: 'my-collection', shardId: 0 });

      expect((await store.list({ kind: 'full' })).map((s) => s.name)).toEqual([
        'full-snapshot-2024-07-22-08-31-55.snapshot',
      ]);
      expect((await store.list(COLLECTION)).map((s) => s.name)).toEqual([
        `my-collection-${PEER}-2024-07-22-08-31-55.snapshot`,
      ]);
      expect((await store.list({ kind: 'shard', collection: 'my-collection', shardId: 0 })).map((s) => s.name)).toEqual(
        ['my-collection-shard-0-2024-07-22-08-31-55.snapshot'],
      );
    });

    it('should list nothing for a collection that never had a snapshot', async () => {
      await expect(store.list({ kind: 'collection', collection: 'never' })).resolves.toEqual([]);
    });

    it('should keep old snapshots when new ones are made', async () => {
      await makeSnapshot();
      now = new Date('2024-07-23T00:00:00Z');
      await makeSnapshot();

      expect((await store.list(COLLECTION)).map((s) => s.name)).toEqual([
        `my-collection-${PEER}-2024-07-22-08-31-55.snapshot`,
        `my-collection-${PEER}-2024-07-23-00-00-00.snapshot`,
      ]);
    });
  });

  describe('delete', () => {
    it('should delete the snapshot and its checksum file', async () => {
      const kept = await makeSnapshot();
      const deleted = await makeSnapshot();

      await store.delete(COLLECTION, deleted.name);

      expect(listTree(store.dirOf(COLLECTION))).toEqual([kept.name, `${kept.name}.sha256`]);
    });

    it.each([
      ['a missing snapshot', 'gone.snapshot'],
      ['a name with ..', '../my-collection/x.snapshot'],
      ['a name with a slash', 'sub/x.snapshot'],
      ['a name not ending in .snapshot', 'x.snapshot.sha256'],
      ['the folder itself', '.'],
    ])("should answer Qdrant's NOT_FOUND for %s", async (_what, name) => {
      await makeSnapshot();
      const before = listTree(root);

      const error = await domainErrorOf(store.delete(COLLECTION, name));

      expect(error.kind).toBe(ErrorKind.NotFound);
      expect(error.message).toBe(`Not found: Snapshot ${name}`);
      expect(listTree(root)).toEqual(before);
    });

    it('should not delete through a symbolic link', async () => {
      const outside = path.join(root, 'outside.snapshot');
      fs.writeFileSync(outside, 'keep me');
      fs.mkdirSync(store.dirOf(COLLECTION), { recursive: true });
      fs.symlinkSync(outside, path.join(store.dirOf(COLLECTION), 'link.snapshot'));

      const error = await domainErrorOf(store.delete(COLLECTION, 'link.snapshot'));

      expect(error.kind).toBe(ErrorKind.NotFound);
      expect(fs.readFileSync(outside, 'utf8')).toBe('keep me');
    });
  });

  describe('openForDownload', () => {
    it('should stream the bytes whose sha256 is the listed checksum', async () => {
      const written = await makeSnapshot();

      const opened = await store.openForDownload(COLLECTION, written.name);
      const chunks: Buffer[] = [];
      for await (const chunk of opened.stream) chunks.push(chunk as Buffer);

      expect(opened.description).toMatchObject({ name: written.name, size: written.size, checksum: written.sha256 });
      expect(sha256(Buffer.concat(chunks))).toBe(written.sha256);
    });

    it('should answer NOT_FOUND for names that escape or do not exist', async () => {
      await makeSnapshot();

      for (const name of ['../../etc/passwd', 'nope.snapshot', '%2e%2e%2fx.snapshot']) {
        const error = await domainErrorOf(store.openForDownload(COLLECTION, name));
        expect(error.message).toBe(`Not found: Snapshot ${name}`);
      }
    });

    it('should finish a download that started before the snapshot was deleted', async () => {
      const written = await makeSnapshot();
      const opened = await store.openForDownload(COLLECTION, written.name);

      await store.delete(COLLECTION, written.name);
      const chunks: Buffer[] = [];
      for await (const chunk of opened.stream) chunks.push(chunk as Buffer);

      expect(sha256(Buffer.concat(chunks))).toBe(written.sha256);
    });
  });

  describe('removeLeftovers', () => {
    it('should remove interrupted writes and work entries, and nothing else', async () => {
      const kept = await makeSnapshot();
      const abandoned = await store.reserveName({ kind: 'shard', collection: 'my-collection', shardId: 3 });
      fs.mkdirSync(path.join(store.tempDir, 'extract-abc', 'x'), { recursive: true });
      fs.writeFileSync(path.join(store.tempDir, 'download-1234.part'), 'half');
      // a collection named tmp shares the work folder: its snapshots stay
      const tmpCollection = await makeSnapshot({ kind: 'collection', collection: 'tmp' });
      fs.writeFileSync(path.join(store.dirOf(COLLECTION), `.${kept.name}.sha256.123.abc.tmp`), 'x');

      await store.removeLeftovers();

      expect(fs.existsSync(`${abandoned.path}.tmp`)).toBe(false);
      expect(listTree(root)).toEqual([
        'my-collection/',
        `my-collection/${kept.name}`,
        `my-collection/${kept.name}.sha256`,
        'my-collection/shards/',
        'my-collection/shards/3/',
        'tmp/',
        `tmp/${tmpCollection.name}`,
        `tmp/${tmpCollection.name}.sha256`,
      ]);
    });
  });
});
