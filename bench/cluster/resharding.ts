// npm run bench:cluster, after transfers.ts (issue 29, item 5): what a resharding costs. etcd + 3 cluster peers; a
// collection made in cluster mode (so on the consistent-hash ring) with shard_number 2 and replication_factor 1,
// BENCH_RESHARD_POINTS (100 000) × 128-d points (the seeded Gaussian mixture of the other tables), indexed. Then
// resharding up 2 → 3 (the new shard on the peer holding none) and down 3 → 2, each timed from the request until no
// peer lists a resharding operation and every peer's config says the new shard_number: the points moved (up: the
// new shard's points_count afterwards; down: the removed shard's before), points/s and MB/s (the moved shard's folder
// once indexed ÷ seconds), beside a plain `cp -r` of that folder with every copied file fsync'd (the ratio column).
// Then, unless BENCH_RESHARD_WRITER=0, up and down again under a light writer (one REST client, one new point per
// request with wait=true, through the peers in turn): its acknowledged writes and errors. After each step every peer's
// exact count must be the points loaded plus the writer's acknowledged ones, and the writer's points must all read
// back.
// Env: BENCH_RESHARD_POINTS (100000), BENCH_RESHARD_WRITER (1), BENCH_RESHARD_INDEX_WAIT_S (600),
// BENCH_RESHARDING (1; 0 skips this part).
import * as grpc from '@grpc/grpc-js';
import { existsSync } from 'node:fs';
import { availableParallelism, cpus, loadavg } from 'node:os';
import { Json, peerHttp } from '../../test/e2e/support/cluster-client';
import type { RunningServer } from '../../test/e2e/support/server-harness';
import { gaussianMixture } from '../engine/datasets';
import { table } from '../engine/report';
import { processCpuMs, RawClient } from '../server/clients';
import { startCluster, stopAll } from './setups';
import { collectionIds, CopyResult, folderSize, plainCopy, removeCopies, shardFolder } from './shard-files';

const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const POINTS = env('BENCH_RESHARD_POINTS', 100_000);
const WITH_WRITER = process.env.BENCH_RESHARD_WRITER !== '0';
const INDEX_WAIT_MS = env('BENCH_RESHARD_INDEX_WAIT_S', 600) * 1000;
const DIM = 128;
const M = 16;
const EF_CONSTRUCT = 100;
const BATCH = 256;
const LOADERS = 4;
const POLL_MS = 100;
const RESHARD_TIMEOUT_MS = 900_000;
/** The writer's pause between requests: a light load beside the resharding, not a saturating one. */
const WRITER_PAUSE_MS = 5;
const COLLECTION = 'bench-resharding';
/** How long the writer runs alone (its pace without a resharding). */
const WRITER_ALONE_MS = 5000;
/** How long to wait after an up for every point to be in an indexed segment again (the moved shard's size then). */
const REINDEX_WAIT_MS = 120_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function rest(peer: RunningServer, method: string, route: string, body?: unknown): Promise<Json> {
  const answer = await peerHttp(peer, method, route, body, 60_000);
  if (answer.status !== 200) {
    throw new Error(`${method} ${route}: ${answer.status} ${JSON.stringify(answer.body).slice(0, 300)}`);
  }
  return answer.body ?? {};
}

