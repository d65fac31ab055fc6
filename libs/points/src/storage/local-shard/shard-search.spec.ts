import { promises as fs, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { Segment } from '../segment';
import { setSearchOffload } from '../vectors/search-offload';
import { LocalShard } from './local-shard';
import { DENSE_SPACES as spaces, densePoint as point, openTestShard } from './shard.spec-helper';

const QUERY = { kind: 'dense' as const, values: Float32Array.from([1, 0, 0, 0]) };
const ids = (hits: { segment: Segment; slot: number }[]) => hits.map((h) => Number(h.segment.pointId(h.slot)));

/** A shard whose points 1..n sit in one optimizer-built (graph-indexed) segment, plus its empty active one. */
async function indexedShard(dir: string, n: number): Promise<LocalShard> {
  const shard = await openTestShard(dir);
  const points = Array.from({ length: n }, (_, i) => ({ ...point(i + 1, { n: String(i + 1) }), version: 1 }));
  await shard.swapSegments([], Segment.build(spaces, points, []));
  return shard;
}

describe(LocalShard.name, () => {
  let dir: string;
  let shard: LocalShard;

  beforeAll(() => setSearchOffload('always'));
  afterAll(() => setSearchOffload('auto'));

  beforeEach(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'vs-shard-search-'));
    shard = await indexedShard(dir, 200);
  });

  afterEach(async () => {
    await shard.close();
    await fs.rm(dir, { recursive: true, force: true });
  });

  describe('searchAsync', () => {
    it('should give the hits of search', async () => {
      const settled = await shard.searchAsync('', QUERY, 5, undefined, undefined, true);
      expect(ids(settled.current())).toEqual(ids(shard.search('', QUERY, 5, undefined, undefined, true)));
      expect(ids(settled.current())).toEqual([200, 199, 198, 197, 196]);
    });

    it('should take a delete while the search runs, and leave the deleted point out', async () => {
      const pending = shard.searchAsync('', QUERY, 3, undefined, undefined, true);
      await shard.update({ deletePoints: { selector: { ids: [199n] } } });
      // the worker may have searched before or after the delete: 197 is the third hit or not there
      expect(ids((await pending).current()).slice(0, 2)).toEqual([200, 198]);
      expect(ids((await pending).current())).not.toContain(199);
      const after = await shard.searchAsync('', QUERY, 3, undefined, undefined, true);
      expect(ids(after.current())).toEqual([200, 198, 197]);
    });

    it('should read a point moved while the search runs where it is now, and drop one that no longer passes the filter', async () => {
      const filter = { must: [{ field: { key: 'n', match: { exceptKeywords: ['0'] } } }] };
      const pending = shard.searchAsync('', QUERY, 3, filter, undefined, true);
      // copy-on-write: both move to the active segment, 199 no longer passes the filter
      await shard.update({ setPayload: { selector: { ids: [200n] }, payload: { extra: 'x' } } });
      await shard.update({ overwritePayload: { selector: { ids: [199n] }, payload: { n: '0' } } });
      const hits = (await pending).current();
      expect(ids(hits).slice(0, 2)).toEqual([200, 198]);
      expect(ids(hits)).not.toContain(199);
      expect(hits[0].segment).toBe(shard.find(200n)!.segment);
      expect(hits[0].segment.payload(hits[0].slot)).toEqual({ n: '200', extra: 'x' });
    });

    it('should read hits from the segment an optimizer swap put in place', async () => {
      const old = shard.segments.find((s) => s.pointCount === 200)!;
      const pending = shard.searchAsync('', QUERY, 2, undefined, undefined, true);
      const rebuilt = Array.from({ length: 200 }, (_, i) => ({ ...point(i + 1, { n: String(i + 1) }), version: 1 }));
      await shard.swapSegments([old], Segment.build(spaces, rebuilt, []));
      const hits = (await pending).current();
      expect(ids(hits)).toEqual([200, 199]);
      expect(shard.segments).toContain(hits[0].segment);
      expect(hits[0].segment.payload(hits[0].slot)).toEqual({ n: '200' });
    });
  });
});
