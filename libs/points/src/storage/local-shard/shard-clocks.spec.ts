import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { UpdateOperation } from '../../model/operations.model';
import { ClockTag, MAX_DELTA_WRITES, RecoveryPoint, ShardClocks, walDelta } from './shard-clocks';
import { densePoint, openTestShard } from './shard.spec-helper';

const tag = (seq: number, peer = '1', incarnation = 'a'): ClockTag => ({ peer, incarnation, seq });

describe(ShardClocks.name, () => {
  it('should keep a prefix and the numbers above it, absorbing them once the gap fills', () => {
    const clocks = new ShardClocks();
    for (const seq of [1, 2, 4, 6]) clocks.add(tag(seq));
    expect(clocks.snapshot()).toEqual({
      '1/a': {
        upTo: 2,
        above: [
          [4, 4],
          [6, 6],
        ],
      },
    });
    clocks.add(tag(3));
    expect(clocks.snapshot()).toEqual({ '1/a': { upTo: 4, above: [[6, 6]] } });
    expect(clocks.has(tag(4))).toBe(true);
    expect(clocks.has(tag(5))).toBe(false);
    clocks.add(tag(5));
    expect(clocks.snapshot()).toEqual({ '1/a': { upTo: 6, above: [] } });
  });

  it('should keep origins apart (another peer, or another process of the same peer)', () => {
    const clocks = new ShardClocks();
    clocks.add(tag(1));
    clocks.add(tag(1, '1', 'b'));
    clocks.add(tag(1, '2'));
    expect(Object.keys(clocks.snapshot()).sort()).toEqual(['1/a', '1/b', '2/a']);
  });

  it('should merge to the union of both points', () => {
    const clocks = new ShardClocks({ '1/a': { upTo: 3, above: [[7, 7]] }, '2/a': { upTo: 1, above: [] } });
    clocks.merge({
      '1/a': {
        upTo: 5,
        above: [
          [6, 6],
          [9, 9],
        ],
      },
      '3/a': { upTo: 2, above: [] },
    });
    expect(clocks.snapshot()).toEqual({
      '1/a': { upTo: 7, above: [[9, 9]] },
      '2/a': { upTo: 1, above: [] },
      '3/a': { upTo: 2, above: [] },
    });
  });

  it('should keep a gap that never fills as two ranges, however many writes come after it', () => {
    const clocks = new ShardClocks();
    for (let seq = 1; seq <= 1000; seq++) if (seq !== 10 && seq !== 500) clocks.add(tag(seq));
    expect(clocks.snapshot()).toEqual({
      '1/a': {
        upTo: 9,
        above: [
          [11, 499],
          [501, 1000],
        ],
      },
    });
    expect(clocks.has(tag(500))).toBe(false);
    expect(clocks.has(tag(499))).toBe(true);
  });

  it('should read a recovery point stored with single numbers above the prefix (before ranges)', () => {
    const old = { '1/a': { upTo: 2, above: [4, 5, 7] } } as unknown as RecoveryPoint;
    expect(new ShardClocks(old).snapshot()).toEqual({
      '1/a': {
        upTo: 2,
        above: [
          [4, 5],
          [7, 7],
        ],
      },
    });
  });

  it('should refuse a recovery point with a bad range', () => {
    expect(() => new ShardClocks({ '1/a': { upTo: 0, above: [[5, 3]] } })).toThrow(/bad clock entry/);
  });
});

describe('walDelta', () => {
  const records = (...seqs: Array<number | undefined>) =>
    seqs.map((seq) => ({ tag: seq === undefined ? undefined : tag(seq), item: seq }));

  it('should send what the target lacks, in log order, including writes it skipped', () => {
    const delta = walDelta(
      { '1/a': { upTo: 6, above: [] } },
      { '1/a': { upTo: 2, above: [[4, 4]] } },
      records(2, 3, 4, 5, 6),
    );
    expect(delta).toEqual({ send: [3, 5, 6] });
  });

  it('should send a whole origin the target never saw when the log holds it from its first write', () => {
    expect(walDelta({ '1/a': { upTo: 2, above: [] } }, {}, records(1, 2))).toEqual({ send: [1, 2] });
  });

  it('should refuse when the log no longer holds a write the target lacks', () => {
    const delta = walDelta({ '1/a': { upTo: 6, above: [] } }, { '1/a': { upTo: 2, above: [] } }, records(4, 5, 6));
    expect(delta).toEqual({ refused: expect.stringContaining('no longer holds write #3') });
  });

  it('should refuse when the target holds a write the source does not', () => {
    const delta = walDelta({ '1/a': { upTo: 2, above: [] } }, { '1/a': { upTo: 2, above: [[4, 4]] } }, records(1, 2));
    expect(delta).toEqual({ refused: expect.stringContaining('the target holds writes the source does not') });
  });

  it('should refuse a log with an untagged write (a copied batch)', () => {
    const delta = walDelta({ '1/a': { upTo: 2, above: [] } }, { '1/a': { upTo: 1, above: [] } }, records(undefined, 2));
    expect(delta).toEqual({ refused: expect.stringContaining('without a clock tag') });
  });

  it('should refuse a target that lacks more writes than a delta sends, without listing them', () => {
    const delta = walDelta({ '1/a': { upTo: MAX_DELTA_WRITES + 1, above: [] } }, {}, records(1));
    expect(delta).toEqual({ refused: expect.stringContaining('more than a delta sends') });
  });

  it('should send nothing to a target that holds everything', () => {
    expect(walDelta({ '1/a': { upTo: 3, above: [] } }, { '1/a': { upTo: 3, above: [] } }, records(1, 2, 3))).toEqual({
      send: [],
    });
  });
});

