import { ringShard } from './shard-routing';

describe(ringShard.name, () => {
  const ids = Array.from({ length: 20_000 }, (_, i) => BigInt(i + 1));

  it('should spread points over the shards about evenly', () => {
    const counts = [0, 0, 0];
    for (const id of ids) counts[ringShard(id, [0, 1, 2])]++;
    for (const count of counts) expect(Math.abs(count - ids.length / 3)).toBeLessThan(ids.length * 0.06);
  });

  it('should move only about 1/(n+1) of the points when a shard is added', () => {
    const before = ids.map((id) => [0, 1, 2][ringShard(id, [0, 1, 2])]);
    const after = ids.map((id) => [0, 1, 2, 3][ringShard(id, [0, 1, 2, 3])]);
    const moved = before.filter((shard, i) => shard !== after[i]).length;
    // Every point that moved went to the new shard.
    expect(before.every((shard, i) => shard === after[i] || after[i] === 3)).toBe(true);
    expect(moved / ids.length).toBeGreaterThan(0.15);
    expect(moved / ids.length).toBeLessThan(0.35);
  });

  it('should route by shard ids alone, the same on every call (and every peer)', () => {
    expect(ids.slice(0, 100).map((id) => ringShard(id, [3, 7]))).toEqual(
      ids.slice(0, 100).map((id) => ringShard(id, [3, 7])),
    );
    expect(ringShard('6f1e2d3c-0000-4000-8000-000000000001', [5])).toBe(0);
  });
});
