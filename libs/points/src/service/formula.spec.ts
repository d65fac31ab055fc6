import { DomainError, JsonObject } from '@vectorstore/common';
import { Candidate } from './candidate';
import { expressionInputs, FormulaQuery, scoreByFormula } from './formula';

const candidate = (key: string, payload: JsonObject, city = false): Candidate =>
  ({
    key,
    score: 0,
    location: { slot: 0, segment: { payload: () => payload, matches: () => city } },
  }) as unknown as Candidate;

const score = (formula: FormulaQuery, c: Candidate, scores: Array<Map<string, number>> = [new Map([[c.key, 0.5]])]) =>
  scoreByFormula(formula, [c], scores)[0].score;

describe('scoreByFormula', () => {
  it("should combine prefetch scores, payload numbers and conditions as Qdrant's operators", () => {
    const c = candidate('1', { price: 10, tags: [2] }, true);
    const scores = [new Map([['1', 0.5]]), new Map([['1', 2]])];
    const formula: FormulaQuery = {
      expression: {
        sum: [
          { mult: [{ variable: '$score' }, { constant: 2 }] },
          { variable: '$score[1]' },
          { div: { left: { variable: 'price' }, right: { sum: [{ constant: 1 }, { abs: { variable: 'price' } }] } } },
          { condition: { field: { key: 'city', match: { keyword: 'x' } } } },
          { variable: 'tags' },
        ],
      },
      defaults: {},
    };
    expect(scoreByFormula(formula, [c], scores)[0].score).toBeCloseTo(1 + 2 + 10 / 11 + 1 + 2, 5);
  });

  it('should use defaults for missing or null values, and refuse a value that is not a number', () => {
    expect(score({ expression: { variable: 'price' }, defaults: { price: 3 } }, candidate('1', { price: null }))).toBe(
      3,
    );
    expect(() => score({ expression: { variable: 'price' }, defaults: {} }, candidate('1', {}))).toThrow(DomainError);
    expect(() => score({ expression: { variable: 'name' }, defaults: {} }, candidate('1', { name: 'x' }))).toThrow(
      'Value is not a number',
    );
  });

  it('should return 0 for 0 / x, the by-zero default for x / 0, and refuse non-finite results', () => {
    const div = (left: number, right: number, byZeroDefault?: number) =>
      score(
        { expression: { div: { left: { constant: left }, right: { constant: right }, byZeroDefault } }, defaults: {} },
        candidate('1', {}),
      );
    expect(div(0, 0)).toBe(0);
    expect(div(1, 0, 7)).toBe(7);
    expect(() => div(1, 0)).toThrow('non-finite');
    expect(() => score({ expression: { ln: { constant: -1 } }, defaults: {} }, candidate('1', {}))).toThrow(
      'non-finite',
    );
  });

  it("should decay as Qdrant: 1 at the target, the midpoint at one scale's distance", () => {
    for (const kind of ['exp', 'gauss', 'lin'] as const) {
      const decay = (x: number) =>
        score(
          { expression: { decay: { kind, x: { constant: x }, scale: 2, midpoint: 0.3 } }, defaults: {} },
          candidate('1', {}),
        );
      expect(decay(0)).toBeCloseTo(1, 6);
      expect(decay(2)).toBeCloseTo(0.3, 6);
    }
  });
});

describe('expressionInputs', () => {
  it('should list the payload keys read and conditions tested, not $score', () => {
    const condition = { field: { key: 'city', match: { keyword: 'x' } } };
    expect(
      expressionInputs({
        sum: [
          { variable: '$score' },
          { variable: 'price' },
          { condition },
          { geoDistance: { origin: { lat: 0, lon: 0 }, to: 'loc' } },
        ],
      }),
    ).toEqual({ keys: ['price', 'loc'], conditions: [condition] });
  });
});
