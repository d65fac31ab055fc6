// What checking a segment file at open costs per GB (docs/storage.md, "Checksums"): a 1 GB file of random bytes read
// in the 8 MiB chunks open uses, with and without the CRC-32, from the page cache and (where the machine lets this
// process drop the caches) cold. Run: npx tsx bench/storage/checksums.ts
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { checksumFile } from '../../libs/points/src/storage/file-checksum';

const GB = 1 << 30;

async function seconds(run: () => Promise<unknown>): Promise<number> {
  const start = process.hrtime.bigint();
  await run();
  return Number(process.hrtime.bigint() - start) / 1e9;
}

async function readOnly(file: string): Promise<void> {
  const handle = await fs.open(file, 'r');
  try {
    const buffer = Buffer.allocUnsafe(8 << 20);
    while ((await handle.read(buffer, 0, buffer.length, null)).bytesRead > 0);
  } finally {
    await handle.close();
  }
}

async function main(): Promise<void> {
  const file = path.join(tmpdir(), `vs-checksum-bench-${process.pid}.bin`);
  const handle = await fs.open(file, 'w');
  const chunk = randomBytes(64 << 20);
  for (let written = 0; written < GB; written += chunk.length) await handle.write(chunk);
  await handle.close();
  try {
    await checksumFile(file, 'warm-up');
    for (let round = 1; round <= 3; round++) {
      const read = await seconds(() => readOnly(file));
      const checked = await seconds(() => checksumFile(file, 'bench'));
      console.log(`page cache, round ${round}: read ${read.toFixed(3)} s/GB, read + crc32 ${checked.toFixed(3)} s/GB`);
    }
    try {
      await fs.writeFile('/proc/sys/vm/drop_caches', '3');
      console.log(`caches dropped: read + crc32 ${(await seconds(() => checksumFile(file, 'bench'))).toFixed(3)} s/GB`);
    } catch (error) {
      console.log(`caches not dropped (${(error as Error).message}): no cold number`);
    }
  } finally {
    await fs.rm(file, { force: true });
  }
}

void main();
