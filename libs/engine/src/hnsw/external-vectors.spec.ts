// External vectors: an index saved with { vectors: false } keeps graph, bookkeeping and quantized codes in
// memory; the caller keeps the rows (exportRows) and rescores searchCandidates with scoreRows.
import {
  Datatype,
  Distance,
  EngineInputError,
  QuantizationConfig,
  SearchParams,
  SearchResult,
  VectorIndex,
} from '../index';
import { Rng } from '../../../../test/support/seeded-random';

/** n random vectors: uniform in -1..1, or whole numbers 0..255 for uint8 storage. */
function randomVectors(n: number, dim: number, datatype: Datatype, seed: number): Float32Array[] {
  const rng = new Rng(seed);
  const u8 = datatype === 'uint8';
  return Array.from({ length: n }, () =>
    u8 ? Float32Array.from({ length: dim }, () => rng.below(256)) : rng.floats(dim, -1, 1),
  );
}

/** Queries: fractional values in the data's range, so scores do not tie. */
function randomQueries(n: number, dim: number, datatype: Datatype, seed: number): Float32Array[] {
  const rng = new Rng(seed);
  return Array.from({ length: n }, () => (datatype === 'uint8' ? rng.floats(dim, 0, 255) : rng.floats(dim, -1, 1)));
}

const higher = (d: Distance): boolean => d === 'Cosine' || d === 'Dot';

/** The k best of (slots, scores) in the index's score convention. */
function topK(
  distance: Distance,
  slots: ArrayLike<number>,
  scores: ArrayLike<number>,
  k: number,
): { slots: number[]; scores: number[] } {
  const order = Array.from({ length: slots.length }, (_, i) => i).sort((a, b) =>
    higher(distance) ? scores[b] - scores[a] : scores[a] - scores[b],
  );
  const best = order.slice(0, k);
  return { slots: best.map((i) => slots[i]), scores: best.map((i) => scores[i]) };
}

/** Rows of the given slots out of a full exportRows() copy. */
function gather(all: Uint8Array, slots: ArrayLike<number>, rowBytes: number): Uint8Array {
  const out = new Uint8Array(slots.length * rowBytes);
  for (let i = 0; i < slots.length; i++)
    out.set(all.subarray(slots[i] * rowBytes, (slots[i] + 1) * rowBytes), i * rowBytes);
  return out;
}

interface Setup {
  readonly full: VectorIndex;
  readonly ext: VectorIndex;
  readonly rows: Uint8Array;
  readonly queries: Float32Array[];
}

function setup(
  n: number,
  dim: number,
  distance: Distance,
  datatype: Datatype,
  quantization: QuantizationConfig | undefined,
  seed: number,
  fullScanThreshold = 10000,
): Setup {
  const full = new VectorIndex({
    dim,
    distance,
    datatype,
    quantization,
    m: 16,
    efConstruct: 64,
    ef: 64,
    seed,
    fullScanThreshold,
  });
  full.add(randomVectors(n, dim, datatype, seed));
  if (quantization) full.quantize();
  const ext = quantization ? VectorIndex.load(full.save({ vectors: false })) : full;
  return { full, ext, rows: full.exportRows(), queries: randomQueries(20, dim, datatype, seed + 1) };
}

/** Storage's side of a search: candidates from the index, rows from "disk", rescored, k best kept. */
function rescoredSearch(
  s: Setup,
  q: Float32Array,
  k: number,
  params: Omit<SearchParams, 'k'> = {},
): { slots: number[]; scores: number[] } {
  const c = s.ext.searchCandidates(q, { ...params, k: k * 4 });
  const scores = s.ext.scoreRows(q, c.slots, gather(s.rows, c.slots, s.ext.rowBytes));
  return topK(s.ext.config.distance, c.slots, scores, k);
}

function expectSameResult(actual: { slots: number[]; scores: number[] }, expected: SearchResult): void {
  expect(actual.slots).toEqual(Array.from(expected.slots));
  expect(actual.scores.length).toBe(expected.scores.length);
  actual.scores.forEach((x, i) => expect(Math.abs(x - expected.scores[i])).toBeLessThanOrEqual(1e-5));
}

const INT8: QuantizationConfig = { scalar: { quantile: 0.99 } };

