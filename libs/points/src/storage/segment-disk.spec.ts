import { promises as fs, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { JsonObject } from '@vectorstore/common';
import { Filter } from '../model/filter.model';
import { DiskPayloads } from './disk-payloads';
import { Segment, SegmentPoint } from './segment';
import { collectColumns, denseDimsOf } from './segment-columns';
import { SegmentFile } from './segment-file';
import { VectorSpace } from './vector-space';
import { seeded } from '../../../../test/support/seeded-random';

const DIM = 24;

function space(
  name: string,
  distance: 'Cosine' | 'Euclid' | 'Dot',
  datatype: 'float32' | 'float16' | 'uint8' = 'float32',
): VectorSpace {
  return {
    name,
    kind: 'dense',
    dim: DIM,
    distance,
    datatype,
    hnsw: { m: 16, efConstruct: 64, fullScanThreshold: 10, maxIndexingThreads: 1 },
    onDisk: true,
  };
}

function points(n: number, names: readonly string[], datatype: 'float32' | 'uint8' = 'float32'): SegmentPoint[] {
  const next = seeded(7);
  return Array.from({ length: n }, (_, i) => {
    const vectors: SegmentPoint['vectors'] = {};
    for (const name of names) {
      const values = Float32Array.from({ length: DIM }, () =>
        datatype === 'uint8' ? Math.floor(next() * 256) : next() * 2 - 1,
      );
      vectors[name] = { kind: 'dense', values };
    }
    const payload: JsonObject =
      i % 5 === 0 ? {} : { group: `g${i % 7}`, big: 9007199254740993n + BigInt(i), nested: { n: i } };
    return { id: BigInt(i + 1), version: i + 1, payload, vectors };
  });
}

const GROUP_FILTER: Filter = { must: [{ field: { key: 'group', match: { keyword: 'g3' } } }] };

describe('on-disk segments', () => {
  let dir: string;

  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'vs-disk-segment-'));
  });

  afterEach(async () => {
    await fs.rm(dir, { recursive: true, force: true });
  });

  async function diskCopy(spaces: Map<string, VectorSpace>, data: SegmentPoint[], vectors: string[], payloads = true) {
    const memory = Segment.build(spaces, data, [], 'seg-a');
    const onDisk = Segment.build(spaces, data, [], 'seg-a');
    const body = await onDisk.saveToDisk(dir, { payloads, vectors: new Set(vectors) });
    return { memory, disk: Segment.load(body, spaces, dir) };
  }

  it('should keep vectors and payloads in files and give them back unchanged', async () => {
    const spaces = new Map([
      ['', space('', 'Cosine')],
      ['e', space('e', 'Euclid')],
    ]);
    const data = points(300, ['', 'e']);
    const { memory, disk } = await diskCopy(spaces, data, ['', 'e']);
    expect(await fs.readdir(dir)).toEqual(expect.arrayContaining(['seg-a.vec', 'seg-a.pay']));
    expect(disk.vectorsOnDisk).toBe(true);
    expect(disk.payloadsOnDisk).toBe(true);
    for (const slot of [0, 1, 4, 5, 150, 299]) {
      expect(disk.payload(slot)).toEqual(memory.payload(slot));
      const got = disk.pointVectors(slot);
      const want = memory.pointVectors(slot);
      for (const name of ['', 'e']) {
        expect(Array.from((got[name] as { values: Float32Array }).values)).toEqual(
          Array.from((want[name] as { values: Float32Array }).values),
        );
      }
    }
    expect(disk.payloadBytes).toBe(memory.payloadBytes);
    // the optimizer's input, read in bulk from the files
    expect(disk.livePoints()).toEqual(memory.livePoints());
  });

  it.each([
    ['Cosine', 'float32'],
    ['Euclid', 'float32'],
    ['Dot', 'uint8'],
  ] as const)(
    'should answer %s/%s exact searches as brute force and approximate ones with high recall',
    async (distance, datatype) => {
      const spaces = new Map([['', space('', distance, datatype)]]);
      const data = points(2000, [''], datatype === 'uint8' ? 'uint8' : 'float32');
      const { memory, disk } = await diskCopy(spaces, data, ['']);
      const next = seeded(99);
      let found = 0;
      for (let q = 0; q < 20; q++) {
        const query = {
          kind: 'dense' as const,
          values: Float32Array.from({ length: DIM }, () => (datatype === 'uint8' ? next() * 255 : next() * 2 - 1)),
        };
        const exactDisk = disk.search('', query, 10, undefined, { exact: true });
        const exactMemory = memory.search('', query, 10, undefined, { exact: true });
        expect(Array.from(exactDisk.slots)).toEqual(Array.from(exactMemory.slots));
        for (let i = 0; i < 10; i++) expect(exactDisk.scores[i]).toBeCloseTo(exactMemory.scores[i], 4);
        const approx = disk.search('', query, 10, undefined, undefined);
        const truth = new Set(exactMemory.slots);
        found += Array.from(approx.slots).filter((s) => truth.has(s)).length;
        // scores of approximate hits are exact scores, not quantized ones
        const scored = memory.vectorStore('')!.score(query, approx.slots);
        for (let i = 0; i < approx.slots.length; i++) expect(approx.scores[i]).toBeCloseTo(scored.scores[i], 4);
      }
      expect(found / 200).toBeGreaterThanOrEqual(0.95);
    },
  );

  it('should filter on payloads read from the file, and honour deletes', async () => {
    const spaces = new Map([['', space('', 'Euclid')]]);
    const data = points(500, ['']);
    const { memory, disk } = await diskCopy(spaces, data, ['']);
    expect(disk.matchingSlots(GROUP_FILTER)).toEqual(memory.matchingSlots(GROUP_FILTER));
    const query = data[42].vectors[''];
    disk.delete(1000, 42);
    const hits = disk.search('', query, 5, disk.filterPredicate(undefined), undefined);
    expect(Array.from(hits.slots)).not.toContain(42);
    const exact = disk.search('', query, 5, disk.filterPredicate(GROUP_FILTER), { exact: true });
    for (const slot of exact.slots) expect(disk.payload(slot).group).toBe('g3');
    expect(disk.pointCount).toBe(499);
  });

  it('should scan small filtered sets exactly on the originals, as in memory below full_scan_threshold', async () => {
    const spaces = new Map([['', space('', 'Cosine')]]);
    const data = points(2000, ['']);
    const { memory, disk } = await diskCopy(spaces, data, ['']);
    // g3 holds about 230 points of 2000: above the 106 that 10 KB of 24-d vectors covers; g3 with an id range is below
    const few: Filter = { must: [GROUP_FILTER.must![0], { field: { key: 'nested.n', range: { lt: 700 } } }] };
    const next = seeded(5);
    for (let q = 0; q < 30; q++) {
      const query = { kind: 'dense' as const, values: Float32Array.from({ length: DIM }, () => next() * 2 - 1) };
      // no oversampling: a walk on the codes would return their top 10, which differs from the exact one
      const got = disk.search('', query, 10, disk.filterPredicate(few), { quantization: { oversampling: 1 } });
      const want = memory.search('', query, 10, memory.filterPredicate(few), { exact: true });
      expect(Array.from(got.slots)).toEqual(Array.from(want.slots));
    }
  });

  it('should refuse to load a segment whose vector or payload file is truncated', async () => {
    const spaces = new Map([['', space('', 'Dot')]]);
    const built = Segment.build(spaces, points(100, ['']), [], 'seg-t');
    const body = await built.saveToDisk(dir, { payloads: true, vectors: new Set(['']) });
    const vec = path.join(dir, 'seg-t.vec');
    const size = (await fs.stat(vec)).size;
    await fs.truncate(vec, size - 1);
    expect(() => Segment.load(body, spaces, dir)).toThrow(/seg-t\.vec is damaged: .* bytes, but the vectors/);
    await fs.truncate(vec, size + 0);
    await fs.truncate(path.join(dir, 'seg-t.pay'), 10);
    expect(() => Segment.load(body, spaces, dir)).toThrow(/seg-t\.pay is damaged: 10 bytes, but its payloads need/);
  });

  it('should keep the graph and codes in memory but not the original vectors', async () => {
    // Same int8 codes in both, so the only difference is where the original vectors are.
    const spaces = new Map<string, VectorSpace>([
      ['', { ...space('', 'Euclid'), quantization: { scalar: { type: 'Int8' } } } as VectorSpace],
    ]);
    const data = points(3000, ['']);
    const memory = Segment.build(spaces, data, [], 'seg-m');
    (memory.vectorStore('') as unknown as { index: { quantize(): void } }).index.quantize();
    const onDisk = Segment.build(spaces, data, [], 'seg-d');
    const body = await onDisk.saveToDisk(dir, { payloads: false, vectors: new Set(['']) });
    const vectorFile = await fs.stat(path.join(dir, 'seg-d.vec'));
    // the saved body no longer carries the rows: they are in the file
    expect(body.length).toBeLessThan(memory.save().length - vectorFile.size * 0.9);
    const loaded = Segment.load(body, spaces, dir);
    expect(loaded.payloadsOnDisk).toBe(false);
  });

  it.each([
    [{ binary: {} }, 'binary'],
    [{ product: { compression: 'x4' } }, 'product'],
    [{ scalar: { type: 'Int8', quantile: 0.5 } }, 'scalar'],
  ] as const)(
    'should walk the graph on the configured %j quantization, not the internal int8',
    async (quantization, kind) => {
      const spaces = new Map<string, VectorSpace>([['', { ...space('', 'Cosine'), quantization } as VectorSpace]]);
      const { disk } = await diskCopy(spaces, points(400, ['']), ['']);
      const store = disk.vectorStore('') as unknown as {
        index: { quantization: object };
        layout: { internalQuantization: boolean };
      };
      expect(Object.keys(store.index.quantization)).toEqual([kind]);
      expect(store.layout.internalQuantization).toBe(false);
    },
  );

  it('should be reloadable after its body is saved again (flush of deletes keeps the files)', async () => {
    const spaces = new Map([['', space('', 'Dot')]]);
    const data = points(200, ['']);
    const { disk } = await diskCopy(spaces, data, ['']);
    disk.delete(500, 3);
    const again = Segment.load(disk.save(), spaces, dir);
    expect(again.pointCount).toBe(199);
    expect(again.slotOf(4n)).toBeUndefined();
    expect(again.payload(5)).toEqual(disk.payload(5));
    expect(Array.from((again.pointVectors(7)[''] as { values: Float32Array }).values)).toEqual(
      Array.from((disk.pointVectors(7)[''] as { values: Float32Array }).values),
    );
  });

  it('should rebuild from the columns of several segments, on disk or not, with every live point', async () => {
    const spaces = new Map<string, VectorSpace>([
      ['', space('', 'Cosine')],
      ['s', { name: 's', kind: 'sparse', idf: false }],
    ]);
    const data = points(200, ['']).map((p, i) => ({
      ...p,
      vectors:
        i % 3 === 0
          ? {
              ...p.vectors,
              s: {
                kind: 'sparse' as const,
                indices: Uint32Array.from([i, i + 1]),
                values: Float32Array.from([1, 0.5]),
              },
            }
          : p.vectors,
    }));
    const inMemory = Segment.build(spaces, data.slice(0, 100), [], 'seg-m');
    const onDisk = Segment.load(
      await Segment.build(spaces, data.slice(100), [], 'seg-d').saveToDisk(dir, {
        payloads: true,
        vectors: new Set(['']),
      }),
      spaces,
      dir,
    );
    onDisk.delete(999, onDisk.slotOf(150n)!);
    const rebuilt = Segment.buildFromColumns(
      spaces,
      collectColumns([inMemory, onDisk], denseDimsOf(spaces)),
      [],
      'seg-r',
    );
    expect(rebuilt.livePoints()).toEqual([...inMemory.livePoints(), ...onDisk.livePoints()]);
    expect(rebuilt.pointCount).toBe(199);
    expect(rebuilt.slotOf(150n)).toBeUndefined();
  });

  it('should refuse to load a body that keeps data in files without a folder', async () => {
    const spaces = new Map([['', space('', 'Dot')]]);
    const { disk } = await diskCopy(spaces, points(20, ['']), ['']);
    expect(() => Segment.load(disk.save(), spaces)).toThrow(/no folder/);
  });
});

