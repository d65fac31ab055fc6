import { promises as fs, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { VectorSpace } from '../vector-space';
import { DENSE_SPACES, openTestShard } from './shard.spec-helper';

// A vector name deleted in cluster mode while a peer was down: the peer opens its shard with a config that no
// longer has the name, but its segment files still hold the vectors. They must be written again without them, so
// that the name created again later does not bring the old vectors back.
const space = DENSE_SPACES.get('')!;
const withB = new Map<string, VectorSpace>([
  ['a', { ...space, name: 'a' }],
  ['b', { ...space, name: 'b' }],
]);
const withoutB = new Map([...withB].filter(([name]) => name === 'a'));

describe('a shard opened without a vector name its files still hold', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'vs-unconfigured-'));
  });
  afterEach(() => fs.rm(dir, { recursive: true, force: true }));

  const vectorsOfB = (segments: readonly { vectorStore(name: string): { count: number } | undefined }[]) =>
    segments.reduce((sum, segment) => sum + (segment.vectorStore('b')?.count ?? 0), 0);

  it('should write its segments again without them at the next flush, so the name comes back empty', async () => {
    let shard = await openTestShard(dir, { spaces: withB });
    const vector = (x: number) => ({ kind: 'dense' as const, values: Float32Array.from([x, 1, 0, 0]) });
    await shard.update({
      upsert: {
        points: [1, 2, 3].map((id) => ({ id: BigInt(id), vectors: { a: vector(id), b: vector(-id) }, payload: {} })),
      },
    });
    await shard.flush();
    expect(vectorsOfB(shard.segments)).toBe(3);
    await shard.close();

    shard = await openTestShard(dir, { spaces: withoutB });
    expect(vectorsOfB(shard.segments)).toBe(0);
    await shard.flush();
    await shard.close();

    shard = await openTestShard(dir, { spaces: withB });
    expect(vectorsOfB(shard.segments)).toBe(0);
    expect(shard.pointCount).toBe(3);
    await shard.close();
  });
});