describe('a shard and its clocks', () => {
  let dir: string;

  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'shard-clocks-'));
  });

  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const upsert = (id: number): UpdateOperation => ({ upsert: { points: [densePoint(id)] } });

  it('should apply a tagged write once, however often it comes, and tell its tag to listeners', async () => {
    const shard = await openTestShard(dir);
    const seen: Array<ClockTag | undefined> = [];
    shard.observeApplied((_, __, t) => seen.push(t));
    const first = await shard.update(upsert(1), tag(1));
    const [again, concurrent] = await Promise.all([shard.update(upsert(1), tag(1)), shard.update(upsert(2), tag(2))]);
    expect(again).toBe(first);
    expect(concurrent).toBe(first + 1);
    expect(shard.recoveryPoint()).toEqual({ '1/a': { upTo: 2, above: [] } });
    expect(seen).toEqual([tag(1), tag(2)]);
    await shard.close();
  });

  it('should keep its recovery point across a flush and a restart (manifest, then the log past it)', async () => {
    const shard = await openTestShard(dir);
    await shard.update(upsert(1), tag(1));
    await shard.update(upsert(2), tag(3));
    await shard.flush();
    await shard.update(upsert(3), tag(2));
    await shard.update(upsert(4)); // untagged: no origin
    await shard.close();
    const reopened = await openTestShard(dir);
    expect(reopened.recoveryPoint()).toEqual({ '1/a': { upTo: 3, above: [] } });
    await expect(reopened.update(upsert(9), tag(2))).resolves.toBe(4);
    expect(reopened.pointCount).toBe(4);
    await reopened.close();
  });

  it('should answer a repeat of a write still being logged as that write is answered, applying it once', async () => {
    const shard = await openTestShard(dir);
    const [first, repeat] = await Promise.all([shard.update(upsert(1), tag(1)), shard.update(upsert(1), tag(1))]);
    expect(repeat).toBe(first);
    expect(shard.lastApplied).toBe(first);
    await shard.close();
  });

  it('should keep a merged recovery point across a restart once flushed, with nothing else written', async () => {
    const shard = await openTestShard(dir);
    await shard.update(upsert(1), tag(1));
    await shard.flush();
    shard.mergeRecoveryPoint({ '2/b': { upTo: 5, above: [[9, 12]] } });
    await shard.flush();
    await shard.close();
    const reopened = await openTestShard(dir);
    expect(reopened.recoveryPoint()).toEqual({
      '1/a': { upTo: 1, above: [] },
      '2/b': { upTo: 5, above: [[9, 12]] },
    });
    await reopened.close();
  });

  it('should give a replica that missed writes exactly those from its log', async () => {
    const source = await openTestShard(path.join(dir, 'source'));
    const target = await openTestShard(path.join(dir, 'target'));
    for (const seq of [1, 2, 3]) {
      await source.update(upsert(seq), tag(seq));
      await target.update(upsert(seq), tag(seq));
    }
    for (const seq of [4, 5, 6]) await source.update(upsert(seq), tag(seq));
    const delta = await source.walDelta(target.recoveryPoint());
    expect('send' in delta && delta.send.map((write) => write.tag.seq)).toEqual([4, 5, 6]);
    if ('send' in delta) for (const write of delta.send) await target.update(write.operation, write.tag);
    expect(target.checksum()).toEqual(source.checksum());
    expect(target.recoveryPoint()).toEqual(source.recoveryPoint());
    await source.close();
    await target.close();
  });
});