describe(DiskPayloads.name, () => {
  it('should give back each record, empty ones included, by slot and in block scans', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'vs-payloads-'));
    try {
      const payloads: Array<JsonObject | undefined> = Array.from({ length: 5000 }, (_, i) =>
        i % 3 === 0 ? undefined : { i: BigInt(i), text: 'x'.repeat(i % 700), f: i + 0.5 },
      );
      // what the text encoding must not confuse: exact 64-bit integers at any depth, strings that
      // look like its tags, a "__proto__" key, integral doubles, non-ASCII text
      const tricky = JSON.parse('{"__proto__": {"a": 1}}') as JsonObject;
      tricky.__proto__ = { n: -9223372036854775808n, s: '\u0000i12', t: '\u0000s', u: '\u0000' };
      payloads[1] = { ...tricky, list: [1n, [2n, { deep: 18446744073709551615n }], 'ü€😀', 2.0, null, true] };
      payloads[2] = { plain: 'no tags here', double: 3.0 };
      const { body, offsets } = DiskPayloads.encode(payloads, payloads.length);
      await fs.writeFile(path.join(dir, 'p'), body);
      const store = new DiskPayloads(SegmentFile.open(path.join(dir, 'p')), offsets);
      expect(store.get(0)).toBeUndefined();
      expect(store.get(4999)).toEqual(payloads[4999]);
      const got = store.get(1)!;
      expect(got).toEqual(payloads[1]);
      expect(Object.getPrototypeOf(got)).toBe(Object.prototype);
      expect(Object.hasOwn(got, '__proto__')).toBe(true);
      expect(typeof (got.list as JsonObject[])[3]).toBe('number');
      const seen: Array<JsonObject | undefined> = [];
      store.scan((slot, payload) => (seen[slot] = payload));
      expect(seen).toEqual(payloads);
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  });
});

describe(SegmentFile.name, () => {
  it('should read rows in the order asked, coalescing neighbours, and refuse reads past the end', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'vs-file-'));
    try {
      const bytes = Uint8Array.from({ length: 64 * 4 }, (_, i) => i % 251);
      await fs.writeFile(path.join(dir, 'f'), bytes);
      const file = SegmentFile.open(path.join(dir, 'f'));
      const rows = [5, 6, 7, 2, 63, 0, 1];
      const got = file.readRows(0, 4, rows);
      rows.forEach((row, i) =>
        expect(Array.from(got.subarray(i * 4, i * 4 + 4))).toEqual(Array.from(bytes.subarray(row * 4, row * 4 + 4))),
      );
      expect(() => file.read(250, 8)).toThrow(/past the end/);
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  });
});
