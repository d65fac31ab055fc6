import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { UpdateOperation } from '../../model/operations.model';
import { LocalShard } from './local-shard';
import { densePoint, openTestShard } from './shard.spec-helper';

describe('shard export and checksum', () => {
  let dir: string;
  const shards: LocalShard[] = [];

  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'shard-export-'));
  });

  afterEach(async () => {
    for (const shard of shards.splice(0)) await shard.close();
    await rm(dir, { recursive: true, force: true });
  });

  async function shard(name: string): Promise<LocalShard> {
    const opened = await openTestShard(path.join(dir, name));
    shards.push(opened);
    return opened;
  }

  const upsert = (...ids: number[]): UpdateOperation => ({
    upsert: { points: ids.map((id) => densePoint(id, { city: `c${id}` })) },
  });

  it('should give a copy made from exported points the source checksum, whatever the order', async () => {
    const source = await shard('source');
    await source.update(upsert(1, 2, 3, 4));
    await source.update({ setPayload: { selector: { ids: [2n] }, payload: { extra: true, a: 1 } } });
    await source.update({ deletePoints: { selector: { ids: [4n] } } });
    const ids = source.livePointIds();
    expect(ids.map(String).sort()).toEqual(['1', '2', '3']);

    const copy = await shard('copy');
    // Reversed and in two batches: the digest does not depend on the order points arrive in.
    await copy.update({ upsert: { points: source.exportPoints([...ids].reverse().slice(0, 2)) } });
    await copy.update({ upsert: { points: source.exportPoints([...ids].reverse().slice(2)) } });
    expect(copy.checksum()).toEqual(source.checksum());
    expect(source.checksum().points).toBe(3);
  });

  it('should tell copies apart by a payload value, a vector or a missing point', async () => {
    const a = await shard('a');
    const b = await shard('b');
    await a.update(upsert(1, 2));
    await b.update(upsert(1, 2));
    expect(b.checksum()).toEqual(a.checksum());
    await b.update({ setPayload: { selector: { ids: [1n] }, payload: { city: 'other' } } });
    expect(b.checksum().digest).not.toBe(a.checksum().digest);
    await b.update({ upsert: { points: [densePoint(1, { city: 'c1' })] } });
    expect(b.checksum()).toEqual(a.checksum());
    await b.update({ deletePoints: { selector: { ids: [2n] } } });
    expect(b.checksum().points).toBe(1);
  });

  it('should skip exported ids that are gone and tell listeners each applied operation in order', async () => {
    const source = await shard('source');
    const seen: number[] = [];
    const stop = source.observeApplied((opNum) => seen.push(opNum));
    await Promise.all([source.update(upsert(1)), source.update(upsert(2)), source.update(upsert(3))]);
    stop();
    await source.update(upsert(4));
    expect(seen).toEqual([1, 2, 3]);
    expect(source.exportPoints([1n, 99n]).map((point) => point.id)).toEqual([1n]);
  });
});
