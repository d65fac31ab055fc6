import { EngineInputError, MultiVectorIndex, SparseIndex, reference } from '@vectorstore/engine';
import { seeded } from '../support/seeded-random';

describe(MultiVectorIndex.name, () => {
  const rnd = seeded(5);
  const dim = 17;
  const docs = Array.from({ length: 300 }, () =>
    Array.from({ length: 1 + Math.floor(rnd() * 5) }, () => Array.from({ length: dim }, () => rnd() * 2 - 1)),
  );
  const query = Array.from({ length: 3 }, () => Array.from({ length: dim }, () => rnd() * 2 - 1));

  function maxSimRef(distance: 'Dot' | 'Cosine' | 'Euclid' | 'Manhattan', q: number[][], doc: number[][]): number {
    const sim = (a: number[], b: number[]) =>
      distance === 'Dot'
        ? reference.dotRef(a, b)
        : distance === 'Cosine'
          ? reference.cosineRef(a, b)
          : distance === 'Euclid'
            ? -reference.l2sqRef(a, b)
            : -reference.l1Ref(a, b);
    return q.reduce((s, qi) => s + Math.max(...doc.map((d) => sim(qi, d))), 0);
  }

  describe('search', () => {
    it.each(['Dot', 'Cosine', 'Euclid', 'Manhattan'] as const)(
      'should rank by MaxSim like the reference (%s)',
      (distance) => {
        const index = new MultiVectorIndex({ dim, distance });
        index.add(docs);
        const r = index.search(query, 10);
        const truth = docs
          .map((d, slot) => ({ slot, score: maxSimRef(distance, query, d) }))
          .sort((a, b) => b.score - a.score)
          .slice(0, 10);
        expect(Array.from(r.slots)).toEqual(truth.map((t) => t.slot));
        r.scores.forEach((s, i) => expect(s).toBeCloseTo(truth[i].score, 4));
      },
    );

    it('should honour deletes and filters', () => {
      const index = new MultiVectorIndex({ dim, distance: 'Dot' });
      index.add(docs);
      const best = index.search(query, 1).slots[0];
      index.delete([best]);
      expect(Array.from(index.search(query, 300).slots)).not.toContain(best);
      expect(Array.from(index.search(query, 300, (s) => s % 2 === 0).slots).every((s) => s % 2 === 0)).toBe(true);
    });

    it('should reject bad input', () => {
      const index = new MultiVectorIndex({ dim, distance: 'Dot' });
      expect(() => index.add([[]])).toThrow(EngineInputError);
      expect(() => index.add([[[1, 2]]])).toThrow('multivector 0: vector 0: expected dimension 17, got 2');
    });
  });
});

describe(SparseIndex.name, () => {
  const rnd = seeded(8);
  const vecs = Array.from({ length: 500 }, () => {
    const idx = new Set<number>();
    while (idx.size < 8) idx.add(Math.floor(rnd() * 200));
    const indices = [...idx];
    return { indices, values: indices.map(() => rnd()) };
  });
  const dense = (v: { indices: number[]; values: number[] }) => {
    const d = new Array(200).fill(0);
    v.indices.forEach((ix, i) => (d[ix] = v.values[i]));
    return d;
  };

  describe('search', () => {
    it('should equal a dense dot product over matching documents', () => {
      const index = new SparseIndex();
      index.add(vecs);
      const q = vecs[7];
      const r = index.search(q, 10);
      const truth = vecs
        .map((v, slot) => ({ slot, score: reference.dotRef(dense(q), dense(v)) }))
        .filter((t) => t.score !== 0)
        .sort((a, b) => b.score - a.score || a.slot - b.slot)
        .slice(0, 10);
      expect(Array.from(r.slots)).toEqual(truth.map((t) => t.slot));
      r.scores.forEach((s, i) => expect(s).toBeCloseTo(truth[i].score, 4));
    });

    it('should weight by IDF with the idf modifier and skip deleted slots', () => {
      const index = new SparseIndex({ modifier: 'idf' });
      index.add([
        { indices: [1, 2], values: [1, 1] },
        { indices: [1], values: [1] },
        { indices: [1, 3], values: [1, 1] },
      ]);
      // dimension 2 is rarer than 1, so document 0 wins for a query on both
      expect(Array.from(index.search({ indices: [1, 2], values: [1, 1] }, 3).slots)).toEqual([0, 1, 2]);
      index.delete([0]);
      expect(Array.from(index.search({ indices: [1, 2], values: [1, 1] }, 3).slots)).toEqual([1, 2]);
    });

    it('should take IDF from corpus statistics when given, so a split corpus scores like one index', () => {
      const docs = [
        { indices: [1, 2], values: [1, 1] },
        { indices: [1], values: [2] },
        { indices: [1, 3], values: [1, 1] },
        { indices: [2, 3], values: [0.5, 1] },
      ];
      const whole = new SparseIndex({ modifier: 'idf' });
      whole.add(docs);
      const parts = [new SparseIndex({ modifier: 'idf' }), new SparseIndex({ modifier: 'idf' })];
      parts[0].add(docs.slice(0, 1));
      parts[1].add(docs.slice(1));
      const corpus = {
        documents: parts[0].liveCount + parts[1].liveCount,
        frequency: (dim: number) => parts[0].documentFrequency(dim) + parts[1].documentFrequency(dim),
      };
      const query = { indices: [1, 2, 3], values: [1, 1, 1] };
      const expected = whole.search(query, 4);
      const split = [
        ...parts[0].search(query, 4, undefined, corpus).scores,
        ...parts[1].search(query, 4, undefined, corpus).scores,
      ].sort((a, b) => b - a);
      split.forEach((score, i) => expect(score).toBeCloseTo(expected.scores[i], 6));
      // without the corpus, the one-document part weighs its dimensions differently
      expect(parts[0].search(query, 1).scores[0]).not.toBeCloseTo(expected.scores[expected.slots.indexOf(0)], 3);
    });

    it('should reject malformed vectors', () => {
      const index = new SparseIndex();
      expect(() => index.add([{ indices: [1, 1], values: [1, 2] }])).toThrow('sparse vector 0: index 1 is duplicated');
      expect(() => index.add([{ indices: [1], values: [NaN] }])).toThrow(EngineInputError);
      expect(() => index.add([{ indices: [1, 2], values: [1] }])).toThrow(EngineInputError);
    });
  });
});
