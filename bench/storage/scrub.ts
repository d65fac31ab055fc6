// tsx bench/storage/scrub.ts — what a background scrub pass costs (issue 28 item 3): one shard folder whose manifest
// lists BENCH_SCRUB_MB (default 1024) MiB of segment files is scrubbed (scrubShard: read, CRC-32, compare) unpaced
// and at the default pace (64 MiB/s); for each, wall time, MiB/s and CPU seconds per GiB of this process, and the
// latency of a stand-in search (a brute-force scan on the event loop, as small searches run) while the pass runs.
// The files were just written, so most passes read them from the page cache; the "cold" rows first drop the files'
// cached pages (GNU dd iflag=nocache count=0, no root needed), so they read the disk (here a virtual disk, which the
// host may cache in turn).
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { checksumOf, FileChecksum } from '../../libs/points/src/storage/file-checksum';
import { manifestText } from '../../libs/points/src/storage/local-shard/manifest-file';
import { ReadPacer, scrubShard } from '../../libs/points/src/storage/scrub/shard-scrub';

const TOTAL_MIB = Number(process.env.BENCH_SCRUB_MB ?? 1024);
const FILE_MIB = 64;
const PACED_MIB_PER_SEC = 64;
/** The paced pass reads at most this much (it takes MiB / 64 seconds). */
const PACED_MIB = Math.min(TOTAL_MIB, 512);
const MIB = 1 << 20;

/** A shard folder with `mib` MiB of listed segment files; what the manifest lists. */
function makeShard(dir: string, mib: number): void {
  mkdirSync(path.join(dir, 'segments'), { recursive: true });
  const files: FileChecksum[] = [];
  const data = Buffer.alloc(FILE_MIB * MIB);
  for (let i = 0; i < data.length; i += 4) data.writeUInt32LE((i * 2654435761) >>> 0, i);
  for (let written = 0, n = 0; written < mib; written += FILE_MIB, n++) {
    const piece = data.subarray(0, Math.min(FILE_MIB, mib - written) * MIB);
    piece[0] = n & 0xff;
    const name = `s${n}.vec`;
    writeFileSync(path.join(dir, 'segments', name), piece);
    files.push(checksumOf(name, piece));
  }
  writeFileSync(
    path.join(dir, 'manifest.json'),
    manifestText({
      version: 1,
      persistedOpNum: 1,
      segments: [{ id: 's', bodyVersion: 1, body: files[0].file, files }],
      fieldIndexes: [],
    }),
  );
}

/** A stand-in for a small search: dot products of one query with 20k vectors of 128 dims, on the event loop. */
const vectors = new Float32Array(20_000 * 128).map((_, i) => Math.sin(i));
const query = new Float32Array(128).map((_, i) => Math.cos(i));
function search(): number {
  let best = -Infinity;
  for (let v = 0; v < 20_000; v++) {
    let dot = 0;
    for (let d = 0; d < 128; d++) dot += vectors[v * 128 + d] * query[d];
    if (dot > best) best = dot;
  }
  return best;
}

/** Runs searches one after another (each waits for the event loop) until `done`; their latencies in ms. */
async function searchWhile(done: () => boolean): Promise<number[]> {
  const latencies: number[] = [];
  while (!done()) {
    const t = performance.now();
    await new Promise((resolve) => setImmediate(resolve));
    search();
    latencies.push(performance.now() - t);
  }
  return latencies;
}

const quantile = (values: number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
};

async function pass(dir: string, mibPerSec: number, stopAfterMib = Infinity) {
  const cpu = process.cpuUsage();
  const t = performance.now();
  let readBytes = 0;
  const pacer = new ReadPacer(mibPerSec * MIB);
  const counting = {
    account: async (bytes: number) => {
      readBytes += bytes;
      await pacer.account(bytes);
    },
  } as unknown as ReadPacer;
  const result = await scrubShard(dir, counting, () => readBytes >= stopAfterMib * MIB);
  const seconds = (performance.now() - t) / 1000;
  const used = process.cpuUsage(cpu);
  const cpuSeconds = (used.user + used.system) / 1e6;
  if (result.damage) throw result.damage;
  const gib = result.bytes / (1024 * MIB);
  return { mib: result.bytes / MIB, seconds, mibPerSec: result.bytes / MIB / seconds, cpuPerGib: cpuSeconds / gib };
}

/** Drops the page cache of every segment file of the shard in `dir`. */
function dropCache(dir: string): void {
  const segments = path.join(dir, 'segments');
  for (const name of readdirSync(segments))
    execFileSync('dd', [`if=${path.join(segments, name)}`, 'iflag=nocache', 'count=0'], { stdio: 'ignore' });
}

async function main(): Promise<void> {
  const dir = mkdtempSync(path.join(tmpdir(), 'vs-bench-scrub-'));
  try {
    makeShard(dir, TOTAL_MIB);
    const rows: string[] = [];
    const latency = (lat: number[]) =>
      lat.length === 0
        ? '- | - | -'
        : `${quantile(lat, 0.5).toFixed(2)} | ${quantile(lat, 0.99).toFixed(2)} | ${Math.max(...lat).toFixed(2)}`;
    const row = (name: string, p: Awaited<ReturnType<typeof pass>>, lat: number[]) =>
      rows.push(
        `| ${name} | ${p.mib.toFixed(0)} | ${p.seconds.toFixed(2)} | ${p.mibPerSec.toFixed(0)} | ${lat.length === 0 ? p.cpuPerGib.toFixed(2) : '- (searches ran)'} | ${latency(lat)} |`,
      );
    let idleDone = false;
    setTimeout(() => (idleDone = true), 3000);
    const idle = await searchWhile(() => idleDone);
    rows.push(`| no scrub (3 s) | - | - | - | - | ${latency(idle)} |`);
    for (let r = 1; r <= 3; r++) row(`unpaced, alone, run ${r}`, await pass(dir, 0), []);
    for (let r = 1; r <= 2; r++) {
      dropCache(dir);
      row(`unpaced, alone, cold, run ${r}`, await pass(dir, 0), []);
    }
    let done = false;
    const [unpaced, unpacedLat] = await Promise.all([
      pass(dir, 0).finally(() => (done = true)),
      searchWhile(() => done),
    ]);
    row('unpaced, with searches', unpaced, unpacedLat);
    done = false;
    const [paced, pacedLat] = await Promise.all([
      pass(dir, PACED_MIB_PER_SEC, PACED_MIB).finally(() => (done = true)),
      searchWhile(() => done),
    ]);
    row(`paced ${PACED_MIB_PER_SEC} MiB/s (default), with searches`, paced, pacedLat);
    console.log(`scrubShard over ${TOTAL_MIB} MiB in ${Math.ceil(TOTAL_MIB / FILE_MIB)} files\n`);
    console.log('| pass | MiB | s | MiB/s | CPU s/GiB | search p50 ms | search p99 ms | search max ms |');
    console.log('|---|---|---|---|---|---|---|---|');
    for (const line of rows) console.log(line);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

void main();
