import { DamagedFileError } from '@vectorstore/common';
import { promises as fs, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { segmentFileName } from '../../wal/wal-files';
import { checksumOf } from '../file-checksum';
import { Segment, SegmentPoint } from '../segment';
import { VectorSpace } from '../vector-space';
import { LocalShard } from './local-shard';
import { Manifest } from './manifest-file';
import { loadListedSegment } from './segment-loading';
import { DENSE_SPACES, densePoint, openTestShard } from './shard.spec-helper';

const DISK_SPACES = new Map<string, VectorSpace>([
  ['', { ...(DENSE_SPACES.get('') as Extract<VectorSpace, { kind: 'dense' | 'multi' }>), onDisk: true }],
]);

function diskPoints(n: number): SegmentPoint[] {
  return Array.from({ length: n }, (_, i) => ({
    id: BigInt(i + 1),
    version: i + 1,
    payload: { n: `p${i}` },
    vectors: { '': { kind: 'dense', values: Float32Array.from([i, i / 2, 1, -i]) } },
  }));
}

async function flip(file: string, at: number): Promise<void> {
  const bytes = await fs.readFile(file);
  bytes[at < 0 ? bytes.length + at : at] ^= 0x01;
  await fs.writeFile(file, bytes);
}

async function readManifest(dir: string): Promise<Manifest & { checksum?: string }> {
  return JSON.parse(await fs.readFile(path.join(dir, 'manifest.json'), 'utf8')) as Manifest & { checksum?: string };
}

describe('checksums of shard files', () => {
  let dir: string;

  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'vs-checksums-'));
  });

  afterEach(async () => {
    await fs.rm(dir, { recursive: true, force: true });
  });

  /** A shard with points 1..n flushed and closed; returns its body file. */
  async function flushedShard(n = 20): Promise<string> {
    const shard = await openTestShard(dir);
    for (let id = 1; id <= n; id++) await shard.update({ upsert: { points: [densePoint(id, { n: `${id}` })] } });
    await shard.close();
    const manifest = await readManifest(dir);
    return path.join(dir, 'segments', manifest.segments[0].body);
  }

  /** The log as a restored snapshot leaves it: empty, continuing after the manifest's op, so it cannot rebuild. */
  async function logPastOpOne(): Promise<void> {
    const { persistedOpNum } = await readManifest(dir);
    await fs.rm(path.join(dir, 'wal'), { recursive: true });
    await fs.mkdir(path.join(dir, 'wal'));
    await fs.writeFile(path.join(dir, 'wal', segmentFileName(persistedOpNum + 1)), '');
  }

  async function expectPoints(shard: LocalShard, n: number): Promise<void> {
    expect(shard.pointCount).toBe(n);
    for (let id = 1; id <= n; id++) {
      const found = shard.find(BigInt(id))!;
      const vector = found.segment.pointVectors(found.slot)[''] as { values: Float32Array };
      expect(Array.from(vector.values)).toEqual([id, 1, 0, 0]);
      expect(found.segment.payload(found.slot)).toEqual({ n: `${id}` });
    }
  }

  it('should seal the manifest and record the size and crc32 of every file it lists', async () => {
    const body = await flushedShard();
    const manifest = await readManifest(dir);
    expect(manifest.checksum).toMatch(/^crc32:[0-9a-f]{8}$/);
    const data = await fs.readFile(body);
    expect(manifest.segments[0].files).toEqual([checksumOf(path.basename(body), data)]);
  });

  it('should refuse a flipped byte in a segment body, naming it, when the log no longer holds op 1', async () => {
    const body = await flushedShard();
    await logPastOpOne();
    await flip(body, -20);
    const opened = openTestShard(dir);
    await expect(opened).rejects.toBeInstanceOf(DamagedFileError);
    await expect(opened).rejects.toThrow(
      new RegExp(
        `^${body.replace(/[.]/g, '\\.')} is damaged: checksum mismatch .*; the shard cannot be rebuilt from its write-ahead log, which holds no operation while the segments held ops 1 to 20`,
      ),
    );
    // Nothing was removed: the damaged file is still there for whoever repairs it.
    await expect(fs.stat(body)).resolves.toBeDefined();
  });

  it('should refuse a torn manifest, naming it', async () => {
    await flushedShard();
    await logPastOpOne();
    const manifest = path.join(dir, 'manifest.json');
    await fs.truncate(manifest, 30);
    await expect(openTestShard(dir)).rejects.toThrow(`${manifest} is damaged: not valid JSON`);
  });

  it.each([
    ['a flipped byte in its body', (body: string) => flip(body, -20)],
    ['a torn body', (body: string) => fs.truncate(body, 10)],
    ['a flipped digit in its manifest', () => flip(path.join(dir, 'manifest.json'), -3)],
    ['a missing body', (body: string) => fs.rm(body)],
  ])('should rebuild the shard from a log holding every operation after %s', async (_case, damage) => {
    const body = await flushedShard();
    await damage(body);
    const shard = await openTestShard(dir);
    await expectPoints(shard, 20);
    // Flushed at once: the next open finds intact files (and the damaged body is gone).
    await shard.close();
    const names = await fs.readdir(path.join(dir, 'segments'));
    expect(names).not.toContain(path.basename(body));
    const reopened = await openTestShard(dir);
    await expectPoints(reopened, 20);
    await reopened.close();
  });

  it('should take a manifest and body written before checksums as they are, and record checksums at the next flush', async () => {
    const body = await flushedShard();
    const sealed = await readManifest(dir);
    const old = { ...sealed, segments: sealed.segments.map(({ files: _files, ...rest }) => rest) };
    delete old.checksum;
    await fs.writeFile(path.join(dir, 'manifest.json'), JSON.stringify(old, null, 2));
    const shard = await openTestShard(dir);
    await expectPoints(shard, 20);
    await shard.flush(); // nothing changed but the format
    await shard.close();
    const upgraded = await readManifest(dir);
    expect(upgraded.checksum).toMatch(/^crc32:/);
    expect(upgraded.segments[0].files).toEqual([checksumOf(path.basename(body), await fs.readFile(body))]);
  });

  describe('vector and payload files', () => {
    async function diskSegment(): Promise<{ entry: Manifest['segments'][0]; vec: string; pay: string }> {
      const built = Segment.build(DISK_SPACES, diskPoints(50), [], 'seg-c');
      const bytes = await built.saveToDisk(dir, { payloads: true, vectors: new Set(['']) });
      built.dispose();
      await fs.writeFile(path.join(dir, 'seg-c.0.seg'), bytes);
      const loaded = Segment.load(bytes, DISK_SPACES, dir);
      const sideFiles = [...loaded.sideFiles];
      loaded.dispose();
      expect(sideFiles.map((f) => f.file).sort()).toEqual(['seg-c.pay', 'seg-c.vec']);
      return {
        entry: {
          id: 'seg-c',
          bodyVersion: 0,
          body: 'seg-c.0.seg',
          files: [checksumOf('seg-c.0.seg', bytes), ...sideFiles],
        },
        vec: path.join(dir, 'seg-c.vec'),
        pay: path.join(dir, 'seg-c.pay'),
      };
    }

    it('should load a segment whose files match their checksums', async () => {
      const { entry } = await diskSegment();
      const { segment, upgraded } = await loadListedSegment(dir, entry, DISK_SPACES);
      expect(segment.pointCount).toBe(50);
      expect(upgraded).toBe(false);
      segment.dispose();
    });

    it.each([
      [
        'a flipped byte in the vector file',
        ({ vec }: { vec: string }) => flip(vec, 7),
        /seg-c\.vec is damaged: checksum mismatch/,
      ],
      [
        'a flipped byte in the payload file',
        ({ pay }: { pay: string }) => flip(pay, 3),
        /seg-c\.pay is damaged: checksum mismatch/,
      ],
      [
        'a torn vector file',
        ({ vec }: { vec: string }) => fs.truncate(vec, 64),
        /seg-c\.vec is damaged: 64 bytes where \d+ were written \(truncated\)/,
      ],
      [
        'a missing payload file',
        ({ pay }: { pay: string }) => fs.rm(pay),
        /seg-c\.pay is damaged: the file is missing/,
      ],
    ])('should refuse %s before reading from it', async (_case, damage, named) => {
      const files = await diskSegment();
      await damage(files);
      await expect(loadListedSegment(dir, files.entry, DISK_SPACES)).rejects.toThrow(named);
    });

    it('should checksum the files of a segment listed without checksums (an older version) and say so', async () => {
      const { entry } = await diskSegment();
      const { segment, files, upgraded } = await loadListedSegment(
        dir,
        { id: entry.id, bodyVersion: 0, body: entry.body },
        DISK_SPACES,
      );
      expect(upgraded).toBe(true);
      expect(files.map((f) => f.file).sort()).toEqual(entry.files!.map((f) => f.file).sort());
      expect(files.sort((a, b) => (a.file < b.file ? -1 : 1))).toEqual(
        [...entry.files!].sort((a, b) => (a.file < b.file ? -1 : 1)),
      );
      segment.dispose();
    });
  });
});
