import type { PayloadIndexParams, PayloadSchemaType } from '@vectorstore/collections';
import { JsonObject } from '@vectorstore/common';
import { Condition, FieldCondition, Filter } from '../model/filter.model';
import { matchesFilter, PointView } from '../filter/filter-evaluator';
import { validateFilter } from '../filter/filter-validation';
import { PayloadIndexSet } from './payload-index-set';
import { PayloadGenerator } from './testing/random-payloads';
import { seeded } from '../../../../test/support/seeded-random';

const INDEXED: [string, PayloadSchemaType, PayloadIndexParams?][] = [
  ['kw', 'Keyword'],
  ['uuid', 'Uuid'],
  ['int', 'Integer'],
  ['flt', 'Float'],
  ['flag', 'Bool'],
  ['loc', 'Geo'],
  ['ts', 'Datetime'],
  [
    'txt',
    'Text',
    {
      text: {
        tokenizer: 'Word',
        phraseMatching: true,
        asciiFolding: true,
        stopwords: { languages: ['english'], custom: [] },
        stemmer: { snowball: { language: 'english' } },
      },
    },
  ],
  ['pre', 'Text', { text: { tokenizer: 'Prefix', minTokenLen: 2, maxTokenLen: 5 } }],
  ['obj.a.b', 'Keyword'],
  ['arr[].x', 'Integer'],
  ['arr[].y', 'Keyword'],
  ['arr[].t', 'Text', { text: { tokenizer: 'Whitespace', lowercase: true } }],
];

function views(payloads: JsonObject[]): PointView[] {
  return payloads.map((payload, slot) => ({ id: BigInt(slot), payload, hasVector: () => slot % 2 === 0 }));
}

function build(payloads: JsonObject[]): PayloadIndexSet {
  const set = new PayloadIndexSet((visit) => payloads.forEach((p, slot) => visit(slot, p)));
  for (const [field, type, params] of INDEXED) set.create(field, type, params);
  return set;
}

function trueSlots(filter: Filter, points: PointView[], set: PayloadIndexSet): number[] {
  const schemas = set.schemas();
  return points.filter((p) => matchesFilter(filter, p, schemas)).map((p) => Number(p.id));
}

