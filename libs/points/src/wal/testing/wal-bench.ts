/**
 * Appends/s of the WAL for 1 KiB records with 1 and 64 concurrent appenders (every append fdatasynced).
 *
 *   npx tsx libs/points/src/wal/testing/wal-bench.ts [folder-on-the-disk-to-measure] [seconds-per-run]
 */
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { NODE_WAL_IO, WalIo, WriteAheadLog } from '../write-ahead-log';

const RECORD_BYTES = 1024;

async function run(parent: string, concurrency: number, seconds: number): Promise<void> {
  const dir = await fs.mkdtemp(path.join(parent, 'wal-bench-'));
  let syncs = 0;
  const io: WalIo = {
    write: NODE_WAL_IO.write,
    datasync: (handle) => (syncs++, handle.datasync()),
  };
  const wal = await WriteAheadLog.open({
    dir,
    segmentCapacityBytes: 32 * 1024 * 1024,
    segmentsAhead: 1,
    retainClosed: 1,
    io,
  });
  const record = new Uint8Array(RECORD_BYTES).fill(7);
  const deadline = performance.now() + seconds * 1000;
  let appends = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < deadline) {
        await wal.append(record);
        appends++;
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  await wal.close();
  await fs.rm(dir, { recursive: true, force: true });
  const rate = Math.round(appends / elapsed);
  const perSync = (appends / Math.max(syncs, 1)).toFixed(1);
  console.log(
    `${String(concurrency).padStart(3)} appenders: ${rate} appends/s, ${syncs} fdatasyncs (${perSync} records each), ${((rate * RECORD_BYTES) / 1048576).toFixed(1)} MiB/s`,
  );
}

async function main(): Promise<void> {
  const parent = process.argv[2] ?? os.tmpdir();
  const seconds = Number(process.argv[3] ?? 3);
  console.log(
    `WAL group commit, ${RECORD_BYTES}-byte records, ${seconds}s per run, in ${parent} (node ${process.version})`,
  );
  for (const concurrency of [1, 64]) await run(parent, concurrency, seconds);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
