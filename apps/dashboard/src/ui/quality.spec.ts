import { parseEfList, precisionAtK, vectorOf } from './quality';

describe('search quality', () => {
  it('should read hnsw_ef lists', () => {
    expect(parseEfList('64, 16 32,16')).toEqual({ values: [16, 32, 64] });
    expect(parseEfList('').error).toMatch(/^At least one/);
    expect(parseEfList('8, 1.5').error).toBe('Whole numbers of 1 or more');
  });

  it('should average the share of the exact top k found, per query', () => {
    const p = (...ids: (number | bigint)[]) => ids.map((id) => ({ id }));
    expect(precisionAtK([p(1, 2, 3, 4), p(5, 6)], [p(1, 2, 9, 4), p(6, 7)])).toBe((3 / 4 + 1 / 2) / 2);
    expect(precisionAtK([p(18446744073709551615n)], [p(18446744073709551615n)])).toBe(1);
    expect(precisionAtK([p(), p(1)], [p(), p(2)])).toBe(0);
    expect(precisionAtK([p()], [p()])).toBe(1);
  });

  it('should take the named vector, or the default one', () => {
    expect(vectorOf({ id: 1, vector: [1, 2] }, '')).toEqual([1, 2]);
    expect(vectorOf({ id: 1, vector: { text: [3] } }, 'text')).toEqual([3]);
    expect(vectorOf({ id: 1, vector: { text: [3] } }, '')).toBeUndefined();
  });
});
