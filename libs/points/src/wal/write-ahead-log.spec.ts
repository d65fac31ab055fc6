import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { injectFaults, stopFaultInjection } from '@vectorstore/persistence';
import { recordFor } from './testing/deterministic-record';
import { WalError } from './wal.errors';
import { RECORD_HEADER_BYTES } from './wal-record';
import { NODE_WAL_IO, WalOptions, WriteAheadLog } from './write-ahead-log';

const nodeIo = NODE_WAL_IO;

describe(WriteAheadLog.name, () => {
  let dir: string;
  const opened: WriteAheadLog[] = [];

  const options = (overrides: Partial<WalOptions> = {}): WalOptions => ({
    dir,
    segmentCapacityBytes: 2048,
    segmentsAhead: 0,
    retainClosed: 1,
    ...overrides,
  });
  const open = async (overrides: Partial<WalOptions> = {}): Promise<WriteAheadLog> => {
    const wal = await WriteAheadLog.open(options(overrides));
    opened.push(wal);
    return wal;
  };
  const readAll = async (wal: WriteAheadLog, from = 1): Promise<Array<{ opNum: number; data: Uint8Array }>> => {
    const records = [];
    for await (const record of wal.readFrom(from)) records.push(record);
    return records;
  };
  const segmentFiles = async (): Promise<string[]> =>
    (await fs.readdir(dir)).filter((name) => /^\d{20}\.wal$/.test(name)).sort();
  const appendMany = async (wal: WriteAheadLog, from: number, to: number): Promise<void> => {
    for (let op = from; op <= to; op++) expect(await wal.append(recordFor(op, 300))).toBe(op);
  };
  const expectRecords = (records: Array<{ opNum: number; data: Uint8Array }>, from: number, to: number): void => {
    expect(records.map((r) => r.opNum)).toEqual(Array.from({ length: to - from + 1 }, (_, i) => from + i));
    for (const record of records)
      expect(Buffer.from(record.data).equals(Buffer.from(recordFor(record.opNum, 300)))).toBe(true);
  };

  beforeEach(async () => {
    dir = path.join(await fs.mkdtemp(path.join(os.tmpdir(), 'wal-spec-')), 'shard', 'wal');
  });

  afterEach(async () => {
    await Promise.all(opened.splice(0).map((wal) => wal.close().catch(() => undefined)));
    await fs.rm(path.dirname(path.dirname(dir)), { recursive: true, force: true });
  });

  describe('open', () => {
    it('should create the folder and start an empty log at op 1', async () => {
      const wal = await open();

      expect(wal.firstOpNum).toBeUndefined();
      expect(wal.lastOpNum).toBeUndefined();
      expect(wal.recovery).toMatchObject({ clean: true, droppedBytes: 0, droppedSegments: 0 });
      expect(await wal.append(new Uint8Array([1]))).toBe(1);
      expect(await segmentFiles()).toEqual(['00000000000000000001.wal']);
    });

    it('should pre-create segmentsAhead spare files and keep that many after rolls', async () => {
      const wal = await open({ segmentsAhead: 2 });
      const spares = async (): Promise<string[]> => (await fs.readdir(dir)).filter((name) => name.startsWith('ahead-'));

      expect(await spares()).toHaveLength(2);
      for (const spare of await spares()) expect((await fs.stat(path.join(dir, spare))).size).toBe(2048);
      await appendMany(wal, 1, 60);
      await wal.close();

      expect((await segmentFiles()).length).toBeGreaterThan(3);
      expect(await spares()).toHaveLength(2);
      expect(wal.stats().aheadSegments).toBe(2);
    });

    it('should reuse spare files of the configured size and replace the others', async () => {
      await (await open({ segmentsAhead: 3 })).close();
      await fs.truncate(path.join(dir, 'ahead-1.wal'), 100);

      await open({ segmentsAhead: 2 });

      expect((await fs.readdir(dir)).filter((name) => name.startsWith('ahead-')).sort()).toEqual([
        'ahead-2.wal',
        'ahead-3.wal',
      ]);
    });

    it('should continue op numbers and keep every record after a reopen', async () => {
      const first = await open();
      await appendMany(first, 1, 40);
      await first.close();

      const second = await open();
      expect(second.firstOpNum).toBe(1);
      expect(second.lastOpNum).toBe(40);
      await appendMany(second, 41, 50);
      await second.close();

      const third = await open();
      expect(third.recovery.clean).toBe(true);
      expectRecords(await readAll(third), 1, 50);
    });

    it('should recover to the prefix when the last segment is cut mid-record', async () => {
      const wal = await open();
      await appendMany(wal, 1, 30);
      await wal.close();
      const files = await segmentFiles();
      const last = path.join(dir, files[files.length - 1]);
      const size = (await fs.stat(last)).size;
      await fs.truncate(last, size - 7);

      const reopened = await open();

      expect(reopened.recovery).toMatchObject({ clean: false, droppedSegments: 0 });
      expect(reopened.recovery.droppedBytes).toBeGreaterThan(0);
      expect(reopened.lastOpNum).toBe(29);
      expectRecords(await readAll(reopened), 1, 29);
      expect(await reopened.append(recordFor(30, 300))).toBe(30);
      await reopened.close();
      const again = await open();
      expect(again.recovery.clean).toBe(true);
      expectRecords(await readAll(again), 1, 30);
    });

    it('should keep nothing after a flipped byte, deleting the later segments', async () => {
      const wal = await open();
      await appendMany(wal, 1, 60);
      await wal.close();
      const files = await segmentFiles();
      expect(files.length).toBeGreaterThan(3);
      const victim = path.join(dir, files[1]);
      const firstOfVictim = Number(files[1].slice(0, 20));
      const bytes = await fs.readFile(victim);
      // Corrupt the data of the victim's second record.
      const secondRecordData = RECORD_HEADER_BYTES + recordFor(firstOfVictim, 300).length + RECORD_HEADER_BYTES;
      bytes[secondRecordData] ^= 0xff;
      await fs.writeFile(victim, bytes);

      const reopened = await open();

      expect(reopened.recovery).toMatchObject({
        clean: false,
        droppedSegments: files.length - 2,
        problemSegment: firstOfVictim,
      });
      expect(reopened.recovery.problem).toMatch(/checksum/);
      expect(await segmentFiles()).toEqual(files.slice(0, 2));
      expectRecords(await readAll(reopened), 1, firstOfVictim);
      expect(await reopened.append(new Uint8Array([7]))).toBe(firstOfVictim + 1);
    });

    it('should drop a torn tail of garbage behind the zero padding of a preallocated segment', async () => {
      const wal = await open({ segmentsAhead: 1 });
      await appendMany(wal, 1, 3);
      await wal.close();
      const file = path.join(dir, (await segmentFiles())[0]);
      const bytes = await fs.readFile(file);
      expect(bytes.length).toBe(2048);
      bytes[2000] = 1;
      await fs.writeFile(file, bytes);
      const validBytes = [1, 2, 3].reduce((sum, op) => sum + RECORD_HEADER_BYTES + recordFor(op, 300).length, 0);

      const reopened = await open({ segmentsAhead: 1 });

      expect(reopened.recovery).toMatchObject({ clean: false, droppedBytes: 2001 - validBytes });
      expectRecords(await readAll(reopened), 1, 3);
    });

    it('should delete older segments that a gap separates from the newest run', async () => {
      const wal = await open();
      await appendMany(wal, 1, 60);
      await wal.close();
      const files = await segmentFiles();
      await fs.rm(path.join(dir, files[1]));

      const reopened = await open();

      expect(reopened.recovery).toMatchObject({ clean: false, staleSegments: 1, droppedSegments: 0 });
      expect(reopened.firstOpNum).toBe(Number(files[2].slice(0, 20)));
      expectRecords(await readAll(reopened), Number(files[2].slice(0, 20)), 60);
    });

    it('should reject options Qdrant would reject', async () => {
      await expect(WriteAheadLog.open(options({ retainClosed: 0 }))).rejects.toThrow(RangeError);
      await expect(WriteAheadLog.open(options({ segmentCapacityBytes: 0 }))).rejects.toThrow(RangeError);
      await expect(WriteAheadLog.open(options({ segmentsAhead: -1 }))).rejects.toThrow(RangeError);
    });
  });

  describe('append', () => {
    it('should round trip records across many segment rolls without overfilling a segment', async () => {
      const wal = await open({ segmentCapacityBytes: 2048, segmentsAhead: 1 });

      await appendMany(wal, 1, 300);
      await wal.close();

      const files = await segmentFiles();
      expect(files.length).toBeGreaterThan(20);
      for (const name of files.slice(0, -1))
        expect((await fs.stat(path.join(dir, name))).size).toBeLessThanOrEqual(2048);
      const reopened = await open({ segmentCapacityBytes: 2048, segmentsAhead: 1 });
      expectRecords(await readAll(reopened), 1, 300);
      expect(reopened.stats().segments).toBe(files.length);
    });

    it('should give a record larger than the capacity a segment of its own', async () => {
      const wal = await open({ segmentCapacityBytes: 1024 });
      const big = new Uint8Array(5000).fill(3);

      expect(await wal.append(new Uint8Array([1]))).toBe(1);
      expect(await wal.append(big)).toBe(2);
      expect(await wal.append(new Uint8Array([2]))).toBe(3);

      expect(await segmentFiles()).toEqual([
        '00000000000000000001.wal',
        '00000000000000000002.wal',
        '00000000000000000003.wal',
      ]);
      const records = await readAll(wal);
      expect(records[1].data).toEqual(big);
    });

    it('should accept an empty record', async () => {
      const wal = await open();

      expect(await wal.append(new Uint8Array(0))).toBe(1);
      expect(await wal.append(new Uint8Array([9]))).toBe(2);

      expect((await readAll(wal)).map((r) => r.data.length)).toEqual([0, 1]);
    });

    it('should give concurrent appends distinct consecutive op numbers in call order with shared fsyncs', async () => {
      let syncs = 0;
      const wal = await open({
        segmentCapacityBytes: 64 * 1024,
        io: { ...nodeIo, datasync: (handle) => (syncs++, handle.datasync()) },
      });

      const ops = await Promise.all(Array.from({ length: 200 }, (_, i) => wal.append(recordFor(i + 1, 300))));

      expect(ops).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
      expect(syncs).toBeLessThan(200 / 4);
      expectRecords(await readAll(wal), 1, 200);
    });

    it('should not let a caller change a record after append was called', async () => {
      const wal = await open();
      const data = new Uint8Array([1, 2, 3]);

      const op = wal.append(data);
      data.fill(0);
      await op;

      expect((await readAll(wal))[0].data).toEqual(new Uint8Array([1, 2, 3]));
    });

    it('should reject a batch whose write fails with ENOSPC, leave no trace of it, and stay usable', async () => {
      let failNextWrite = false;
      const wal = await open({
        io: {
          ...nodeIo,
          write: async (handle, buffer, position) => {
            if (!failNextWrite) return nodeIo.write(handle, buffer, position);
            failNextWrite = false;
            // Half the batch reaches the file before the disk fills up.
            await nodeIo.write(handle, buffer.subarray(0, buffer.length >> 1), position);
            throw Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' });
          },
        },
      });
      await appendMany(wal, 1, 3);
      await new Promise<void>((resolve) => setImmediate(resolve));

      failNextWrite = true;
      await expect(wal.append(recordFor(99, 300))).rejects.toMatchObject({ code: 'ENOSPC' });

      expect(wal.lastOpNum).toBe(3);
      expect(await wal.append(recordFor(4, 300))).toBe(4);
      await wal.close();
      const reopened = await open();
      expect(reopened.recovery.clean).toBe(true);
      expectRecords(await readAll(reopened), 1, 4);
    });

    it('should fail the log when fdatasync fails and reject every later append', async () => {
      let failSync = false;
      const wal = await open({
        io: {
          ...nodeIo,
          datasync: async (handle) => {
            if (failSync) throw Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' });
            await nodeIo.datasync(handle);
          },
        },
      });
      await appendMany(wal, 1, 2);

      failSync = true;
      const results = await Promise.allSettled([wal.append(new Uint8Array([1])), wal.append(new Uint8Array([2]))]);
      failSync = false;

      expect(results[0]).toMatchObject({ status: 'rejected', reason: { code: 'EIO' } });
      expect(results[1].status).toBe('rejected');
      expect(wal.lastOpNum).toBe(2);
      const later = wal.append(new Uint8Array([3]));
      await expect(later).rejects.toBeInstanceOf(WalError);
      await expect(later).rejects.toMatchObject({ reason: 'failed', cause: { code: 'EIO' } });
      await wal.close();
    });

    describe('on a full disk (issue 28, item 2)', () => {
      const noSpace = () => Object.assign(new Error('ENOSPC: no space left on device, fdatasync'), { code: 'ENOSPC' });

      it('should refuse a batch whose fdatasync fails with ENOSPC, cut it off, and stay usable', async () => {
        let failSyncs = 0;
        const wal = await open({
          io: {
            ...nodeIo,
            datasync: async (handle) => {
              if (failSyncs > 0) {
                failSyncs--;
                throw noSpace();
              }
              await nodeIo.datasync(handle);
            },
          },
        });
        await appendMany(wal, 1, 2);

        // the batch's fsync fails; the cut's fsync works
        failSyncs = 1;
        await expect(wal.append(recordFor(99, 300))).rejects.toMatchObject({ code: 'ENOSPC' });
        // both fail: the cut is made, and made durable by the next batch's fsync
        failSyncs = 2;
        await expect(wal.append(recordFor(98, 300))).rejects.toMatchObject({ code: 'ENOSPC' });

        expect(wal.lastOpNum).toBe(2);
        expect(await wal.append(recordFor(3, 300))).toBe(3);
        await wal.close();
        const reopened = await open();
        expect(reopened.recovery.clean).toBe(true);
        expectRecords(await readAll(reopened), 1, 3);
      });

      it('should refuse the appends whose new segment the full disk refuses, and roll at the next append', async () => {
        const wal = await open();
        await appendMany(wal, 1, 2);
        const big = new Uint8Array(1900).fill(3);

        // a record that does not fit the open segment needs a new one, whose file the full disk refuses
        injectFaults({ root: dir, at: 1, action: 'fail', code: 'ENOSPC', kinds: ['create'] });
        try {
          await expect(wal.append(big)).rejects.toMatchObject({ code: 'ENOSPC' });
        } finally {
          stopFaultInjection();
        }

        expect(await wal.append(big)).toBe(3);
        await wal.close();
        const reopened = await open();
        expect((await readAll(reopened)).map((record) => record.opNum)).toEqual([1, 2, 3]);
      });
    });

    it('should reject appends after close with a closed WalError', async () => {
      const wal = await open();
      const pending = wal.append(new Uint8Array([1]));
      await wal.close();

      expect(await pending).toBe(1);
      await expect(wal.append(new Uint8Array([2]))).rejects.toMatchObject({ reason: 'closed' });
    });
  });

  describe('readFrom', () => {
    it('should start at the requested op number, even inside a segment', async () => {
      const wal = await open();
      await appendMany(wal, 1, 50);

      expectRecords(await readAll(wal, 23), 23, 50);
      expect(await readAll(wal, 51)).toEqual([]);
    });
  });

  describe('ack', () => {
    it('should delete acknowledged closed segments but keep retainClosed of them and the open one', async () => {
      const wal = await open({ retainClosed: 2 });
      await appendMany(wal, 1, 80);
      const files = await segmentFiles();
      expect(files.length).toBeGreaterThan(5);

      await wal.ack(80);

      const left = await segmentFiles();
      expect(left).toEqual(files.slice(-3));
      expect(wal.firstOpNum).toBe(Number(left[0].slice(0, 20)));
      expect(wal.stats().segments).toBe(3);
      expectRecords(await readAll(wal), wal.firstOpNum as number, 80);
    });

    it('should keep segments holding records after the acknowledged op', async () => {
      const wal = await open();
      await appendMany(wal, 1, 80);
      const files = await segmentFiles();
      const thirdStart = Number(files[2].slice(0, 20));

      await wal.ack(thirdStart - 1);
      expect(await segmentFiles()).toEqual(files.slice(2));

      await wal.ack(thirdStart);
      expect(await segmentFiles()).toEqual(files.slice(2));
    });

    it('should keep the op numbers going after everything closed was deleted', async () => {
      const wal = await open();
      await appendMany(wal, 1, 40);
      await wal.ack(40);
      await wal.close();

      const reopened = await open();

      expect(reopened.lastOpNum).toBe(40);
      expect(await reopened.append(new Uint8Array([1]))).toBe(41);
    });
  });

  describe('stats', () => {
    it('should count the segments and the bytes of their records', async () => {
      const wal = await open();
      await wal.append(new Uint8Array(10));
      await wal.append(new Uint8Array(20));

      expect(wal.stats()).toEqual({ segments: 1, bytes: 2 * RECORD_HEADER_BYTES + 30, aheadSegments: 0 });
    });
  });
});
