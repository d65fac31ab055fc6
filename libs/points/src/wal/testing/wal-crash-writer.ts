/**
 * Child process for wal.crash.spec.ts: appends deterministic records (content = recordFor(opNum)) from
 * `concurrency` appenders until killed, printing each op number only after its append resolved. With
 * `tearAfterMs`, the first write after that time puts only half its batch on disk and the process SIGKILLs itself,
 * which is the torn write a power cut or a crash inside `write` leaves behind.
 *
 *   node --require tsx/cjs libs/points/src/wal/testing/wal-crash-writer.ts <dir> <concurrency> [tearAfterMs]
 */
import { NODE_WAL_IO, WalIo, WriteAheadLog } from '../write-ahead-log';
import { recordFor } from './deterministic-record';

export const CRASH_WAL_OPTIONS = { segmentCapacityBytes: 16 * 1024, segmentsAhead: 1, retainClosed: 1 };

async function main(): Promise<void> {
  const [dir, concurrencyText, tearAfterText] = process.argv.slice(2);
  const tearAt = tearAfterText === undefined ? Infinity : Date.now() + Number(tearAfterText);
  const io: WalIo = {
    write: async (handle, buffer, position) => {
      if (Date.now() < tearAt) return NODE_WAL_IO.write(handle, buffer, position);
      await handle.write(buffer, 0, Math.ceil(buffer.length / 2), position);
      process.kill(process.pid, 'SIGKILL');
      return new Promise<number>(() => undefined);
    },
    datasync: NODE_WAL_IO.datasync,
  };
  const wal = await WriteAheadLog.open({ dir, ...CRASH_WAL_OPTIONS, io });
  let next = (wal.lastOpNum ?? 0) + 1;
  process.stdout.write(`ready ${next - 1}\n`);
  const appender = async (): Promise<void> => {
    for (;;) {
      // Taking the number and calling append in the same tick keeps call order equal to op order.
      const expected = next++;
      const opNum = await wal.append(recordFor(expected));
      if (opNum !== expected) throw new Error(`append returned op ${opNum}, expected ${expected}`);
      process.stdout.write(`${opNum}\n`);
    }
  };
  await Promise.all(Array.from({ length: Number(concurrencyText) }, appender));
}

if (require.main === module) {
  main().catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  });
}
