import { colourKeys, OTHER_COLOUR, pca2 } from './pca';

describe('pca2', () => {
  it('should put points of a line in 3-D along the first axis, at their distances', () => {
    const direction = [1, 2, 2].map((x) => x / 3);
    const rows = [-2, -1, 0, 1, 2].map((t) => direction.map((d) => 5 + t * d));
    const projected = pca2(rows);
    expect(projected.map(([x]) => x)).toEqual([-2, -1, 0, 1, 2].map((t) => expect.closeTo(t, 9) as unknown));
    for (const [, y] of projected) expect(y).toBeCloseTo(0, 9);
  });

  it('should order the axes by variance, and be deterministic', () => {
    const rows = Array.from({ length: 50 }, (_, i) => [Math.cos(i) * 10, Math.sin(i) * 1, (i % 3) * 0.01]);
    const projected = pca2(rows);
    const spread = (k: 0 | 1): number =>
      Math.max(...projected.map((p) => p[k])) - Math.min(...projected.map((p) => p[k]));
    expect(spread(0)).toBeGreaterThan(spread(1) * 5);
    expect(pca2(rows)).toEqual(projected);
    expect(pca2([])).toEqual([]);
  });
});

describe('colourKeys', () => {
  it('should colour the most frequent values first and grey the rest', () => {
    const values = ['b', 'a', 'a', ...Array.from({ length: 10 }, (_, i) => `v${i}`)];
    const keys = colourKeys(values);
    expect(keys[0]).toMatchObject({ key: 'a', count: 2 });
    expect(keys[1]).toMatchObject({ key: 'b', count: 1 });
    expect(keys.filter((k) => k.colour === OTHER_COLOUR)).toHaveLength(keys.length - 9);
  });
});
