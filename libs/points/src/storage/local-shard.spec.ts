import { promises as fs, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { WriteAheadLog } from '../wal/write-ahead-log';
import { LocalShard } from './local-shard';
import { DENSE_SPACES as spaces, densePoint as point, openTestShard } from './local-shard/shard.spec-helper';
import { Segment } from './segment';
import { SparseSegmentVectors } from './vectors/sparse-vectors';
import { VectorSpace } from './vector-space';

const open = (dir: string): Promise<LocalShard> => openTestShard(dir);

async function copyDir(from: string, to: string): Promise<void> {
  await fs.cp(from, to, { recursive: true });
}

describe(LocalShard.name, () => {
  let dir: string;

  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'vs-shard-'));
  });

  afterEach(async () => {
    await fs.rm(dir, { recursive: true, force: true });
  });

  describe('flush', () => {
    it('should recover the exact state when a crash hits between segment files and the manifest', async () => {
      const live = path.join(dir, 'live');
      const shard = await open(live);
      await shard.update({ upsert: { points: [point(1, { a: '0' })] } });
      await shard.flush();
      // The state at the last good manifest, as a crash would leave it…
      const crashed = path.join(dir, 'crashed');
      await copyDir(live, crashed);
      await shard.update({
        setPayload: {
          selector: { filter: { must: [{ field: { key: 'a', match: { keyword: '1' } } }] } },
          payload: { b: '1' },
        },
      });
      await shard.update({ setPayload: { selector: { ids: [1n] }, payload: { a: '1' } } });
      await shard.flush();
      await shard.close();
      // …plus the new segment files a half-finished flush wrote and the whole log, but the old manifest.
      for (const name of await fs.readdir(path.join(live, 'segments'))) {
        await fs.copyFile(path.join(live, 'segments', name), path.join(crashed, 'segments', name));
      }
      await fs.rm(path.join(crashed, 'wal'), { recursive: true });
      await copyDir(path.join(live, 'wal'), path.join(crashed, 'wal'));

      const recovered = await open(crashed);
      const found = recovered.find(1n)!;
      expect(found.segment.payload(found.slot)).toEqual({ a: '1' });
      expect(recovered.pointCount).toBe(1);
      await recovered.close();
    });
  });

  describe('update', () => {
    it('should not grow the vector index when only the payload changes', async () => {
      const shard = await open(dir);
      await shard.update({ upsert: { points: [point(1)] } });
      const before = shard.active.save().length;
      for (let i = 0; i < 300; i++)
        await shard.update({ setPayload: { selector: { ids: [1n] }, payload: { n: String(i) } } });
      expect(shard.active.save().length).toBeLessThan(before + 4096);
      await shard.close();
    });

    it('should reject an operation that cannot be applied and still open afterwards', async () => {
      const shard = await open(dir);
      await shard.update({ upsert: { points: [point(1)] } });
      // Validation normally stops this malformed key; the shard must still report the failure, not acknowledge it.
      await expect(
        shard.update({ setPayload: { selector: { ids: [1n] }, payload: { x: '1' }, key: 'a[' } }),
      ).rejects.toThrow();
      expect(shard.failure).toBeDefined();
      await shard.close().catch(() => undefined);
      const reopened = await open(dir);
      expect(reopened.pointCount).toBe(1);
      await reopened.close().catch(() => undefined);
    });
  });

  describe('segment files on disk', () => {
    it('should keep the vector and payload files of building and listed segments, and remove orphans', async () => {
      const shard = await open(dir);
      await shard.update({ upsert: { points: [point(1, { a: 'x' })] } });
      // An optimizer job that has written its files but not swapped the segment in yet…
      shard.reserveBuild('built');
      const built = Segment.build(
        spaces,
        [2, 3, 4].map((id) => ({ ...point(id, { b: String(id) }), version: 1 })),
        [],
        'built',
      );
      const body = await built.saveToDisk(shard.segmentsDir, { payloads: true, vectors: new Set(['']) });
      // …and files a crashed build left behind.
      await fs.writeFile(path.join(shard.segmentsDir, 'orphan.vec'), 'x');
      await fs.writeFile(path.join(shard.segmentsDir, 'orphan.pay'), 'x');
      await shard.flush();
      let names = await fs.readdir(shard.segmentsDir);
      expect(names).toEqual(expect.arrayContaining(['built.vec', 'built.pay']));
      expect(names).not.toContain('orphan.vec');
      expect(names).not.toContain('orphan.pay');

      await shard.swapSegments([], Segment.load(body, spaces, shard.segmentsDir));
      await shard.releaseBuild('built', true);
      await shard.close();
      const reopened = await open(dir);
      const found = reopened.find(3n)!;
      expect(found.segment.payload(found.slot)).toEqual({ b: '3' });
      expect(Array.from((found.segment.pointVectors(found.slot)[''] as { values: Float32Array }).values)).toEqual([
        3, 1, 0, 0,
      ]);

      // once no segment holds them, a failed build's files go at release
      reopened.reserveBuild('failed');
      await fs.writeFile(path.join(reopened.segmentsDir, 'failed.vec'), 'x');
      await reopened.releaseBuild('failed', false);
      names = await fs.readdir(reopened.segmentsDir);
      expect(names).not.toContain('failed.vec');
      expect(names).toEqual(expect.arrayContaining(['built.vec', 'built.pay']));
      await reopened.close();
    });
  });

  describe('segment file descriptors', () => {
    /** Paths this process holds open under `dir` (Linux: /proc/self/fd), deleted files included. */
    async function openUnder(prefix: string): Promise<string[]> {
      const found: string[] = [];
      for (const fd of await fs.readdir('/proc/self/fd')) {
        const target = await fs.readlink(`/proc/self/fd/${fd}`).catch(() => '');
        if (target.startsWith(prefix)) found.push(target);
      }
      return found;
    }
    const onLinux = process.platform === 'linux' ? it : it.skip;

    onLinux(
      'should close the files of swapped-out segments at once, and all of them when the shard closes',
      async () => {
        const shard = await open(dir);
        const build = async (id: string, ids: number[]) => {
          shard.reserveBuild(id);
          const built = Segment.build(
            spaces,
            ids.map((n) => ({ ...point(n, { b: String(n) }), version: 1 })),
            [],
            id,
          );
          const body = await built.saveToDisk(shard.segmentsDir, { payloads: true, vectors: new Set(['']) });
          return Segment.load(body, spaces, shard.segmentsDir);
        };
        const first = await build('first', [1, 2, 3]);
        await shard.swapSegments([], first);
        await shard.releaseBuild('first', true);
        expect((await openUnder(shard.segmentsDir)).filter((p) => p.includes('first')).length).toBe(2);

        const second = await build('second', [1, 2, 3]);
        await shard.swapSegments([first], second);
        await shard.releaseBuild('second', true);
        const open1 = await openUnder(shard.segmentsDir);
        expect(open1.filter((p) => p.includes('first'))).toEqual([]);
        expect(open1.filter((p) => p.includes('second')).length).toBe(2);
        // a late read of a replaced segment fails loudly instead of reading another file
        expect(() => first.payload(0)).toThrow(/read after close/);

        await shard.close();
        expect(await openUnder(shard.segmentsDir)).toEqual([]);
        // and a swap arriving after close started is refused
        await expect(shard.swapSegments([], undefined)).rejects.toThrow(/closed/);
      },
    );
  });

  describe('sparse scores', () => {
    it('should score given points that share no dimension with the query 0, not leave them out', () => {
      const store = SparseSegmentVectors.create({ name: 's', kind: 'sparse', idf: false });
      store.set(0, { kind: 'sparse', indices: Uint32Array.from([0]), values: Float32Array.from([2]) });
      store.set(1, { kind: 'sparse', indices: Uint32Array.from([1]), values: Float32Array.from([1]) });
      const scored = store.score(
        { kind: 'sparse', indices: Uint32Array.from([0]), values: Float32Array.from([1]) },
        [0, 1, 7],
      );
      // slot 7 has no vector: left out
      expect(new Map([...scored.slots].map((slot, i) => [slot, scored.scores[i]]))).toEqual(
        new Map([
          [0, 2],
          [1, 0],
        ]),
      );
    });
  });

  describe('sparse IDF', () => {
    it('should score with statistics of the whole shard, however points are spread over segments', async () => {
      const sparseSpaces = new Map<string, VectorSpace>([['s', { name: 's', kind: 'sparse', idf: true }]]);
      const openSparse = (at: string) =>
        LocalShard.open({
          dir: at,
          spaces: sparseSpaces,
          openLog: (options) => WriteAheadLog.open(options),
          log: { segmentCapacityBytes: 1 << 20, segmentsAhead: 0, retainClosed: 1 },
        });
      const sparsePoint = (id: number, indices: number[]) => ({
        id: BigInt(id),
        vectors: {
          s: {
            kind: 'sparse' as const,
            indices: Uint32Array.from(indices),
            values: Float32Array.from(indices, () => 1),
          },
        },
        payload: {},
      });
      const docs = [[1, 2], [1], [1, 3], [2, 3], [1, 4]];
      const query = {
        kind: 'sparse' as const,
        indices: Uint32Array.from([1, 2, 3]),
        values: Float32Array.from([1, 1, 1]),
      };
      const one = await openSparse(path.join(dir, 'one'));
      await one.update({ upsert: { points: docs.map((d, i) => sparsePoint(i + 1, d)) } });
      const split = await openSparse(path.join(dir, 'split'));
      await split.update({ upsert: { points: docs.slice(0, 2).map((d, i) => sparsePoint(i + 1, d)) } });
      split.rollActiveSegment();
      await split.update({ upsert: { points: docs.slice(2).map((d, i) => sparsePoint(i + 3, d)) } });
      expect(split.segments.length).toBe(2);
      const scores = (shard: LocalShard) =>
        shard
          .search('s', query, 5, undefined, undefined, true)
          .map((h): [unknown, number] => [h.segment.pointId(h.slot), h.score]);
      const expected = scores(one);
      const got = scores(split);
      expect(got.length).toBe(5);
      const expectedById = new Map(expected);
      // every point scores as in the one-segment shard (ids of equal scores may come in either order)
      for (const [id, score] of got) expect(score).toBeCloseTo(expectedById.get(id)!, 6);
      await one.close();
      await split.close();
    });
  });
});