describe('VectorIndex with external vectors', () => {
  describe('float32 Cosine, 5000 x 64, int8', () => {
    const s = setup(5000, 64, 'Cosine', 'float32', INT8, 7, 100);
    const K = 10;

    it('should load without vectors and hold no memory for them', () => {
      expect(s.full.hasVectors).toBe(true);
      expect(s.ext.hasVectors).toBe(false);
      expect(s.ext.rowBytes).toBe(64 * 4);
      expect(s.rows.length).toBe(5000 * s.ext.rowBytes);
      const reloaded = VectorIndex.load(s.full.save());
      expect(reloaded.hasVectors).toBe(true);
      expect(reloaded.memoryBytes - s.ext.memoryBytes).toBeGreaterThanOrEqual(0.9 * 5000 * s.ext.rowBytes);
      expect(s.full.memoryBytes - s.ext.memoryBytes).toBeGreaterThanOrEqual(0.9 * 5000 * s.ext.rowBytes);
      expect(s.full.bytesPerVector - s.ext.bytesPerVector).toBeCloseTo(s.ext.rowBytes + 4, 5);
      expect(s.ext.size).toBe(5000);
    });

    it('should give the same top k as the full index search with oversampling 4', () => {
      for (const q of s.queries) {
        expectSameResult(
          rescoredSearch(s, q, K, { ef: 64 }),
          s.full.search(q, { k: K, ef: 64, quantization: { oversampling: 4 } }),
        );
        expectSameResult(
          rescoredSearch(s, q, K, { exact: true }),
          s.full.search(q, { k: K, exact: true, quantization: { oversampling: 4 } }),
        );
      }
    });

    it('should reach recall@10 >= 0.95 against the exact result', () => {
      let hits = 0;
      for (const q of s.queries) {
        const truth = new Set(s.full.exactSearch(q, K).slots);
        for (const slot of rescoredSearch(s, q, K, { ef: 128 }).slots) if (truth.has(slot)) hits++;
      }
      expect(hits / (s.queries.length * K)).toBeGreaterThanOrEqual(0.95);
    });

    it('should return int8 candidate scores close to the exact ones', () => {
      const q = s.queries[0];
      const c = s.ext.searchCandidates(q, { k: 40 });
      const exact = s.ext.scoreRows(q, c.slots, gather(s.rows, c.slots, s.ext.rowBytes));
      for (let i = 0; i < c.slots.length; i++) expect(Math.abs(c.scores[i] - exact[i])).toBeLessThan(0.05);
      for (let i = 1; i < c.slots.length; i++) expect(c.scores[i]).toBeLessThanOrEqual(c.scores[i - 1]);
    });

    it('should equal exactSearch when scoring every row (chunked)', () => {
      const all = Uint32Array.from({ length: 5000 }, (_, i) => i);
      for (const q of s.queries.slice(0, 3)) {
        const scores = s.ext.scoreRows(q, all, s.rows);
        expectSameResult(topK('Cosine', all, scores, K), s.full.exactSearch(q, K));
      }
    });

    // fullScanThreshold is 100 KB: every 3rd slot (1667 x 256 B = 417 KB) takes the graph, every 20th
    // (250 x 256 B = 62 KB) the exact scan
    it.each([3, 20])('should honour allowed (every %d-th slot)', (every) => {
      const bitmap = new Uint8Array(Math.ceil(5000 / 8));
      for (let i = 0; i < 5000; i += every) bitmap[i >>> 3] |= 1 << (i & 7);
      const allowed = (slot: number): boolean => slot % every === 0;
      for (const q of s.queries.slice(0, 5)) {
        const c = s.ext.searchCandidates(q, { k: 40, allowed: bitmap });
        expect(c.slots.length).toBe(40);
        for (const slot of c.slots) expect(slot % every).toBe(0);
        expect(Array.from(s.ext.searchCandidates(q, { k: 40, allowed }).slots)).toEqual(Array.from(c.slots));
        expectSameResult(
          rescoredSearch(s, q, K, { allowed }),
          s.full.search(q, { k: K, allowed, quantization: { oversampling: 4 } }),
        );
      }
    });

    it('should never return deleted slots and round-trip its deletes', () => {
      const ext = VectorIndex.load(s.ext.save({ vectors: false }));
      const dropped = Array.from({ length: 500 }, (_, i) => i * 10);
      ext.delete(dropped);
      expect(ext.deletedCount).toBe(500);
      expect(ext.isDeleted(10)).toBe(true);
      expect(ext.isDeleted(11)).toBe(false);
      const again = VectorIndex.load(ext.save({ vectors: false }));
      expect(again.hasVectors).toBe(false);
      expect(again.deletedCount).toBe(500);
      for (const idx of [ext, again]) {
        for (const q of s.queries.slice(0, 5)) {
          for (const exact of [false, true]) {
            const c = idx.searchCandidates(q, { k: 40, exact });
            expect(c.slots.length).toBe(40);
            for (const slot of c.slots) expect(slot % 10 === 0).toBe(false);
          }
        }
      }
      const q = s.queries[0];
      expect(Array.from(again.searchCandidates(q, { k: 20 }).slots)).toEqual(
        Array.from(ext.searchCandidates(q, { k: 20 }).slots),
      );
      expect(again.memoryBytes).toBe(ext.memoryBytes);
    });
  });

  describe.each<[Distance, Datatype, number, QuantizationConfig]>([
    ['Euclid', 'float32', 50, INT8],
    ['Dot', 'float16', 45, INT8],
    ['Cosine', 'uint8', 64, INT8],
    ['Euclid', 'uint8', 32, { product: { compression: 'x8' } }],
    ['Cosine', 'float16', 64, { binary: { encoding: 'two_bits', queryEncoding: 'scalar8bits' } }],
  ])('%s %s dim %d', (distance, datatype, dim, quantization) => {
    const n = 1500;
    const s = setup(n, dim, distance, datatype, quantization, dim * 31 + datatype.length);
    const all = Uint32Array.from({ length: n }, (_, i) => i);

    it('should score rows as scoreSlots does and decode them as getVector does', () => {
      expect(s.ext.rowBytes).toBe(s.full.rowBytes);
      expect(s.ext.rowBytes).toBe(Math.ceil(dim / 16) * 16 * { float32: 4, float16: 2, uint8: 1 }[datatype]);
      const slots = [0, 7, 1499, 42, 7, 800];
      for (const q of s.queries.slice(0, 3)) {
        expect(Array.from(s.ext.scoreRows(q, slots, gather(s.rows, slots, s.ext.rowBytes)))).toEqual(
          Array.from(s.full.scoreSlots(q, slots)),
        );
      }
      for (const slot of slots) {
        const row = s.rows.subarray(slot * s.ext.rowBytes, (slot + 1) * s.ext.rowBytes);
        expect(Array.from(s.ext.decodeRow(slot, row))).toEqual(Array.from(s.full.getVector(slot)));
        expect(Array.from(s.full.decodeRow(slot, row))).toEqual(Array.from(s.full.getVector(slot)));
      }
      expect(Array.from(s.full.exportRows(7, 2))).toEqual(
        Array.from(s.rows.subarray(7 * s.ext.rowBytes, 9 * s.ext.rowBytes)),
      );
    });

    it('should equal exactSearch when scoring every row', () => {
      for (const q of s.queries.slice(0, 3)) {
        expectSameResult(topK(distance, all, s.ext.scoreRows(q, all, s.rows), 10), s.full.exactSearch(q, 10));
      }
    });

    it('should give the same top k as the full index search with oversampling 4', () => {
      for (const q of s.queries) {
        expectSameResult(rescoredSearch(s, q, 10), s.full.search(q, { k: 10, quantization: { oversampling: 4 } }));
        expectSameResult(
          rescoredSearch(s, q, 10, { exact: true }),
          s.full.search(q, { k: 10, exact: true, quantization: { oversampling: 4 } }),
        );
      }
    });

    it('should traverse the codes even when asked to ignore quantization', () => {
      const q = s.queries[0];
      const withIgnore = s.ext.searchCandidates(q, { k: 20, quantization: { ignore: true } });
      expect(Array.from(withIgnore.slots)).toEqual(Array.from(s.ext.searchCandidates(q, { k: 20 }).slots));
      // on the full index, ignore means candidates on the originals with exact scores
      const exact = s.full.searchCandidates(q, { k: 10, exact: true, quantization: { ignore: true } });
      const truth = s.full.exactSearch(q, 10);
      expect(Array.from(exact.slots)).toEqual(Array.from(truth.slots));
      expect(Array.from(exact.scores)).toEqual(Array.from(truth.scores));
    });
  });

  it('should clear row padding the caller did not zero', () => {
    const s = setup(200, 20, 'Euclid', 'float32', INT8, 3);
    const slots = [1, 2, 3];
    const rows = gather(s.rows, slots, s.ext.rowBytes);
    const f32 = new Float32Array(rows.buffer);
    for (let i = 0; i < 3; i++) f32.fill(1e6, i * 32 + 20, (i + 1) * 32);
    expect(Array.from(s.ext.scoreRows(s.queries[0], slots, rows))).toEqual(
      Array.from(s.full.scoreSlots(s.queries[0], slots)),
    );
  });

  describe('errors', () => {
    const s = setup(300, 16, 'Dot', 'float32', INT8, 5);
    const q = s.queries[0];

    it('should refuse save({ vectors: false }) without a quantizer', () => {
      const plain = new VectorIndex({ dim: 16, distance: 'Dot' });
      plain.add(randomVectors(50, 16, 'float32', 1));
      expect(() => plain.save({ vectors: false })).toThrow(EngineInputError);
      const empty = new VectorIndex({ dim: 16, distance: 'Dot', quantization: INT8 });
      expect(() => empty.save({ vectors: false })).toThrow(EngineInputError);
    });

    it('should train a configured quantizer on save({ vectors: false })', () => {
      const lazy = new VectorIndex({ dim: 16, distance: 'Dot', quantization: INT8 });
      lazy.add(randomVectors(50, 16, 'float32', 1));
      expect(lazy.quantization).toBeUndefined();
      const ext = VectorIndex.load(lazy.save({ vectors: false }));
      expect(ext.quantization).toEqual(INT8);
      expect(ext.searchCandidates(q, { k: 5 }).slots.length).toBe(5);
    });

    it('should refuse what needs the vectors on an index without them', async () => {
      const ext = s.ext;
      const refused: [string, () => unknown][] = [
        ['add', () => ext.add([q])],
        ['addVector', () => ext.addVector(q)],
        ['getVector', () => ext.getVector(0)],
        ['scoreSlots', () => ext.scoreSlots(q, [0])],
        ['quantize', () => ext.quantize()],
        ['exactSearch', () => ext.exactSearch(q, 5)],
        ['search', () => ext.search(q, { k: 5 })],
        ['save', () => ext.save()],
        ['exportRows', () => ext.exportRows()],
      ];
      for (const [name, call] of refused) {
        expect(call).toThrow(EngineInputError);
        expect(call).toThrow(new RegExp(`^${name}: this index keeps its vectors outside memory`));
      }
      expect(() => ext.search(q, { k: 5 })).toThrow(/use searchCandidates and scoreRows/);
      await expect(ext.searchAsync(q, { k: 5 })).rejects.toThrow(EngineInputError);
      await expect(ext.searchAsync(q, { k: 5 })).rejects.toThrow(/use searchCandidates and scoreRows/);
      expect(ext.size).toBe(300);
      await ext.dispose();
    });

    it('should validate scoreRows and decodeRow input', () => {
      expect(() => s.ext.scoreRows(q, [0, 1], new Uint8Array(s.ext.rowBytes))).toThrow(EngineInputError);
      expect(() => s.ext.scoreRows(q, [300], new Uint8Array(s.ext.rowBytes))).toThrow(EngineInputError);
      expect(() => s.ext.scoreRows(q.subarray(1), [0], new Uint8Array(s.ext.rowBytes))).toThrow(EngineInputError);
      expect(s.ext.scoreRows(q, [], new Uint8Array(0)).length).toBe(0);
      expect(() => s.ext.decodeRow(0, new Uint8Array(3))).toThrow(EngineInputError);
      expect(() => s.full.exportRows(299, 2)).toThrow(EngineInputError);
    });

    it('should keep full saves in format 1 and mark saves without vectors as format 2', () => {
      const format = (b: Uint8Array): number => new DataView(b.buffer, b.byteOffset).getUint32(4, true);
      expect(format(s.full.save())).toBe(1);
      const bytes = s.full.save({ vectors: false });
      expect(format(bytes)).toBe(2);
      expect(bytes.length).toBeLessThan(s.full.save().length - 0.9 * 300 * s.full.rowBytes);
      const forged = bytes.slice();
      new DataView(forged.buffer).setUint32(4, 1, true);
      expect(() => VectorIndex.load(forged)).toThrow(EngineInputError);
    });
  });
});
