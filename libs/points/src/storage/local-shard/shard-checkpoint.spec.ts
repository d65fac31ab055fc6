import { promises as fs, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { segmentFileName } from '../../wal/wal-files';
import { LocalShard } from './local-shard';
import { densePoint, openTestShard } from './shard.spec-helper';

const open = (dir: string): Promise<LocalShard> => openTestShard(dir);
const point = (id: number) => densePoint(id);

describe('LocalShard.checkpoint', () => {
  let dir: string;

  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'vs-checkpoint-'));
  });

  afterEach(async () => {
    await fs.rm(dir, { recursive: true, force: true });
  });

  it('should keep exactly the state at the checkpoint however the shard changes afterwards', async () => {
    const shard = await open(path.join(dir, 'live'));
    for (let id = 1; id <= 20; id++) await shard.update({ upsert: { points: [point(id)] } });
    await shard.flush();
    await shard.update({ deletePoints: { selector: { ids: [1n, 2n] } } });
    await shard.update({ upsert: { points: [point(21)] } });
    const copy = path.join(dir, 'copy');
    await shard.checkpoint(copy);
    // Later writes and flushes replace and remove the live files; the links keep their bytes.
    await shard.update({ deletePoints: { selector: { ids: [3n] } } });
    await shard.update({ upsert: { points: [point(22)] } });
    await shard.flush();
    await shard.close();

    const manifest = JSON.parse(await fs.readFile(path.join(copy, 'manifest.json'), 'utf8')) as {
      persistedOpNum: number;
    };
    expect(manifest.persistedOpNum).toBe(22);
    await fs.mkdir(path.join(copy, 'wal'));
    await fs.writeFile(path.join(copy, 'wal', segmentFileName(manifest.persistedOpNum + 1)), '');
    const restored = await open(copy);
    expect(restored.pointCount).toBe(19);
    expect(restored.find(1n)).toBeUndefined();
    expect(restored.find(3n)).toBeDefined();
    expect(restored.find(21n)).toBeDefined();
    expect(restored.find(22n)).toBeUndefined();
    // Writes continue the op numbering.
    expect(await restored.update({ upsert: { points: [point(30)] } })).toBe(23);
    await restored.close();
  });

  it('should copy an empty, never flushed shard as a manifest with no points', async () => {
    const shard = await open(path.join(dir, 'live'));
    const copy = path.join(dir, 'copy');
    await shard.checkpoint(copy);
    await shard.close();
    const restored = await open(copy);
    expect(restored.pointCount).toBe(0);
    await restored.close();
  });
});