/** Polls `check` every `every` ms until it is true; throws `what` after `ms`. */
async function until(ms: number, what: string, check: () => Promise<boolean>, every = 100): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what} (waited ${ms / 1000} s)`);
    await sleep(every);
  }
}

function progress(label: string, done: number, total: number): void {
  const width = 30;
  const filled = Math.round((done / total) * width);
  process.stderr.write(`\r${label.padEnd(40)} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total}`);
  if (done >= total) process.stderr.write('\n');
}

const vectorOf = (base: Float32Array, id: number) => {
  const row = (id - 1) % POINTS;
  return Array.from(base.subarray(row * DIM, (row + 1) * DIM));
};

/** Loads ids 1..POINTS with gRPC Upsert (wait=true), LOADERS at once, batch b through peer b mod P; the seconds. */
async function load(peers: RunningServer[], base: Float32Array): Promise<number> {
  const clients = Array.from({ length: LOADERS }, () =>
    peers.map((peer) => {
      const metadata = new grpc.Metadata();
      metadata.set('api-key', peer.apiKey);
      return new RawClient(peer.grpcAddress, metadata);
    }),
  );
  const batches = Math.ceil(POINTS / BATCH);
  let next = 0;
  let done = 0;
  const started = performance.now();
  try {
    await Promise.all(
      clients.map(async (via) => {
        for (let b = next++; b < batches; b = next++) {
          const points = [];
          for (let id = 1 + b * BATCH; id <= Math.min(POINTS, (b + 1) * BATCH); id++)
            points.push({ id: { num: id }, vectors: { vector: { dense: { data: vectorOf(base, id) } } } });
          await via[b % via.length].unary('Upsert', { collectionName: COLLECTION, points, wait: true });
          if (++done % 10 === 0 || done === batches) progress('resharding: upsert', done, batches);
        }
      }),
    );
  } finally {
    clients.flat().forEach((client) => client.close());
  }
  return (performance.now() - started) / 1000;
}

/** Whether the peers' own segments together hold `points` points, all in indexed segments (telemetry). */
async function indexed(peers: RunningServer[], points: number): Promise<boolean> {
  let inIndexed = 0;
  for (const peer of peers) {
    const body = await rest(peer, 'GET', '/telemetry?details_level=4');
    const found = (body.result.collections.collections as Json[] | undefined)?.find((c) => c.id === COLLECTION);
    const segments = ((found?.shards ?? []) as Json[]).flatMap((shard) =>
      ((shard.local?.segments ?? []) as Json[]).map((s) => s.info as { segment_type: string; num_points: number }),
    );
    // A plain segment under indexing_threshold (1 KB: one point) stays plain.
    if (segments.some((s) => s.segment_type !== 'indexed' && s.num_points * DIM * 4 >= 1024)) return false;
    inIndexed += segments.reduce((sum, s) => sum + s.num_points, 0);
  }
  return inIndexed === points;
}

/** Each peer's segments of the collection by shard: type and points (telemetry), for a problem's note. */
async function segmentsNote(peers: RunningServer[]): Promise<string> {
  const notes: string[] = [];
  for (const [i, peer] of peers.entries()) {
    const body = await rest(peer, 'GET', '/telemetry?details_level=4');
    const found = (body.result.collections.collections as Json[] | undefined)?.find((c) => c.id === COLLECTION);
    for (const shard of (found?.shards ?? []) as Json[]) {
      const segments = ((shard.local?.segments ?? []) as Json[]).map(
        (s) => `${s.info.segment_type} ${s.info.num_points}`,
      );
      notes.push(`peer ${i} shard ${shard.id}: ${segments.join(', ') || 'none'}`);
    }
  }
  return notes.join('; ');
}

/** Until every point is in an indexed segment; the seconds from `started`. */
async function untilIndexed(peers: RunningServer[], points: number, started = performance.now()): Promise<number> {
  await until(INDEX_WAIT_MS, `${COLLECTION} was not indexed`, () => indexed(peers, points), 500);
  return (performance.now() - started) / 1000;
}

/** Every peer's CPU below 5% of a core over a second (an optimizer or a deletion still running shifts the next row). */
async function quiet(peers: RunningServer[], timeoutMs = 120_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const before = peers.map((peer) => processCpuMs(peer.pid));
    await sleep(1000);
    if (peers.every((peer, i) => processCpuMs(peer.pid) - before[i] < 50)) return true;
  }
  return false;
}

/** Each shard id with the peer holding it and its points_count (replication factor 1: one replica each). */
async function shards(peers: RunningServer[]): Promise<Map<number, { peer: RunningServer; points: number }>> {
  const found = new Map<number, { peer: RunningServer; points: number }>();
  for (const peer of peers) {
    const info = (await rest(peer, 'GET', `/collections/${COLLECTION}/cluster`)).result;
    for (const shard of info.local_shards as Json[])
      found.set(shard.shard_id, { peer, points: Number(shard.points_count) });
  }
  return found;
}

/** One light writer: new ids from `firstId` on, one point per REST request (wait=true), through the peers in turn. */
function startWriter(peers: RunningServer[], base: Float32Array, firstId: number) {
  let running = true;
  const acked: number[] = [];
  let sent = 0;
  let errors = 0;
  let lastError = '';
  const done = (async () => {
    for (let i = 0; running; i++) {
      const id = firstId + i;
      sent++;
      const answer = await peerHttp(peers[i % peers.length], 'PUT', `/collections/${COLLECTION}/points?wait=true`, {
        points: [{ id, vector: vectorOf(base, id) }],
      }).catch((error: unknown) => ({ status: 0, body: { error: String(error) } as Json }));
      if (answer.status === 200) acked.push(id);
      else {
        errors++;
        lastError = `${answer.status} ${JSON.stringify(answer.body).slice(0, 200)}`;
      }
      await sleep(WRITER_PAUSE_MS);
    }
  })();
  return {
    async stop() {
      running = false;
      await done;
      return { acked, sent, errors, lastError };
    },
  };
}

interface Watched {
  seconds: number;
  /** Each resharding copy seen (source shard → target shard): when it was first and last listed. */
  copies: Map<string, { first: number; last: number }>;
  /** When the first peer stopped listing the operation. */
  operationGone?: number;
  /** CPU seconds of all the peers together over the watch. */
  cpu: number;
  /** Polls that failed (and were tried again). */
  pollErrors: string[];
  /** The longest poll of every peer (s): a copy's listing is only as sharp as that. */
  slowestPoll: number;
}

/**
 * Sends `body` and polls every peer every POLL_MS until none lists a resharding operation and every one's config
 * says `shardNumber`; notes the resharding copies seen on the way.
 */
async function reshard(peers: RunningServer[], body: string, shardNumber: number, label: string): Promise<Watched> {
  const copies = new Map<string, { first: number; last: number }>();
  let operationGone: number | undefined;
  const cpu0 = peers.map((peer) => processCpuMs(peer.pid));
  const started = performance.now();
  const answer = await rest(peers[0], 'POST', `/collections/${COLLECTION}/cluster`, body);
  if (answer.result !== true) throw new Error(`${label}: ${JSON.stringify(answer)}`);
  let printed = -1;
  const pollErrors: string[] = [];
  let slowestPoll = 0;
  for (;;) {
    const polled = performance.now();
    // A poll that fails (a connection reset under load) is counted and tried again.
    const views = await Promise.all(
      peers.map(async (peer) => {
        const cluster = (await rest(peer, 'GET', `/collections/${COLLECTION}/cluster`)).result as Json;
        // Collection info only once the peer lists no resharding: during one, its points_count counts the copies
        // reads leave out (hashing a changing shard's points once a second per peer), not a load to add 30 times a second.
        const shardNumber =
          cluster.resharding_operations === undefined
            ? ((await rest(peer, 'GET', `/collections/${COLLECTION}`)).result.config.params.shard_number as number)
            : undefined;
        return { cluster, shardNumber };
      }),
    ).catch((error: unknown) => {
      pollErrors.push(error instanceof Error ? `${error.message} (${String(error.cause)})` : String(error));
      return undefined;
    });
    if (!views) {
      await sleep(POLL_MS);
      continue;
    }
    const at = (performance.now() - started) / 1000;
    slowestPoll = Math.max(slowestPoll, (performance.now() - polled) / 1000);
    for (const transfer of views.flatMap((view) => view.cluster.shard_transfers as Json[])) {
      if (transfer.to_shard_id === undefined) continue;
      const key = `${transfer.shard_id} → ${transfer.to_shard_id}`;
      const seen = copies.get(key);
      if (seen) seen.last = at;
      else copies.set(key, { first: at, last: at });
    }
    const operations = views.filter((view) => view.cluster.resharding_operations !== undefined).length;
    if (operations < peers.length) operationGone ??= at;
    if (operations === 0 && views.every((view) => view.shardNumber === shardNumber)) {
      process.stderr.write(`\r${label}: done after ${at.toFixed(1)} s`.padEnd(100) + '\n');
      const cpu = peers.reduce((sum, peer, i) => sum + processCpuMs(peer.pid) - cpu0[i], 0) / 1000;
      return { seconds: at, copies, operationGone, cpu, pollErrors, slowestPoll };
    }
    if (at * 1000 > RESHARD_TIMEOUT_MS)
      throw new Error(`${label}: not done within ${RESHARD_TIMEOUT_MS / 1000} s: ${JSON.stringify(views)}`);
    if (at - printed >= 2) {
      printed = at;
      const copying = [...copies.entries()].filter(([, seen]) => seen.last === at).map(([key]) => key);
      process.stderr.write(`\r${label}: ${at.toFixed(0)} s, copying ${copying.join(', ') || '—'}`.padEnd(100));
    }
    await sleep(POLL_MS);
  }
}

/**
 * Every peer's exact count is `expected` (give or take `unsure` writes that failed yet may have landed), and `ids`
 * all read back through the first peer; a note of what was found, or a problem.
 */
async function checkPoints(peers: RunningServer[], expected: number, unsure: number, ids: number[]): Promise<string> {
  const counts = await Promise.all(
    peers.map(
      async (peer) =>
        Number(
          (await rest(peer, 'POST', `/collections/${COLLECTION}/points/count`, { exact: true })).result.count,
        ) as number,
    ),
  );
  let missing = 0;
  for (let from = 0; from < ids.length; from += 1000) {
    const chunk = ids.slice(from, from + 1000);
    const read = (await rest(peers[0], 'POST', `/collections/${COLLECTION}/points`, { ids: chunk })).result as Json[];
    missing += chunk.length - read.length;
  }
  const right = counts.every((count) => Math.abs(count - expected) <= unsure) && missing === 0;
  const note = `${[...new Set(counts)].join('/')} of ${expected}${unsure > 0 ? ` ± ${unsure}` : ''}`;
  return right ? `right (${note})` : `WRONG (${note}, ${missing} acknowledged writes missing)`;
}

interface Row {
  step: string;
  writer: string;
  moved: number;
  bytes: number;
  watched: Watched;
  points: string;
}

async function main(): Promise<void> {
  if (process.env.BENCH_RESHARDING === '0') return;
  const began = performance.now();
  const loadAtStart = loadavg()[0];
  const ds = gaussianMixture(POINTS, 0, DIM);
  const problems: string[] = [];

  process.stderr.write('resharding: starting etcd + 3 peers\n');
  const setup = await startCluster(3);
  const peers = setup.peers;
  try {
    const ids = await Promise.all(
      peers.map(async (peer) => String((await rest(peer, 'GET', '/cluster')).result.peer_id)),
    );
    const before = new Set(peers.flatMap(collectionIds));
    await rest(peers[0], 'PUT', `/collections/${COLLECTION}`, {
      vectors: { size: DIM, distance: 'Euclid' },
      shard_number: 2,
      replication_factor: 1,
      hnsw_config: { m: M, ef_construct: EF_CONSTRUCT },
      // Loaded with indexing off, then indexed into one segment per shard, as the other tables' collections.
      optimizers_config: { indexing_threshold: 0, default_segment_number: 1 },
    });
    for (const peer of peers)
      await until(10_000, `${COLLECTION} did not reach every peer`, async () => {
        return (await peerHttp(peer, 'GET', `/collections/${COLLECTION}`)).status === 200;
      });
    let collectionId: string | undefined;
    await until(10_000, `${COLLECTION}: no new collection folder`, async () => {
      collectionId = peers.flatMap(collectionIds).find((dir) => !before.has(dir));
      return collectionId !== undefined;
    });

    const loadSeconds = await load(peers, ds.base);
    await rest(peers[0], 'PATCH', `/collections/${COLLECTION}`, { optimizers_config: { indexing_threshold: 1 } });
    const indexSeconds = await untilIndexed(peers, POINTS);
    process.stderr.write(
      `resharding: loaded in ${loadSeconds.toFixed(1)} s, indexed in ${indexSeconds.toFixed(1)} s\n`,
    );
    if (!(await quiet(peers))) problems.push('the peers were not quiet after indexing');

    const rows: Row[] = [];
    let copy: CopyResult | undefined;
    let total = POINTS;
    let nextId = POINTS + 1;
    const ackedIds: number[] = [];
    let unsure = 0;
    let writerAlone: string | undefined;
    for (const withWriter of WITH_WRITER ? [false, true] : [false]) {
      if (withWriter) {
        // The writer's pace with no resharding, for the rows under it.
        const alone = startWriter(peers, ds.base, nextId);
        await sleep(WRITER_ALONE_MS);
        const wrote = await alone.stop();
        nextId += wrote.sent;
        ackedIds.push(...wrote.acked);
        total += wrote.acked.length;
        unsure += wrote.sent - wrote.acked.length;
        writerAlone = `${wrote.acked.length} acked in ${WRITER_ALONE_MS / 1000} s (${(wrote.acked.length / (WRITER_ALONE_MS / 1000)).toFixed(1)}/s), ${wrote.errors} errors`;
        await quiet(peers);
      }
      for (const direction of ['up', 'down'] as const) {
        const shardNumber = direction === 'up' ? 3 : 2;
        const before = await shards(peers);
        // Up: the new shard goes to the peer holding none. Down: the group's highest shard id goes.
        const holders = new Set([...before.values()].map((shard) => shard.peer));
        const target = peers.findIndex((peer) => !holders.has(peer));
        if (direction === 'up' && target < 0) throw new Error('every peer holds a shard already');
        const removed = Math.max(...before.keys());
        const label = `resharding ${direction}${withWriter ? ' under a writer' : ''}`;
        const body =
          direction === 'up'
            ? `{"start_resharding":{"direction":"up","peer_id":${ids[target]}}}`
            : '{"start_resharding":{"direction":"down"}}';
        const bytesBefore =
          direction === 'down' ? folderSize(shardFolder(before.get(removed)!.peer, collectionId!, removed)).bytes : 0;
        const writer = withWriter ? startWriter(peers, ds.base, nextId) : undefined;
        if (writer) await sleep(500);
        const watched = await reshard(peers, body, shardNumber, label);
        let writerNote = '—';
        if (writer) {
          await sleep(500);
          const wrote = await writer.stop();
          nextId += wrote.sent;
          ackedIds.push(...wrote.acked);
          total += wrote.acked.length;
          unsure += wrote.sent - wrote.acked.length;
          const rate = wrote.acked.length / (watched.seconds + 1);
          writerNote = `${wrote.acked.length} acked (${rate.toFixed(1)}/s), ${wrote.errors} errors`;
          if (wrote.errors > 0)
            problems.push(`${label}: the writer had ${wrote.errors} error(s), last: ${wrote.lastError}`);
        }
        if (watched.pollErrors.length > 0)
          problems.push(`${label}: ${watched.pollErrors.length} poll(s) failed, first: ${watched.pollErrors[0]}`);
        const points = await checkPoints(peers, total, unsure, ackedIds);
        if (!points.startsWith('right')) problems.push(`${label}: points ${points}`);
        const after = await shards(peers);
        const movedShard = direction === 'up' ? [...after.keys()].find((id) => !before.has(id)) : removed;
        if (movedShard === undefined) throw new Error(`${label}: no new shard (${[...after.keys()].join(', ')})`);
        if (direction === 'down' && after.has(removed))
          problems.push(`${label}: shard ${removed} is still listed with ${after.get(removed)!.points} points`);
        const movedFolder = shardFolder(
          (after.get(movedShard) ?? before.get(movedShard))!.peer,
          collectionId!,
          movedShard,
        );
        // Up: the moved shard's folder once indexed (what the plain copy copies); down: as it was before.
        if (direction === 'up') {
          // Bounded: the size is read either way, and what the segments hold is listed if they never get there.
          const done = await until(REINDEX_WAIT_MS, 'not indexed', () => indexed(peers, total), 500).then(
            () => true,
            () => false,
          );
          if (!done)
            problems.push(
              `${label}: not all ${total} points in indexed segments ${REINDEX_WAIT_MS / 1000} s after: ${await segmentsNote(peers)}`,
            );
          if (!(await quiet(peers))) problems.push(`${label}: the peers were not quiet afterwards`);
        }
        const moved = direction === 'up' ? after.get(movedShard)!.points : before.get(removed)!.points;
        const bytes = direction === 'up' ? folderSize(movedFolder).bytes : bytesBefore;
        if (direction === 'up' && !copy) {
          copy = await plainCopy(movedFolder);
          process.stderr.write(
            `resharding: plain copy of ${(copy.bytes / 1e6).toFixed(1)} MB (${copy.files} files): ` +
              `${copy.runs.map((s) => s.toFixed(2)).join(', ')} s\n`,
          );
        }
        if (direction === 'down') {
          // The removed shard's data goes once every peer's catalog drops it.
          const gone = await until(60_000, 'gone', async () => !existsSync(movedFolder), 500).then(
            () => true,
            () => false,
          );
          if (!gone) problems.push(`${label}: shard ${removed}'s folder was still there after 60 s`);
          if (!(await quiet(peers))) problems.push(`${label}: the peers were not quiet afterwards`);
        }
        rows.push({
          step: `${direction} ${direction === 'up' ? '2 → 3' : '3 → 2'} (shard ${movedShard})`,
          writer: writerNote,
          moved,
          bytes,
          watched,
          points,
        });
      }
    }

    for (const [i, peer] of peers.entries()) {
      const lines = peer
        .output()
        .split('\n')
        .filter((line) => line.trim() !== '');
      if (lines.length > 0)
        problems.push(`server ${i} logged ${lines.length} line(s), first: ${lines[0].slice(0, 300)}`);
    }
    report(rows, copy!, { loadSeconds, indexSeconds, problems, began, loadAtStart, writerAlone });
  } catch (error) {
    for (const [i, peer] of peers.entries()) {
      const state = existsSync(`/proc/${peer.pid}`) ? 'running' : 'gone';
      process.stderr.write(`\nserver ${i} (pid ${peer.pid}, ${state}) output (tail):\n${peer.output().slice(-3000)}\n`);
    }
    throw error;
  } finally {
    removeCopies();
    await stopAll();
  }
}

