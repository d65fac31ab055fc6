import { promises as fs, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { Segment } from '../segment';
import { LocalShard } from './local-shard';
import { DENSE_SPACES as spaces, densePoint as point, openTestShard } from './shard.spec-helper';

const visibleIds = (shard: LocalShard): number[] =>
  shard.segments
    .flatMap((s) => s.matchingSlots(undefined).map((slot) => Number(s.pointId(slot))))
    .sort((a, b) => a - b);

describe('deferred points (prevent_unoptimized)', () => {
  let dir: string;
  let cutoff: number | undefined;
  let shard: LocalShard;

  beforeEach(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'vs-deferred-'));
    cutoff = 3;
    shard = await openTestShard(dir, { deferredPointsFrom: () => cutoff });
  });

  afterEach(async () => {
    await shard.close();
    await fs.rm(dir, { recursive: true, force: true });
  });

  it('should hide points past the cutoff from reads but not from writes', async () => {
    await shard.update({ upsert: { points: [1, 2, 3, 4, 5].map((id) => point(id)) } });
    expect(visibleIds(shard)).toEqual([1, 2, 3]);
    expect(shard.findVisible(5n)).toBeUndefined();
    expect(shard.find(5n)).toBeDefined();
    expect(shard.active.deferredCount).toBe(2);
    const hits = shard.active.search(
      '',
      { kind: 'dense', values: Float32Array.of(1, 0, 0, 0) },
      10,
      undefined,
      undefined,
    );
    expect(Array.from(hits.slots).sort()).toEqual([0, 1, 2]);
    await shard.update({ setPayload: { selector: { ids: [5n] }, payload: { late: 'yes' } } });
    expect(shard.find(5n)!.segment.payload(shard.find(5n)!.slot)).toEqual({ late: 'yes' });
  });

  it('should keep a visible point visible when a write moves it past the cutoff', async () => {
    await shard.update({ upsert: { points: [1, 2].map((id) => point(id)) } });
    const sealed: Segment = shard.rollActiveSegment();
    await shard.update({ upsert: { points: [10, 11, 12].map((id) => point(id)) } });
    // 1 moves from the sealed segment into slot 3 of the active one, past the cutoff: still visible.
    await shard.update({ setPayload: { selector: { ids: [1n] }, payload: { moved: 'yes' } } });
    await shard.update({ upsert: { points: [point(2, { again: 'yes' }), point(13)] } });
    expect(sealed.slotOf(1n)).toBeUndefined();
    expect(visibleIds(shard)).toEqual([1, 2, 10, 11, 12]);
    expect(shard.active.deferredCount).toBe(1);
  });

  it('should keep visibility when a new vector name renews the active segment', async () => {
    await shard.update({ upsert: { points: [1, 2].map((id) => point(id)) } });
    shard.rollActiveSegment();
    await shard.update({ upsert: { points: [10, 11, 12, 13].map((id) => point(id)) } });
    await shard.update({ setPayload: { selector: { ids: [1n] }, payload: { moved: 'yes' } } });
    await shard.update({ deletePoints: { selector: { ids: [10n] } } });
    expect(visibleIds(shard)).toEqual([1, 2, 11, 12]);
    const withB = new Map(spaces);
    withB.set('b', { ...spaces.get('')!, name: 'b' });
    shard.updateSpaces(withB);
    // Repacked: 11, 12, 13, 1 take slots 0..3; 13 stays hidden, 1 stays visible.
    expect(visibleIds(shard)).toEqual([1, 2, 11, 12]);
    expect(shard.active.deferredCount).toBe(1);
  });

  it('should follow a changed cutoff, and show everything once prevent_unoptimized is off', async () => {
    await shard.update({ upsert: { points: [1, 2, 3, 4, 5].map((id) => point(id)) } });
    cutoff = undefined;
    shard.updateSpaces(spaces);
    expect(visibleIds(shard)).toEqual([1, 2, 3, 4, 5]);
    cutoff = 1;
    shard.updateSpaces(spaces);
    expect(visibleIds(shard)).toEqual([1]);
  });
});
