import { promises as fs, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { serialize } from 'node:v8';
import { DomainError, ErrorKind } from '@vectorstore/common';
import { UpdateOperation } from '../../model/operations.model';
import { WriteAheadLog } from '../../wal/write-ahead-log';
import { densePoint as point, openTestShard } from './shard.spec-helper';
import { WalReplayError } from './shard-wal';

const LOG = { segmentCapacityBytes: 1 << 20, segmentsAhead: 0, retainClosed: 1 };

describe('ShardWal', () => {
  let dir: string;

  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'vs-shard-wal-'));
  });

  afterEach(async () => {
    await fs.rm(dir, { recursive: true, force: true });
  });

  /** Cuts `bytes` off the end of the newest WAL segment: a torn last record. */
  async function tearLastRecord(bytes: number): Promise<void> {
    const walDir = path.join(dir, 'wal');
    const segments = (await fs.readdir(walDir)).filter((name) => /^\d{20}\.wal$/.test(name)).sort();
    const newest = path.join(walDir, segments[segments.length - 1]);
    const { size } = await fs.stat(newest);
    await fs.truncate(newest, size - bytes);
  }

  describe('op numbers after a torn tail', () => {
    it('should number the next write past every op the segments hold when the torn record was flushed', async () => {
      const shard = await openTestShard(dir);
      for (let id = 1; id <= 3; id++) expect(await shard.update({ upsert: { points: [point(id)] } })).toBe(id);
      await shard.close(); // flushes: the segments hold ops 1..3
      await tearLastRecord(5); // op 3's record is now torn

      const reopened = await openTestShard(dir);
      expect(reopened.lastApplied).toBe(3);
      expect(await reopened.update({ upsert: { points: [point(4)] } })).toBe(4);
      expect(reopened.failure).toBeUndefined();
      expect(reopened.pointCount).toBe(4);
      await reopened.close();

      const again = await openTestShard(dir);
      expect(again.pointCount).toBe(4);
      expect(await again.update({ upsert: { points: [point(5)] } })).toBe(5);
      await again.close();
    });
  });

  it('should number the next write past the flushed ops when the whole log is gone', async () => {
    const shard = await openTestShard(dir);
    for (let id = 1; id <= 3; id++) await shard.update({ upsert: { points: [point(id)] } });
    await shard.close();
    await fs.rm(path.join(dir, 'wal'), { recursive: true });

    const reopened = await openTestShard(dir);
    expect(await reopened.update({ upsert: { points: [point(4)] } })).toBe(4);
    await reopened.close();
    const again = await openTestShard(dir);
    expect(again.pointCount).toBe(4);
    expect(await again.update({ deletePoints: { selector: { ids: [1n] } } })).toBe(5);
    await again.close();
  });

  describe('an operation of an unknown shape', () => {
    const unknownShapes: Array<[string, unknown, string]> = [
      ['an unknown kind', { frobnicate: { points: [] } }, '`frobnicate`'],
      ['two kinds at once', { upsert: { points: [] }, clearPayload: { selector: { ids: [] } } }, '2 fields'],
      ['no kind', {}, 'no field'],
      ['a body that is no object', { deletePoints: 7 }, '`deletePoints` must be an object'],
    ];

    it.each(unknownShapes)('should be refused before it is logged: %s', async (_, operation, named) => {
      const shard = await openTestShard(dir);
      await shard.update({ upsert: { points: [point(1)] } });
      const refused = shard.update(operation as UpdateOperation);
      await expect(refused).rejects.toBeInstanceOf(DomainError);
      await expect(refused).rejects.toMatchObject({ kind: ErrorKind.InvalidArgument });
      await expect(refused).rejects.toThrow(named);
      // Not logged, the shard still healthy, and no op number spent on it.
      expect(shard.failure).toBeUndefined();
      expect(await shard.update({ upsert: { points: [point(2)] } })).toBe(2);
      await shard.close();
      const log = await WriteAheadLog.open({ dir: path.join(dir, 'wal'), ...LOG });
      const logged = [];
      for await (const record of log.readFrom(1)) logged.push(record.opNum);
      await log.close();
      expect(logged).toEqual([1, 2]);
    });

    it('should be refused with a clock tag too, and a later write with that tag is taken', async () => {
      const shard = await openTestShard(dir);
      const tag = { peer: 'p1', incarnation: 'i1', seq: 1 };
      await expect(shard.update({ nope: {} } as unknown as UpdateOperation, tag)).rejects.toThrow('`nope`');
      expect(await shard.update({ upsert: { points: [point(1)] } }, tag)).toBe(1);
      // Sent again, the tag is now held: not applied twice.
      expect(await shard.update({ upsert: { points: [point(2)] } }, tag)).toBe(1);
      expect(shard.pointCount).toBe(1);
      await shard.close();
    });
  });

  describe('a record replay cannot decode', () => {
    /** Writes ops 1..2 through a shard (flushed), then appends `data` raw as op 3 and a good upsert as op 4. */
    async function logWith(data: Uint8Array): Promise<void> {
      const shard = await openTestShard(dir);
      await shard.update({ upsert: { points: [point(1)] } });
      await shard.update({ upsert: { points: [point(2)] } });
      await shard.close();
      const log = await WriteAheadLog.open({ dir: path.join(dir, 'wal'), ...LOG });
      expect(await log.append(data)).toBe(3);
      expect(await log.append(serialize({ v: 1, operation: { upsert: { points: [point(4)] } } }))).toBe(4);
      await log.close();
    }

    const undecodable: Array<[string, Uint8Array, string]> = [
      ['an operation of an unknown kind', serialize({ v: 1, operation: { frobnicate: {} } }), '`frobnicate`'],
      ['a record format of a newer version', serialize({ v: 3, operation: { clearPayload: {} } }), 'format 3'],
      ['bytes that are no structured clone', Buffer.from('not a clone at all'), 'not a structured clone'],
      [
        'a malformed clock tag',
        serialize({ v: 2, operation: { deletePoints: { selector: { ids: [] } } }, tag: { peer: 1 } }),
        'malformed clock tag',
      ],
    ];

    it.each(undecodable)('should stop the shard from opening, naming the file and op: %s', async (_, data, why) => {
      await logWith(data);
      const opening = openTestShard(dir);
      await expect(opening).rejects.toBeInstanceOf(WalReplayError);
      await expect(opening).rejects.toMatchObject({ opNum: 3 });
      const error = (await opening.catch((e: unknown) => e)) as WalReplayError;
      expect(error.file).toBe(path.join(dir, 'wal', '00000000000000000001.wal'));
      expect(error.message).toContain('op 3');
      expect(error.message).toContain(error.file);
      expect(error.message).toContain(why);
      // Nothing was repaired away: the next open refuses the same way (the log is left as it was for an operator).
      await expect(openTestShard(dir)).rejects.toThrow(`op 3 in ${error.file}`);
    });
  });
});
