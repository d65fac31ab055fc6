// npm run bench:storage — reading payloads kept on disk (on_disk_payload): a full sequential pass and
// random single reads over BENCH_POINTS (default 100000) small payloads, against the same payloads in memory.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { JsonObject } from '@vectorstore/common';
import { DiskPayloads } from '../../libs/points/src/storage/disk-payloads';
import { SegmentFile } from '../../libs/points/src/storage/segment-file';

const POINTS = Number(process.env.BENCH_POINTS ?? 100_000);
const READS = 20_000;
const REPEATS = 3;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

function main(): void {
  const payloads: JsonObject[] = Array.from({ length: POINTS }, (_, i) => ({
    group: BigInt(i % 10),
    city: `city-${i % 100}`,
    tags: ['a', 'b'],
    price: i * 0.5,
  }));
  const dir = mkdtempSync(path.join(tmpdir(), 'vs-bench-storage-'));
  try {
    const { body, offsets } = DiskPayloads.encode(payloads, POINTS);
    const file = path.join(dir, 'bench.pay');
    writeFileSync(file, body);
    const store = new DiskPayloads(SegmentFile.open(file), offsets);
    const scan: number[] = [];
    const reads: number[] = [];
    const memory: number[] = [];
    for (let r = 0; r < REPEATS; r++) {
      let matched = 0;
      let t = performance.now();
      store.scan((_slot, payload) => void (payload?.group === 3n && matched++));
      scan.push(performance.now() - t);
      t = performance.now();
      for (let i = 0; i < READS; i++) store.get((i * 7919) % POINTS);
      reads.push(((performance.now() - t) * 1000) / READS);
      t = performance.now();
      for (const payload of payloads) if (payload.group === 3n) matched--;
      memory.push(performance.now() - t);
      if (matched !== 0) throw new Error('disk and memory passes disagree');
    }
    console.log(
      `\nvectorstore storage benchmark — ${POINTS} payloads (${(body.length / 2 ** 20).toFixed(1)} MiB on disk), median of ${REPEATS}, Node ${process.version}\n`,
    );
    console.log('| measurement | time |');
    console.log('|---|---|');
    console.log(`| full pass over payloads on disk (filter on an unindexed field) | ${median(scan).toFixed(1)} ms |`);
    console.log(`| one payload read from disk (random slot) | ${median(reads).toFixed(2)} µs |`);
    console.log(`| full pass over the same payloads in memory | ${median(memory).toFixed(1)} ms |`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main();