const mb = (bytes: number) => bytes / 1e6;

function report(
  rows: Row[],
  copy: CopyResult,
  run: {
    loadSeconds: number;
    indexSeconds: number;
    problems: string[];
    began: number;
    loadAtStart: number;
    writerAlone?: string;
  },
): void {
  const copyRate = mb(copy.bytes) / copy.seconds;
  console.log(
    `\nResharding — etcd + 3 peers, a collection made in cluster mode with shard_number 2, replication_factor 1 and ` +
      `${POINTS} × ${DIM}-d points (seeded Gaussian mixture, Euclid, HNSW m=${M}, ef_construct=${EF_CONSTRUCT}, ` +
      `indexed; loaded in ${run.loadSeconds.toFixed(1)} s, indexed in ${run.indexSeconds.toFixed(1)} s); the new ` +
      `shard on the third peer; ${cpus()[0]?.model ?? 'cpu'} × ${availableParallelism()}, Node ${process.version}; ` +
      'everything on this machine.\n',
  );
  console.log(
    'Seconds: from the request until no peer lists a resharding operation and every peer says the new shard_number ' +
      "(polled every 100 ms). Points moved: up, the new shard's points_count afterwards; down, the removed shard's " +
      `before. MB: that shard's folder (sum of file sizes, MB = 10^6 bytes) once indexed after up, as it ` +
      'was before down. Plain copy: `cp -r` of that folder (after the first up) to a temporary folder on the same ' +
      `disk, then fsync of every file, median of 3 (${copy.runs.map((s) => s.toFixed(2)).join(', ')} s). ` +
      "÷ copy: MB/s ÷ the plain copy's MB/s. Writer: one REST client, one new point per request (wait=true) " +
      `through the peers in turn, ${WRITER_PAUSE_MS} ms between requests, from 0.5 s before the request until 0.5 s ` +
      "after the end (its rate: acknowledged writes ÷ (seconds + 1)). Exact count: every peer's exact count against the points loaded plus the writer's " +
      'acknowledged ones (± its failed ones), and every acknowledged one read back. Copies: each resharding copy ' +
      "(source shard → target shard) with when it was first and last listed; the rest is the stages' settling. " +
      'CPU s: all three servers over the step. Slowest poll: the longest round of polling every peer (a copy is ' +
      'listed at most that late).\n',
  );
  const body: (string | number)[][] = rows.map((row) => {
    const rate = mb(row.bytes) / row.watched.seconds;
    return [
      row.step,
      row.writer,
      row.moved,
      mb(row.bytes).toFixed(1),
      row.watched.seconds.toFixed(2),
      Math.round(row.moved / row.watched.seconds),
      rate.toFixed(2),
      `${(rate / copyRate).toFixed(4)}×`,
      row.points,
      [...row.watched.copies.entries()]
        .map(([key, seen]) => `${key} ${seen.first.toFixed(1)}–${seen.last.toFixed(1)} s`)
        .join(', ') || '—',
      row.watched.cpu.toFixed(1),
      row.watched.slowestPoll.toFixed(2),
    ];
  });
  const copiedPoints = rows[0]?.moved ?? 0;
  body.push([
    'plain copy (cp -r + fsync)',
    '—',
    copiedPoints,
    mb(copy.bytes).toFixed(1),
    copy.seconds.toFixed(2),
    Math.round(copiedPoints / copy.seconds),
    copyRate.toFixed(1),
    '1.000×',
    `${copy.files} files, same bytes`,
    '—',
    '—',
    '—',
  ]);
  console.log(
    table(
      [
        'step',
        'writer',
        'points moved',
        'MB',
        'seconds',
        'points/s',
        'MB/s',
        '÷ copy',
        'exact count',
        'copies',
        'CPU s',
        'slowest poll s',
      ],
      body,
    ),
  );
  if (run.writerAlone) console.log(`\nThe writer alone, with no resharding: ${run.writerAlone}.`);
  if (run.problems.length > 0) console.log(`\nProblems:\n${run.problems.map((p) => `- ${p}`).join('\n')}`);
  console.log(
    `\nresharding took ${((performance.now() - run.began) / 1000).toFixed(0)} s; 1-minute load average ` +
      `${run.loadAtStart.toFixed(1)} at the start, ${loadavg()[0].toFixed(1)} at the end (${availableParallelism()} cores)`,
  );
}

for (const [signal, code] of [
  ['SIGINT', 130],
  ['SIGTERM', 143],
] as const) {
  process.once(signal, () => {
    process.stderr.write(`\n${signal}: stopping servers and etcd\n`);
    removeCopies();
    void stopAll().finally(() => process.exit(code));
  });
}

main().catch(async (error: unknown) => {
  console.error(error);
  removeCopies();
  await stopAll();
  process.exit(1);
});
