// npm run bench:cluster, backups part (issue 29): what a cluster backup and its restore cost. etcd + 3 peers; a
// collection of 3 shards x 2 replicas with BENCH_BACKUP_POINTS (20 000) x 128-d points (the seeded Gaussian mixture
// of the other tables). `POST /backups?wait=true` is timed until it answers; the archive is downloaded; those
// peers stop; etcd + 2 new peers; `POST /backups/upload?wait=true` is timed until it answers, and again until every
// replica is Active (the leader's copies to the second replicas). MB/s is the archive's size over the time, beside a
// plain `cp` of the archive file with an fsync (the ratio column's peer: a backup reads and writes the shards' files
// once more than a copy does, and the peers' parts cross the loopback).
import { execFile } from 'node:child_process';
import { closeSync, fsyncSync, mkdtempSync, openSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { clusterView, Json, peerHttp } from '../../test/e2e/support/cluster-client';
import type { RunningServer } from '../../test/e2e/support/server-harness';
import { gaussianMixture } from '../engine/datasets';
import { table } from '../engine/report';
import { startCluster, stopAll } from './setups';

const POINTS = Number(process.env.BENCH_BACKUP_POINTS ?? 20_000);
const DIM = 128;
const BATCH = 500;
const NAME = 'bench-backups';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function rest(peer: RunningServer, method: string, route: string, body?: unknown): Promise<Json> {
  const answer = await peerHttp(peer, method, route, body, 600_000);
  if (answer.status !== 200) throw new Error(`${method} ${route}: ${answer.status} ${JSON.stringify(answer.body)}`);
  return answer.body?.result as Json;
}

/** Median seconds of three plain copies of `file` (cp, then fsync of the copy). */
async function plainCopy(file: string): Promise<number> {
  const runs: number[] = [];
  for (let i = 0; i < 3; i++) {
    const dir = mkdtempSync(path.join(tmpdir(), 'vectorstore-bench-copy-'));
    try {
      const started = performance.now();
      await promisify(execFile)('cp', [file, path.join(dir, 'copy')]);
      const fd = openSync(path.join(dir, 'copy'), 'r');
      fsyncSync(fd);
      closeSync(fd);
      runs.push((performance.now() - started) / 1000);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  return runs.sort((a, b) => a - b)[1];
}

async function main(): Promise<void> {
  const data = gaussianMixture(POINTS, 1, DIM);
  const source = await startCluster(3);
  const peers = source.peers;
  await rest(peers[0], 'PUT', `/collections/${NAME}`, {
    vectors: { size: DIM, distance: 'Euclid' },
    shard_number: 3,
    replication_factor: 2,
  });
  await sleep(1000);
  for (let from = 0; from < POINTS; from += BATCH) {
    const points = [];
    for (let i = from; i < Math.min(POINTS, from + BATCH); i++)
      points.push({ id: i + 1, vector: Array.from(data.base.subarray(i * DIM, (i + 1) * DIM)), payload: { i } });
    await rest(peers[(from / BATCH) % 3], 'PUT', `/collections/${NAME}/points?wait=true`, { points });
  }
  process.stderr.write(`loaded ${POINTS} points\n`);

  let started = performance.now();
  const made = await rest(peers[0], 'POST', '/backups?wait=true', {});
  const backupS = (performance.now() - started) / 1000;
  const dir = mkdtempSync(path.join(tmpdir(), 'vectorstore-bench-backup-'));
  const file = path.join(dir, String(made.name));
  const response = await fetch(`${peers[0].httpUrl}/backups/${made.name}`, { headers: { 'api-key': peers[0].apiKey } });
  writeFileSync(file, Buffer.from(await response.arrayBuffer()));
  const bytes = statSync(file).size;
  const copyS = await plainCopy(file);
  await source.stop();

  const target = await startCluster(2);
  const form = new FormData();
  form.append('snapshot', new Blob([new Uint8Array(readFileSync(file))]), 'b');
  started = performance.now();
  const restored = await fetch(`${target.peers[0].httpUrl}/backups/upload?wait=true`, {
    method: 'POST',
    headers: { 'api-key': target.peers[0].apiKey },
    body: form,
  });
  if (restored.status !== 200) throw new Error(`restore: ${restored.status} ${await restored.text()}`);
  const restoreS = (performance.now() - started) / 1000;
  for (;;) {
    const views = await Promise.all(target.peers.map((peer) => clusterView(peer, NAME)));
    if (views.every((view) => view.replicas.length === 6 && view.replicas.every((r) => r.state === 'Active'))) break;
    await sleep(100);
  }
  const activeS = (performance.now() - started) / 1000;
  const count = await rest(target.peers[1], 'POST', `/collections/${NAME}/points/count`, { exact: true });
  if (Number(count.count) !== POINTS) throw new Error(`restored ${count.count} points of ${POINTS}`);
  await target.stop();
  rmSync(dir, { recursive: true, force: true });

  const mb = bytes / 1024 / 1024;
  const copyRate = mb / copyS;
  const row = (what: string, seconds: number) => [what, mb, seconds, mb / seconds, copyRate, copyRate / (mb / seconds)];
  console.log(`\nCluster backup and restore: ${POINTS} x ${DIM}-d points, 3 shards x 2 replicas\n`);
  console.log(
    table(
      ['step', 'archive MB', 's', 'MB/s', 'plain copy MB/s', 'copy / step'],
      [
        row('backup (3 peers)', backupS),
        row('restore (2 peers, answered)', restoreS),
        row('restore (2 peers, all replicas Active)', activeS),
      ],
    ),
  );
}

main()
  .then(() => stopAll())
  .catch(async (error: unknown) => {
    console.error(error);
    await stopAll();
    process.exit(1);
  });
