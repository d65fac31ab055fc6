// npm run bench:snapshot — snapshot and restore throughput of a real server: BENCH_POINTS (default
// 100000) points of 128-d with small payloads are loaded over REST, then a collection snapshot is made
// (server side), downloaded and restored into a new collection by upload. Each step is timed in MB/s
// of archive and set against a peer run in the same process on the same bytes: GNU tar + sha256sum of
// the collection's folder (create), curl-like streaming to a file (download), sha256sum + tar -x of
// the archive (restore). Also prints the server's resident memory before and at peak during each step.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import * as http from 'node:http';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { RunningServer, startServer } from '../../test/e2e/support/server-harness';
import { Rng } from '../../test/support/seeded-random';

const POINTS = Number(process.env.BENCH_POINTS ?? 100_000);
const DIM = 128;
const BATCH = 1000;
const MB = 1024 * 1024;

function residentBytes(pid: number): number {
  const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return kb ? Number(kb) * 1024 : NaN;
}

/** Runs `step` while sampling the server's RSS every 10 ms; returns the step's seconds and the peak. */
async function measured<T>(pid: number, step: () => Promise<T>): Promise<{ value: T; seconds: number; peak: number }> {
  let peak = residentBytes(pid);
  const timer = setInterval(() => (peak = Math.max(peak, residentBytes(pid))), 10);
  const started = performance.now();
  try {
    const value = await step();
    return { value, seconds: (performance.now() - started) / 1000, peak };
  } finally {
    clearInterval(timer);
  }
}

async function rest(server: RunningServer, method: string, route: string, body?: unknown): Promise<unknown> {
  const response = await fetch(`${server.httpUrl}${route}`, {
    method,
    headers: { 'api-key': server.apiKey, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`${method} ${route} -> ${response.status} ${text.slice(0, 200)}`);
  return (JSON.parse(text) as { result: unknown }).result;
}

function download(server: RunningServer, route: string, file: string): Promise<void> {
  return new Promise((resolve, reject) => {
    http
      .get(`${server.httpUrl}${route}`, { headers: { 'api-key': server.apiKey } }, (response) => {
        if (response.statusCode !== 200) return reject(new Error(`GET ${route} -> ${response.statusCode}`));
        pipeline(response, createWriteStream(file)).then(resolve, reject);
      })
      .on('error', reject);
  });
}

/** A streamed multipart upload of `file` (field `snapshot`). */
function upload(server: RunningServer, route: string, file: string): Promise<void> {
  const boundary = 'bench-boundary-7f3a';
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="snapshot"; filename="s.snapshot"\r\n` +
      'Content-Type: application/octet-stream\r\n\r\n',
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const size = statSync(file).size;
  return new Promise((resolve, reject) => {
    const request = http.request(`${server.httpUrl}${route}`, {
      method: 'POST',
      headers: {
        'api-key': server.apiKey,
        'content-type': `multipart/form-data; boundary=${boundary}`,
        'content-length': head.length + size + tail.length,
      },
    });
    request.on('response', (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (c: Buffer) => chunks.push(c));
      response.on('end', () =>
        response.statusCode === 200
          ? resolve()
          : reject(new Error(`POST ${route} -> ${response.statusCode} ${Buffer.concat(chunks).toString()}`)),
      );
    });
    request.on('error', reject);
    request.write(head);
    const source = createReadStream(file);
    source.pipe(request, { end: false });
    source.on('end', () => request.end(tail));
  });
}

function sha256File(file: string): string {
  return createHash('sha256').update(readFileSync(file)).digest('hex');
}

/** Seconds of a shell pipeline (the peer). */
function timeShell(command: string): number {
  const started = performance.now();
  execFileSync('bash', ['-c', `set -o pipefail; ${command}`], { stdio: ['ignore', 'ignore', 'inherit'] });
  return (performance.now() - started) / 1000;
}

async function main(): Promise<void> {
  const server = await startServer();
  const work = mkdtempSync(path.join(tmpdir(), 'vectorstore-bench-snapshot-'));
  try {
    await rest(server, 'PUT', '/collections/bench', { vectors: { size: DIM, distance: 'Cosine' } });
    const rng = new Rng(42);
    const loadStarted = performance.now();
    for (let from = 0; from < POINTS; from += BATCH) {
      const points = Array.from({ length: Math.min(BATCH, POINTS - from) }, (_, i) => ({
        id: from + i + 1,
        vector: rng.vector(DIM),
        payload: { title: `document ${from + i}`, group: (from + i) % 17, score: rng.next() },
      }));
      await rest(server, 'PUT', '/collections/bench/points?wait=true', { points });
      if ((from / BATCH) % 10 === 0) process.stderr.write(`\rloading ${from + points.length}/${POINTS}`);
    }
    process.stderr.write(`\rloaded ${POINTS} points in ${((performance.now() - loadStarted) / 1000).toFixed(1)} s\n`);

    const idle = residentBytes(server.pid);
    const create = await measured(server.pid, async () => {
      return (await rest(server, 'POST', '/collections/bench/snapshots?wait=true')) as { name: string; size: number };
    });
    const archiveBytes = create.value.size;
    const archive = path.join(work, 'bench.snapshot');
    const fetched = await measured(server.pid, () =>
      download(server, `/collections/bench/snapshots/${create.value.name}`, archive),
    );
    const checksum = sha256File(archive);
    const restore = await measured(server.pid, () =>
      upload(server, `/collections/restored/snapshots/upload?wait=true&checksum=${checksum}`, archive),
    );
    const count = (await rest(server, 'POST', '/collections/restored/points/count', { exact: true })) as {
      count: number;
    };
    if (count.count !== POINTS) throw new Error(`restored ${count.count} points, expected ${POINTS}`);

    // Peers on the same bytes: the collection's folder (what the snapshot copies) and the archive.
    const collectionDir = path.join(server.dataDir, 'collections');
    const peerCreate = timeShell(`tar -cf - -C '${collectionDir}' . | tee '${work}/peer.tar' | sha256sum >/dev/null`);
    const peerDownload = timeShell(`cat '${archive}' > '${work}/peer-copy'`);
    const extract = path.join(work, 'peer-extract');
    const peerRestore = timeShell(
      `mkdir -p '${extract}' && sha256sum '${archive}' >/dev/null && tar -xf '${archive}' -C '${extract}' && sync -f '${extract}'`,
    );

    const mbps = (seconds: number): number => archiveBytes / MB / seconds;
    const rows = [
      ['create (server side)', create.seconds, peerCreate, 'tar -c, tee, sha256sum', create.peak],
      ['download (REST stream)', fetched.seconds, peerDownload, 'cat > file', fetched.peak],
      ['restore (upload)', restore.seconds, peerRestore, 'sha256sum + tar -x', restore.peak],
    ] as const;
    console.log(
      `\nSnapshot of ${POINTS} points × ${DIM}-d with payloads: archive ${(archiveBytes / MB).toFixed(1)} MiB; ` +
        `server RSS before ${(idle / MB).toFixed(0)} MiB\n`,
    );
    console.log('| step | vectorstore MB/s | peer | peer MB/s | ratio | server RSS peak (MiB) |');
    console.log('|---|---:|---|---:|---:|---:|');
    for (const [step, ours, peer, peerName, peak] of rows) {
      console.log(
        `| ${step} | ${mbps(ours).toFixed(1)} | ${peerName} | ${mbps(peer).toFixed(1)} | ${(peer / ours).toFixed(2)}× | ${(peak / MB).toFixed(0)} |`,
      );
    }
  } finally {
    await server.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
