import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { WalOptions, WriteAheadLog } from './write-ahead-log';

// continueAfter: the shard's flushed op number is the floor for the next op number, whatever the log lost.
describe('WriteAheadLog.continueAfter', () => {
  let dir: string;
  const opened: WriteAheadLog[] = [];
  const open = async (overrides: Partial<WalOptions> = {}): Promise<WriteAheadLog> => {
    const wal = await WriteAheadLog.open({
      dir,
      segmentCapacityBytes: 4096,
      segmentsAhead: 0,
      retainClosed: 1,
      ...overrides,
    });
    opened.push(wal);
    return wal;
  };
  const files = async (): Promise<string[]> => (await fs.readdir(dir)).sort();
  const record = (op: number): Uint8Array => Buffer.from(`record ${op}`);

  beforeEach(async () => {
    dir = path.join(await fs.mkdtemp(path.join(os.tmpdir(), 'wal-continue-')), 'wal');
  });

  afterEach(async () => {
    await Promise.all(opened.splice(0).map((wal) => wal.close().catch(() => undefined)));
    await fs.rm(path.dirname(dir), { recursive: true, force: true });
  });

  it('should change nothing when the next op number is already past', async () => {
    const wal = await open();
    for (let op = 1; op <= 3; op++) await wal.append(record(op));
    await wal.continueAfter(3);
    await wal.continueAfter(1);
    expect(await wal.append(record(4))).toBe(4);
    expect(wal.firstOpNum).toBe(1);
    expect(await files()).toEqual(['00000000000000000001.wal']);
  });

  it('should start a segment past the op, drop the older ones, and keep the number across a reopen', async () => {
    const wal = await open();
    for (let op = 1; op <= 3; op++) await wal.append(record(op));
    await wal.continueAfter(7);
    expect(wal.firstOpNum).toBeUndefined();
    expect(wal.lastOpNum).toBeUndefined();
    expect(await files()).toEqual(['00000000000000000008.wal']);
    await wal.close();

    const reopened = await open();
    expect(reopened.recovery.clean).toBe(true);
    expect(await reopened.append(record(8))).toBe(8);
    const read = [];
    for await (const r of reopened.readFrom(1)) read.push(r.opNum);
    expect(read).toEqual([8]);
  });

  it('should take a spare file for the new segment when there is one', async () => {
    const wal = await open({ segmentsAhead: 1 });
    await wal.append(record(1));
    await wal.continueAfter(5);
    expect(await wal.append(record(6))).toBe(6);
    await wal.close();
    const names = await files();
    expect(names).toContain('00000000000000000006.wal');
    expect(names).not.toContain('00000000000000000001.wal');
    expect(names.filter((name) => name.startsWith('ahead-'))).toHaveLength(1);
  });

  it('should name the file that holds an op', async () => {
    // 24-byte records (16-byte header): two fit in a 64-byte segment.
    const wal = await open({ segmentCapacityBytes: 64 });
    for (let op = 1; op <= 4; op++) await wal.append(record(op));
    const holders = [1, 2, 3, 4].map((op) => path.basename(wal.fileOf(op) ?? ''));
    const [first, third] = ['00000000000000000001.wal', '00000000000000000003.wal'];
    expect(holders).toEqual([first, first, third, third]);
    expect(path.dirname(wal.fileOf(1)!)).toBe(dir);
    expect(wal.fileOf(5)).toBeUndefined();
  });
});
