// Bounded memory: writing and reading back a ~200 MB snapshot must not grow the process's resident memory by
// more than 64 MiB (everything is streamed through fixed-size buffers; no file is ever held whole).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { readSnapshot } from './snapshot-reader';
import { writeSnapshot } from './snapshot-writer';
import { makeTempDir, pseudoRandomBytes, removeTempDir } from './testing/snapshot-fixtures';

const MiB = 1024 * 1024;
const FILE_COUNT = 4;
const FILE_MIB = 50; // 4 x 50 MiB = 200 MiB of files
const LIMIT_MIB = 64;

/** Peak resident memory while `run` runs, sampled every 10 ms. */
async function peakRss<T>(run: () => Promise<T>): Promise<{ result: T; peak: number }> {
  let peak = process.memoryUsage().rss;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 10);
  try {
    const result = await run();
    peak = Math.max(peak, process.memoryUsage().rss);
    return { result, peak };
  } finally {
    clearInterval(timer);
  }
}

describe('snapshot memory', () => {
  let dir: string;

  beforeAll(() => {
    dir = makeTempDir('vs-snap-memory-');
    const chunk = pseudoRandomBytes(MiB, 5);
    for (let file = 0; file < FILE_COUNT; file++) {
      const fd = fs.openSync(path.join(dir, `segment-${file}.seg`), 'w');
      for (let i = 0; i < FILE_MIB; i++) {
        chunk.writeUInt32LE(file * FILE_MIB + i, 0); // every MiB differs
        fs.writeSync(fd, chunk);
      }
      fs.closeSync(fd);
    }
  });

  afterAll(() => removeTempDir(dir));

  it(`should write and read back a ${FILE_COUNT * FILE_MIB} MiB snapshot with under ${LIMIT_MIB} MiB of RSS growth`, async () => {
    const baseline = process.memoryUsage().rss;
    const started = Date.now();

    const write = await peakRss(() =>
      writeSnapshot({
        dir: path.join(dir, 'snapshots'),
        name: 'big-1-2024-07-22-08-31-55.snapshot',
        kind: 'collection',
        peerId: '1',
        collections: ['big'],
        files: Array.from({ length: FILE_COUNT }, (_, file) => ({
          archivePath: `collection/shards/0/segments/segment-${file}.seg`,
          sourcePath: path.join(dir, `segment-${file}.seg`),
        })),
      }),
    );
    const wrote = Date.now();
    const read = await peakRss(() =>
      readSnapshot(write.result.path, { extractParent: path.join(dir, 'work'), maxTotalBytes: 1024 * MiB }),
    );
    const finished = Date.now();

    const growth = (peak: number) => ((peak - baseline) / MiB).toFixed(1);
    console.log(
      `snapshot memory: archive ${(write.result.size / MiB).toFixed(1)} MiB; RSS baseline ${(baseline / MiB).toFixed(1)} MiB, ` +
        `growth while writing ${growth(write.peak)} MiB (${wrote - started} ms), ` +
        `while reading ${growth(read.peak)} MiB (${finished - wrote} ms)`,
    );
    expect(write.result.size).toBeGreaterThan(FILE_COUNT * FILE_MIB * MiB);
    expect(read.result.manifest.files.map((file) => file.size)).toEqual(Array(FILE_COUNT).fill(FILE_MIB * MiB));
    expect(fs.statSync(path.join(read.result.dir, 'collection/shards/0/segments/segment-3.seg')).size).toBe(
      FILE_MIB * MiB,
    );
    expect(write.peak - baseline).toBeLessThan(LIMIT_MIB * MiB);
    expect(read.peak - baseline).toBeLessThan(LIMIT_MIB * MiB);
  }, 300_000);
});
