import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { checksumOf } from '../file-checksum';
import { manifestText } from '../local-shard/manifest-file';
import { ReadPacer, scrubShard } from './shard-scrub';

describe('scrubShard (the background scrub of one shard)', () => {
  let dir: string;
  const data = Buffer.from(Array.from({ length: 3 << 20 }, (_, i) => (i * 31) & 0xff));

  /** A shard folder whose manifest lists `a.vec` (3 MiB) and `b.1.seg`, as written. */
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vs-scrub-'));
    fs.mkdirSync(path.join(dir, 'segments'));
    fs.writeFileSync(path.join(dir, 'segments', 'a.vec'), data);
    fs.writeFileSync(path.join(dir, 'segments', 'b.1.seg'), 'body');
    writeManifest([checksumOf('b.1.seg', Buffer.from('body')), checksumOf('a.vec', data)]);
  });

  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  const writeManifest = (files: ReturnType<typeof checksumOf>[]) =>
    fs.writeFileSync(
      path.join(dir, 'manifest.json'),
      manifestText({
        version: 1,
        persistedOpNum: 1,
        segments: [{ id: 'b', bodyVersion: 1, body: 'b.1.seg', files }],
        fieldIndexes: [],
      }),
    );
  const flip = (at: number) => {
    const fd = fs.openSync(path.join(dir, 'segments', 'a.vec'), 'r+');
    const byte = Buffer.alloc(1);
    fs.readSync(fd, byte, 0, 1, at);
    byte[0] ^= 0xff;
    fs.writeSync(fd, byte, 0, 1, at);
    fs.closeSync(fd);
  };
  const scrub = () => scrubShard(dir, new ReadPacer(0), () => false);

  it('should read every listed file and find nothing wrong in intact files', async () => {
    const result = await scrub();
    expect(result).toEqual({ files: 2, bytes: data.length + 4 });
  });

  it('should name a file with one flipped byte, past the first chunk', async () => {
    flip((1 << 20) + 4096);
    const result = await scrub();
    expect(result.damage?.message).toMatch(/a\.vec is damaged: checksum mismatch/);
  });

  it('should name a truncated or missing file', async () => {
    fs.truncateSync(path.join(dir, 'segments', 'a.vec'), 100);
    expect((await scrub()).damage?.message).toMatch(/a\.vec is damaged: 100 bytes where .* were written \(truncated\)/);
    fs.rmSync(path.join(dir, 'segments', 'a.vec'));
    expect((await scrub()).damage?.message).toMatch(/a\.vec is damaged: the file is missing/);
  });

  it('should not take a file the manifest no longer lists for damage (replaced by a merge meanwhile)', async () => {
    flip(10);
    // The manifest changes between the first read of the file and the check again: the file is no longer listed.
    const result = await scrubShard(
      dir,
      {
        account: async () => writeManifest([checksumOf('b.1.seg', Buffer.from('body'))]),
      } as unknown as ReadPacer,
      () => false,
    );
    expect(result.damage).toBeUndefined();
  });

  it('should name a damaged manifest', async () => {
    fs.writeFileSync(path.join(dir, 'manifest.json'), '{"torn');
    expect((await scrub()).damage?.message).toMatch(/manifest\.json is damaged/);
  });

  it('should pace its reads to the rate asked', async () => {
    const started = Date.now();
    await scrubShard(dir, new ReadPacer(8 << 20), () => false);
    // 3 MiB at 8 MiB/s: at least about 0.37 s (a bound on the pacing, not a speed target).
    expect(Date.now() - started).toBeGreaterThanOrEqual(300);
  });
});