describe(PayloadIndexSet.name, () => {
  const gen = new PayloadGenerator(seeded(20240611));
  const payloads = Array.from({ length: 2000 }, () => gen.payload());
  const points = views(payloads);
  const set = build(payloads);
  const total = payloads.length;

  describe('filter (per index)', () => {
    it('should equal the plain evaluator for every single condition an index answers', () => {
      let answered = 0;
      for (let i = 0; i < 300; i++) {
        const condition: FieldCondition = gen.fieldCondition();
        const index = set.get(condition.key);
        const slots = index?.filter(condition);
        if (slots === undefined) continue;
        answered++;
        const expected = trueSlots({ must: [{ field: condition }] }, points, set);
        expect({ condition, slots: [...slots] }).toEqual({ condition, slots: expected });
        const estimate = index!.estimate(condition)!;
        expect(estimate.min).toBeLessThanOrEqual(expected.length);
        expect(estimate.max).toBeGreaterThanOrEqual(expected.length);
      }
      expect(answered).toBeGreaterThan(150);
    });
  });

  describe('candidates / estimate', () => {
    it('should return a superset of the true matches and bracket their count', () => {
      let narrowed = 0;
      for (let i = 0; i < 200; i++) {
        const filter = gen.filter();
        validateFilter(filter);
        const expected = trueSlots(filter, points, set);
        const candidates = set.candidates(filter, total);
        if (candidates !== undefined) {
          narrowed++;
          const have = new Set(candidates);
          const missing = expected.filter((slot) => !have.has(slot));
          expect({ filter, missing }).toEqual({ filter, missing: [] });
          expect([...candidates]).toEqual([...candidates].sort((a, b) => a - b));
        }
        const estimate = set.estimate(filter, total);
        expect({
          filter,
          ok:
            estimate.min <= expected.length &&
            expected.length <= estimate.max &&
            estimate.min <= estimate.exp &&
            estimate.exp <= estimate.max,
        }).toEqual({
          filter,
          ok: true,
        });
      }
      expect(narrowed).toBeGreaterThan(40);
    });
  });

  describe('exactMatches', () => {
    it('should equal the plain evaluator whenever it answers', () => {
      let answered = 0;
      const rnd = new PayloadGenerator(seeded(5150));
      const simple = (): Filter => {
        const conditions = (n: number): Condition[] =>
          Array.from({ length: n }, () => ({ field: rnd.fieldCondition() }));
        const shape = Math.floor(rnd.random() * 4);
        if (shape === 0) return { must: conditions(1 + Math.floor(rnd.random() * 3)) };
        if (shape === 1) return { should: conditions(1 + Math.floor(rnd.random() * 3)) };
        if (shape === 2) return { must: conditions(1), should: conditions(2) };
        return { must: [{ filter: { should: conditions(2) } }, ...conditions(1)] };
      };
      for (let i = 0; i < 600; i++) {
        const filter = i % 2 === 0 ? simple() : gen.filter();
        const exact = set.exactMatches(filter);
        if (exact === undefined) continue;
        answered++;
        expect({ filter, slots: [...exact] }).toEqual({ filter, slots: trueSlots(filter, points, set) });
      }
      expect(answered).toBeGreaterThan(60);
    });

    it('should not answer filters with must_not, min_should or unindexed conditions', () => {
      const kw: Condition = { field: { key: 'kw', match: { keyword: 'a' } } };
      expect(set.exactMatches({ must: [kw] })).toBeDefined();
      expect(set.exactMatches({ must: [kw], mustNot: [kw] })).toBeUndefined();
      expect(set.exactMatches({ must: [kw], minShould: { conditions: [kw], minCount: 1 } })).toBeUndefined();
      expect(
        set.exactMatches({ must: [kw, { field: { key: 'not_indexed', match: { keyword: 'a' } } }] }),
      ).toBeUndefined();
      expect(set.exactMatches({ must: [kw, { hasId: [1n] }] })).toBeUndefined();
    });
  });

  describe('onUpsert / onDelete', () => {
    it('should keep indexes equal to a fresh build after overwrites and deletes', () => {
      const local = payloads.slice(0, 300);
      const live = build(local);
      const rnd = new PayloadGenerator(seeded(7));
      const current: (JsonObject | undefined)[] = [...local];
      for (let i = 0; i < 200; i++) {
        const slot = Math.floor(rnd.random() * local.length);
        if (rnd.chance(0.3)) {
          live.onDelete(slot);
          current[slot] = undefined;
        } else {
          const p = rnd.payload();
          live.onUpsert(slot, p);
          current[slot] = p;
        }
      }
      const fresh = new PayloadIndexSet((visit) => current.forEach((p, slot) => p !== undefined && visit(slot, p)));
      for (const [field, type, params] of INDEXED) fresh.create(field, type, params);
      for (let i = 0; i < 300; i++) {
        const c = rnd.fieldCondition();
        expect(live.get(c.key)?.filter(c)).toEqual(fresh.get(c.key)?.filter(c));
      }
      expect(live.info()).toEqual(fresh.info());
    });
  });

  describe('toBytes / fromBytes', () => {
    it('should restore indexes that answer exactly as before', () => {
      const restored = PayloadIndexSet.fromBytes(set.toBytes());
      expect(restored.info()).toEqual(set.info());
      const rnd = new PayloadGenerator(seeded(99));
      for (let i = 0; i < 200; i++) {
        const c = rnd.fieldCondition();
        expect(restored.get(c.key)?.filter(c)).toEqual(set.get(c.key)?.filter(c));
      }
    });
  });

  describe('info', () => {
    it('should report type, params and indexed points per field', () => {
      const small = build([{ kw: 'a' }, { kw: ['b', 'c'] }, { kw: null }, { int: 5n }]);
      expect(small.info().kw).toEqual({ type: 'Keyword', points: 2 });
      expect(small.info().int).toEqual({ type: 'Integer', points: 1 });
      expect(small.isIndexed('kw')).toBe(true);
      expect(small.drop('kw')).toBe(true);
      expect(small.isIndexed('kw')).toBe(false);
    });
  });

  describe('facet', () => {
    it('should count points per distinct value', () => {
      const small = build([{ kw: 'a' }, { kw: ['a', 'a', 'b'] }, { kw: 'b' }, { flag: [true, false] }]);
      expect(small.get('kw')!.facet!()).toEqual(
        new Map([
          ['a', 2],
          ['b', 2],
        ]),
      );
      expect(small.get('kw')!.facet!([1])).toEqual(
        new Map([
          ['a', 1],
          ['b', 1],
        ]),
      );
      expect(small.get('flag')!.facet!()).toEqual(
        new Map([
          [true, 1],
          [false, 1],
        ]),
      );
    });
  });

  describe('candidates', () => {
    it('should be undefined when no indexed condition narrows the filter', () => {
      const filter: Filter = {
        must: [{ isEmpty: { key: 'kw' } }],
        should: [{ field: { key: 'kw', match: { keyword: 'red' } } }, { hasId: [1n] }],
      };
      expect(set.candidates(filter, total)).toBeUndefined();
    });

    it('should narrow nested conditions through the flattened array key', () => {
      const nested: Condition = {
        nested: { key: 'arr', filter: { must: [{ field: { key: 'y', match: { keyword: 'teal' } } }] } },
      };
      const candidates = set.candidates({ must: [nested] }, total)!;
      expect(candidates).toBeDefined();
      expect([...candidates]).toEqual(
        trueSlots({ must: [{ field: { key: 'arr[].y', match: { keyword: 'teal' } } }] }, points, set),
      );
    });
  });
});
