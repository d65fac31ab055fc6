// npm run bench:cluster, last part (issue 25, item 4): what a shard transfer costs. etcd + 2 cluster peers; a
// collection with shard_number 1, replication_factor 1 and BENCH_TRANSFER_POINTS (100 000) × 128-d points (the
// seeded Gaussian mixture of the other tables), indexed into one segment, on the leader. For each method
// (stream_records, wal_delta, snapshot) the shard is replicated to the other peer and timed from the request until
// every peer shows the copy Active and no transfer: MB/s (the source's shard folder on disk ÷ time) and points/s,
// beside a plain `cp -r` of the same folder on this machine with every copied file fsync'd (the ratio column);
// source and copy checksums must agree; the copy is dropped before the next method (the last one is kept).
// Then time-to-Active of a recovered replica, twice: replication_factor 2, the peer holding the second replica
// SIGKILLed, BENCH_TRANSFER_RECOVERY (10 000) more points written through the other peer (its replica goes Dead),
// the peer restarted once its lease is gone, and the time from the restart until the leader has made its replica
// Active again. First on that collection (the source's log still holds the missed writes: a WAL delta), then on a
// second one like it but with 1 MiB WAL segments (wal_capacity_mb 1), whose log no longer reaches back after the
// writes while down, so the leader's wal_delta runs again as stream_records: the full stream.
// Env: BENCH_TRANSFER_POINTS (100000), BENCH_TRANSFER_RECOVERY (10000), BENCH_TRANSFER_INDEX_WAIT_S (600: how long
// to wait for a copy to be indexed), BENCH_TRANSFERS (1; 0 skips this part).
import * as grpc from '@grpc/grpc-js';
import { existsSync } from 'node:fs';
import { availableParallelism, cpus, loadavg } from 'node:os';
import { clusterView, Json, localChecksums, peerHttp } from '../../test/e2e/support/cluster-client';
import type { RunningServer } from '../../test/e2e/support/server-harness';
import { gaussianMixture } from '../engine/datasets';
import { table } from '../engine/report';
import { processCpuMs, RawClient } from '../server/clients';
import { startCluster, stopAll } from './setups';
import { collectionIds, type CopyResult, folderSize, plainCopy, removeCopies, shardFolder } from './shard-files';

const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const POINTS = env('BENCH_TRANSFER_POINTS', 100_000);
const RECOVERY_POINTS = env('BENCH_TRANSFER_RECOVERY', 10_000);
const INDEX_WAIT_MS = env('BENCH_TRANSFER_INDEX_WAIT_S', 600) * 1000;
const DIM = 128;
const M = 16;
const EF_CONSTRUCT = 100;
const BATCH = 256;
const WRITERS = 4;
const COPY_RUNS = 3;
const POLL_MS = 100;
const TRANSFER_TIMEOUT_MS = 900_000;
/** The collection of the replicate rows and of the WAL-delta recovery. */
const MAIN = 'bench-transfers';
/** The full-stream recovery's collection: WAL segments of 1 MiB, so the writes while down roll the log past them. */
const SHORT_WAL = 'bench-transfers-short-wal';
/** In the order they run; the last one's copy is kept as the second replica of the recovery. */
const METHODS = ['stream_records', 'wal_delta', 'snapshot'] as const;
/** The stages a transfer's comment names, in the order a source goes through them (transfer-progress.ts). */
const STAGES = [
  'proxifying',
  'creating snapshot',
  'transferring',
  'applying queued updates',
  'finalizing',
  'waiting for writes to settle',
] as const;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function progress(label: string, done: number, total: number): void {
  const width = 30;
  const filled = Math.round((done / total) * width);
  process.stderr.write(`\r${label.padEnd(40)} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total}`);
  if (done >= total) process.stderr.write('\n');
}

/** Servers restarted here (the setup's own cleanup stops only the processes it started). */
const restarted = new Set<RunningServer>();

async function cleanUp(): Promise<void> {
  for (const server of restarted) {
    await server.stop().catch((error: unknown) => process.stderr.write(`cleanup failed: ${String(error)}\n`));
  }
  restarted.clear();
  removeCopies();
  await stopAll();
}

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

/** Creates a collection (shard_number 1, indexing off) and waits until every peer has it; its folder id. */
async function createCollection(peers: RunningServer[], name: string, extra: Json): Promise<string> {
  const before = new Set(peers.flatMap(collectionIds));
  await rest(peers[0], 'PUT', `/collections/${name}`, {
    vectors: { size: DIM, distance: 'Euclid' },
    shard_number: 1,
    hnsw_config: { m: M, ef_construct: EF_CONSTRUCT },
    // Loaded with indexing off, then indexed into one segment, as the other tables' collections.
    optimizers_config: { indexing_threshold: 0, default_segment_number: 1 },
    ...extra,
  });
  for (const peer of peers) {
    await until(10_000, `${name} did not reach every peer`, async () => {
      return (await peerHttp(peer, 'GET', `/collections/${name}`)).status === 200;
    });
  }
  let id: string | undefined;
  await until(10_000, `${name}: no new collection folder`, async () => {
    id = peers.flatMap(collectionIds).find((dir) => !before.has(dir));
    return id !== undefined;
  });
  return id!;
}

/** Loads ids first..first+count-1 with gRPC Upsert (wait=true), WRITERS at once, batch b to peer b mod P. */
async function upsert(
  peers: RunningServer[],
  collection: string,
  base: Float32Array,
  first: number,
  count: number,
  label: string,
): Promise<number> {
  const clients = Array.from({ length: WRITERS }, () =>
    peers.map((peer) => {
      const metadata = new grpc.Metadata();
      metadata.set('api-key', peer.apiKey);
      return new RawClient(peer.grpcAddress, metadata);
    }),
  );
  const batches = Math.ceil(count / BATCH);
  let next = 0;
  let done = 0;
  const started = performance.now();
  try {
    await Promise.all(
      clients.map(async (via) => {
        for (let b = next++; b < batches; b = next++) {
          const points = [];
          for (let i = first + b * BATCH; i < Math.min(first + count, first + (b + 1) * BATCH); i++) {
            points.push({
              id: { num: i },
              vectors: { vector: { dense: { data: Array.from(base.subarray((i - 1) * DIM, i * DIM)) } } },
            });
          }
          await via[b % via.length].unary('Upsert', { collectionName: collection, points, wait: true });
          if (++done % 10 === 0 || done === batches) progress(label, done, batches);
        }
      }),
    );
  } finally {
    clients.flat().forEach((client) => client.close());
  }
  return (performance.now() - started) / 1000;
}

/** Whether the peer's own segments of `collection` hold `points` points, all in indexed segments (telemetry). */
async function indexed(peer: RunningServer, collection: string, points: number): Promise<boolean> {
  const body = await rest(peer, 'GET', '/telemetry?details_level=4');
  const found = (body.result.collections.collections as Json[] | undefined)?.find((c) => c.id === collection);
  const segments = ((found?.shards ?? []) as Json[]).flatMap((shard) =>
    ((shard.local?.segments ?? []) as Json[]).map((s) => s.info as { segment_type: string; num_points: number }),
  );
  const inIndexed = segments.filter((s) => s.segment_type === 'indexed').reduce((sum, s) => sum + s.num_points, 0);
  return inIndexed === points && !segments.some((s) => s.segment_type !== 'indexed' && s.num_points > 0);
}

/** Seconds from `started` until `indexed`; undefined past INDEX_WAIT_MS. */
async function untilIndexed(
  peer: RunningServer,
  collection: string,
  points: number,
  started: number,
): Promise<number | undefined> {
  while (performance.now() < started + INDEX_WAIT_MS) {
    if (await indexed(peer, collection, points)) return (performance.now() - started) / 1000;
    await sleep(500);
  }
  return undefined;
}

/** Turns indexing on and waits until every peer in `holders` has all points indexed; the seconds taken. */
async function indexAll(holders: RunningServer[], collection: string, points: number): Promise<number> {
  const started = performance.now();
  await rest(holders[0], 'PATCH', `/collections/${collection}`, { optimizers_config: { indexing_threshold: 1 } });
  for (const peer of holders) {
    if ((await untilIndexed(peer, collection, points, started)) === undefined)
      throw new Error(`${collection} was not indexed within ${INDEX_WAIT_MS / 1000} s`);
  }
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

interface Watched {
  /** From the request (or the restart) until every peer shows the target Active and no transfer. */
  seconds: number;
  /** Seconds from the start at which a stage was first seen in the transfer's comment. */
  stageSeen: Map<string, number>;
  /** Seconds from the start at which a transfer was first seen, and last seen. */
  firstSeen?: number;
  lastSeen?: number;
  /** CPU seconds of the source and target processes over the watch. */
  sourceCpu: number;
  targetCpu: number;
  /**
   * Each run of a transfer seen (a new one when a transfer shows up after none was listed, its method changes, or
   * its comment goes back to an earlier stage or time): its method, when it was first seen, and the records its
   * comment counted (points for stream_records, logged writes for wal_delta, files for snapshot).
   */
  runs: { method: string; at: number; records?: number }[];
  /** Whether a peer showed the target's replica Dead after a run had it waiting (that run failed). */
  targetDead: boolean;
}

/**
 * Polls every peer's cluster info every POLL_MS from `started` until the target's replica of shard 0 is Active
 * everywhere and no peer lists a transfer; notes the runs and stages the transfer's comment shows on the way.
 */
async function watchTransfer(
  peers: RunningServer[],
  collection: string,
  targetId: string,
  started: number,
  cpu: { source: RunningServer; target: RunningServer; source0: number; target0: number },
  label: string,
): Promise<Watched> {
  const stageSeen = new Map<string, number>();
  let firstSeen: number | undefined;
  let lastSeen: number | undefined;
  const runs: Watched['runs'] = [];
  let targetDead = false;
  let waited = false;
  /** Where the last poll saw the transfer: stage index and seconds in it; undefined when none was listed. */
  let last: { stage: number; inStage: number } | undefined;
  let printed = 0;
  for (;;) {
    const views = await Promise.all(
      peers.map(async (peer) => (await rest(peer, 'GET', `/collections/${collection}/cluster`)).result as Json),
    );
    const at = (performance.now() - started) / 1000;
    const transfers = views.flatMap((view) => view.shard_transfers as Json[]).filter((t) => String(t.to) === targetId);
    if (transfers.length > 0) {
      firstSeen ??= at;
      lastSeen = at;
    }
    // The source's listing carries the progress comment.
    const transfer = transfers.find((t) => t.comment) ?? transfers[0];
    if (transfer) {
      const comment = String(transfer.comment ?? '');
      const method = String(transfer.method);
      const stage = STAGES.findIndex((s) => comment.startsWith(`${s} (`));
      const inStage = Number(/^[a-z ]+ \((\d+(?:\.\d+)?)s\)/.exec(comment)?.[1] ?? 0);
      const records = /Transferring records \(\d+\/(\d+)\)/.exec(comment)?.[1];
      if (stage >= 0 && !stageSeen.has(STAGES[stage])) stageSeen.set(STAGES[stage], at);
      const again =
        last === undefined ||
        method !== runs[runs.length - 1]?.method ||
        (stage >= 0 && (stage < last.stage || (stage === last.stage && inStage + 0.05 < last.inStage)));
      if (again) runs.push({ method, at });
      if (records !== undefined) runs[runs.length - 1].records = Number(records);
      if (stage >= 0) last = { stage, inStage };
      if (again || at - printed >= 2) {
        printed = at;
        process.stderr.write(`\r${label}: ${method}: ${comment.slice(0, 100).padEnd(100)}`);
      }
    } else last = undefined;
    const replicas = views.map((view) =>
      [
        ...(view.local_shards as Json[]).map((s): Json => ({ ...s, peer_id: view.peer_id })),
        ...(view.remote_shards as Json[]),
      ].find((s) => s.shard_id === 0 && String(s.peer_id) === targetId),
    );
    // Dead after a run had it waiting (a recovery's target starts Dead): that run failed.
    if (replicas.some((r) => r?.state === 'Dead')) targetDead ||= waited;
    else if (runs.length > 0) waited = true;
    const active =
      views.every((view) => (view.shard_transfers as Json[]).length === 0) &&
      replicas.every((r) => r?.state === 'Active');
    if (active) {
      process.stderr.write(`\r${label}: Active after ${at.toFixed(1)} s`.padEnd(130) + '\n');
      return {
        seconds: at,
        stageSeen,
        firstSeen,
        lastSeen,
        sourceCpu: (processCpuMs(cpu.source.pid) - cpu.source0) / 1000,
        targetCpu: (processCpuMs(cpu.target.pid) - cpu.target0) / 1000,
        runs,
        targetDead,
      };
    }
    if (at * 1000 > TRANSFER_TIMEOUT_MS) {
      throw new Error(`${label}: target not Active within ${TRANSFER_TIMEOUT_MS / 1000} s: ${JSON.stringify(views)}`);
    }
    await sleep(POLL_MS);
  }
}

/** Source and target checksums of shard 0 (live points and digest) once they agree; throws after 30 s. */
async function equalChecksums(collection: string, source: RunningServer, target: RunningServer): Promise<string> {
  let sums: (Json | undefined)[] = [];
  try {
    await until(30_000, 'checksums differ', async () => {
      sums = await Promise.all([source, target].map(async (peer) => (await localChecksums(peer, collection)).get(0)));
      return sums[0] !== undefined && JSON.stringify(sums[0]) === JSON.stringify(sums[1]);
    });
  } catch {
    throw new Error(
      `${collection}: checksums differ: source ${JSON.stringify(sums[0])}, copy ${JSON.stringify(sums[1])}`,
    );
  }
  return `equal (${sums[0]!.points} points)`;
}

interface Row {
  label: string;
  method: string;
  /** Points of the shard when the transfer started. */
  points: number;
  /** Bytes of the source's shard folder when the transfer started. */
  bytes: number;
  watched: Watched;
  checksums: string;
  /** Seconds from the request until the copy held every point in indexed segments. */
  indexedAfter?: number;
  /** Recovery only: from the restart until the server answered /readyz. */
  readySeconds?: number;
}

/** The runs a watch saw: their methods and records, and whether one failed on the way. */
function runsNote(watched: Watched): string {
  const runs = watched.runs
    .map((run) => `${run.method}${run.records === undefined ? '' : ` (${run.records})`} at ${run.at.toFixed(1)} s`)
    .join(', then ');
  return `${watched.runs.length}: ${runs}${watched.targetDead ? '; the copy went Dead in between' : ''}`;
}

interface Cluster {
  peers: RunningServer[];
  ids: string[];
}

/**
 * Replication factor 2 on both peers; `victim` (holding the second replica) SIGKILLed, RECOVERY_POINTS more points
 * through `source`, `victim` restarted once its lease ended, timed until its replica is Active again.
 */
async function recovery(
  cluster: Cluster,
  collection: string,
  collectionId: string,
  base: Float32Array,
  source: RunningServer,
  victim: RunningServer,
  problems: string[],
): Promise<{ row: Row; back: RunningServer }> {
  const victimId = cluster.ids[cluster.peers.indexOf(victim)];
  const label = `recovery of ${collection}`;
  process.stderr.write(`${label}: SIGKILL of the peer holding the second replica\n`);
  await victim.kill();
  await upsert([source], collection, base, POINTS + 1, RECOVERY_POINTS, `${label}: upsert, one peer down`);
  await until(30_000, `${label}: the killed peer's replica was not marked Dead`, async () => {
    return (await clusterView(source, collection)).replicas.find((r) => r.peer === victimId)?.state === 'Dead';
  });
  // Restarted once its lease is gone: down for a while, as after a crash, not a moment (the leader tries to recover
  // the replica on a peer with a live lease, and backs off after each failure: see "Where the time goes").
  await until(90_000, `${label}: the killed peer's lease did not end`, async () => {
    const live = Object.keys(((await rest(source, 'GET', '/cluster')).result.peers ?? {}) as Json);
    return !live.includes(victimId) && (await clusterView(source, collection)).transfers.length === 0;
  });
  if (!(await quiet([source]))) problems.push(`${label}: the source was not quiet before the restart`);
  const bytes = folderSize(shardFolder(source, collectionId, 0)).bytes;
  const source0 = processCpuMs(source.pid);
  const started = performance.now();
  const back = await victim.restart();
  restarted.add(back);
  const readySeconds = (performance.now() - started) / 1000;
  const peers = cluster.peers.map((peer) => (peer === victim ? back : peer));
  const watched = await watchTransfer(
    peers,
    collection,
    victimId,
    started,
    { source, target: back, source0, target0: 0 },
    label,
  );
  const checksums = await equalChecksums(collection, source, back);
  if (!(await quiet(peers))) problems.push(`${label}: the peers were not quiet afterwards`);
  return {
    row: {
      label: `recovery after SIGKILL (+${RECOVERY_POINTS} points while down)`,
      // The methods of its runs, a repeated one once (a run failing towards a peer not reachable yet, then one more).
      method: watched.runs
        .map((run) => run.method)
        .filter((method, i, all) => method !== all[i - 1])
        .join(' → '),
      points: POINTS + RECOVERY_POINTS,
      bytes,
      watched,
      checksums,
      readySeconds,
    },
    back,
  };
}

async function main(): Promise<void> {
  if (process.env.BENCH_TRANSFERS === '0') return;
  const began = performance.now();
  const loadAtStart = loadavg()[0];
  const ds = gaussianMixture(POINTS + RECOVERY_POINTS, 0, DIM);
  const problems: string[] = [];

  process.stderr.write('transfers: starting etcd + 2 peers\n');
  const setup = await startCluster(2);
  const cluster: Cluster = { peers: [...setup.peers], ids: [] };
  try {
    cluster.ids = await Promise.all(
      cluster.peers.map(async (peer) => String((await rest(peer, 'GET', '/cluster')).result.peer_id)),
    );
    // The source is the leader, so that the peer killed for the recoveries is not: their recoveries are started
    // by a leader that was there all along.
    const leaderId = String((await rest(cluster.peers[0], 'GET', '/cluster')).result.raft_info.leader);
    const source = cluster.peers[cluster.ids.indexOf(leaderId)];
    const target = cluster.peers.find((peer) => peer !== source)!;
    const targetId = cluster.ids[cluster.peers.indexOf(target)];
    if (!source) throw new Error(`the leader ${leaderId} is none of the peers`);

    const mainId = await createCollection(cluster.peers, MAIN, { replication_factor: 1 });
    const placedOn = (await clusterView(source, MAIN)).replicas[0].peer;
    if (placedOn !== leaderId) {
      // Moved while empty.
      await rest(
        source,
        'POST',
        `/collections/${MAIN}/cluster`,
        `{"move_shard":{"shard_id":0,"from_peer_id":${placedOn},"to_peer_id":${leaderId}}}`,
      );
      await until(30_000, 'the empty shard did not move to the leader', async () => {
        const views = await Promise.all(cluster.peers.map((peer) => clusterView(peer, MAIN)));
        return views.every(
          (view) =>
            view.transfers.length === 0 &&
            view.replicas.map((r) => `${r.peer}:${r.state}`).join() === `${leaderId}:Active`,
        );
      });
    }
    const loadSeconds = await upsert(cluster.peers, MAIN, ds.base, 1, POINTS, 'transfers: upsert');
    const indexSeconds = await indexAll([source], MAIN, POINTS);
    process.stderr.write(`transfers: loaded in ${loadSeconds.toFixed(1)} s, indexed in ${indexSeconds.toFixed(1)} s\n`);
    if (!(await quiet(cluster.peers))) problems.push('the peers were not quiet after indexing');

    const folder = shardFolder(source, mainId, 0);
    const copy = await plainCopy(folder, COPY_RUNS);
    process.stderr.write(
      `transfers: plain copy of ${(copy.bytes / 1e6).toFixed(1)} MB (${copy.files} files): ` +
        `${copy.runs.map((s) => s.toFixed(2)).join(', ')} s\n`,
    );

    const rows: Row[] = [];
    for (const [i, method] of METHODS.entries()) {
      const { bytes } = folderSize(folder);
      const cpu = { source, target, source0: processCpuMs(source.pid), target0: processCpuMs(target.pid) };
      const started = performance.now();
      await rest(
        source,
        'POST',
        `/collections/${MAIN}/cluster`,
        `{"replicate_shard":{"shard_id":0,"from_peer_id":${leaderId},"to_peer_id":${targetId},"method":"${method}"}}`,
      );
      const watched = await watchTransfer(cluster.peers, MAIN, targetId, started, cpu, `transfers: ${method}`);
      const checksums = await equalChecksums(MAIN, source, target);
      const indexedAfter = await untilIndexed(target, MAIN, POINTS, started);
      if (indexedAfter === undefined) problems.push(`${method}: the copy was not indexed within the wait`);
      rows.push({ label: 'replicate_shard', method, points: POINTS, bytes, watched, checksums, indexedAfter });
      if (watched.runs.length !== 1 || watched.runs[0].method !== method || watched.targetDead)
        problems.push(`${method}: the copy was not made by one ${method} run (${runsNote(watched)})`);
      if (i < METHODS.length - 1) {
        await rest(
          source,
          'POST',
          `/collections/${MAIN}/cluster`,
          `{"drop_replica":{"shard_id":0,"peer_id":${targetId}}}`,
        );
        // The target deletes its data once its catalog shows the replica gone.
        await until(
          60_000,
          `${method}: the dropped replica did not go away`,
          async () => {
            const views = await Promise.all(cluster.peers.map((peer) => clusterView(peer, MAIN)));
            return (
              views.every((view) => view.replicas.every((r) => r.peer !== targetId)) &&
              folderSize(shardFolder(target, mainId, 0)).bytes === 0
            );
          },
          200,
        );
      }
      if (!(await quiet(cluster.peers))) problems.push(`${method}: the peers were not quiet afterwards`);
    }

    // Recovery by WAL delta: rf 2 (the copy kept from the last method is the second replica).
    await rest(source, 'PATCH', `/collections/${MAIN}`, { params: { replication_factor: 2 } });
    await sleep(1000);
    const view = await clusterView(source, MAIN);
    const states = view.replicas.map((r) => `${r.peer}:${r.state}`).sort();
    if (view.transfers.length > 0 || states.join() !== [`${leaderId}:Active`, `${targetId}:Active`].sort().join())
      throw new Error(`unexpected replicas after rf 2: ${states.join(', ')}, ${view.transfers.length} transfer(s)`);
    const delta = await recovery(cluster, MAIN, mainId, ds.base, source, target, problems);
    rows.push(delta.row);
    cluster.peers[cluster.peers.indexOf(target)] = delta.back;

    // Recovery by full stream: the same again on a collection whose log does not reach back past the writes while
    // the peer was down (1 MiB WAL segments, the last closed one kept), so wal_delta runs again as stream_records.
    await rest(source, 'DELETE', `/collections/${MAIN}`);
    const shortId = await createCollection(cluster.peers, SHORT_WAL, {
      replication_factor: 2,
      wal_config: { wal_capacity_mb: 1, wal_retain_closed: 1 },
    });
    await upsert(cluster.peers, SHORT_WAL, ds.base, 1, POINTS, 'transfers: upsert (short WAL, rf 2)');
    await indexAll(cluster.peers, SHORT_WAL, POINTS);
    if (!(await quiet(cluster.peers)))
      problems.push('the peers were not quiet after indexing the short-WAL collection');
    const full = await recovery(cluster, SHORT_WAL, shortId, ds.base, source, delta.back, problems);
    rows.push(full.row);
    if (delta.row.watched.runs.some((run) => run.method !== 'wal_delta'))
      problems.push(`recovery of ${MAIN} was not a WAL delta alone (${runsNote(delta.row.watched)})`);
    if (!full.row.watched.runs.some((run) => run.method === 'stream_records'))
      problems.push(`recovery of ${SHORT_WAL} did not stream the shard (${runsNote(full.row.watched)})`);

    for (const [i, peer] of [...setup.peers, delta.back, full.back].entries()) {
      const lines = peer
        .output()
        .split('\n')
        .filter((line) => line.trim() !== '');
      if (lines.length > 0)
        problems.push(`server ${i} logged ${lines.length} line(s), first: ${lines[0].slice(0, 300)}`);
    }
    report(rows, copy, { loadSeconds, indexSeconds, problems, began, loadAtStart });
  } catch (error) {
    for (const [i, peer] of [...setup.peers, ...restarted].entries()) {
      const state = existsSync(`/proc/${peer.pid}`) ? 'running' : 'gone';
      process.stderr.write(`\nserver ${i} (pid ${peer.pid}, ${state}) output (tail):\n${peer.output().slice(-3000)}\n`);
    }
    throw error;
  } finally {
    await cleanUp();
  }
}

const mb = (bytes: number) => bytes / 1e6;
const ratio = (a: number, b: number) => `${(a / b).toFixed(3)}×`;
const secs = (s: number | undefined) => (s === undefined ? '—' : s.toFixed(1));

function report(
  rows: Row[],
  copy: CopyResult,
  run: { loadSeconds: number; indexSeconds: number; problems: string[]; began: number; loadAtStart: number },
): void {
  const copyRate = mb(copy.bytes) / copy.seconds;
  console.log(
    `\nShard transfers — etcd + 2 peers, a collection of shard_number 1 with ${POINTS} × ${DIM}-d points (seeded ` +
      `Gaussian mixture, Euclid, HNSW m=${M}, ef_construct=${EF_CONSTRUCT}, indexed into one segment; loaded in ` +
      `${run.loadSeconds.toFixed(1)} s, indexed in ${run.indexSeconds.toFixed(1)} s) on the leader; ` +
      `${cpus()[0]?.model ?? 'cpu'} × ${availableParallelism()}, Node ${process.version}; everything on this ` +
      'machine, with no other write.\n',
  );
  console.log(
    'Seconds: from the request until every peer shows the copy Active and no transfer (polled every 100 ms); ' +
      'for a recovery, from the restart of the killed peer (its time to /readyz included: see below). MB: the ' +
      'source shard folder (sum of file sizes, MB = 10^6 bytes) when the transfer starts; MB/s and points/s: the ' +
      'whole shard ÷ seconds (for a recovery: until the replica is whole again, whatever was sent). Plain copy: ' +
      '`cp -r` of the same folder to a temporary folder on the same disk, then fsync of every file, median of ' +
      `${COPY_RUNS} (${copy.runs.map((s) => s.toFixed(2)).join(', ')} s); the source is in the page cache. ÷ copy: ` +
      "MB/s ÷ the plain copy's MB/s. Checksums: source and copy agree (live points and digest). Runs: the " +
      "transfer runs seen, with the records each one's comment counted (points for stream_records, logged writes " +
      `for wal_delta, files for snapshot). WAL-delta recovery: on ${MAIN}, whose log still holds the writes the ` +
      `restarted replica missed; full stream: on ${SHORT_WAL} (wal_capacity_mb 1, wal_retain_closed 1), whose ` +
      "log no longer does, so the leader's wal_delta runs again as stream_records.\n",
  );
  const body: (string | number)[][] = rows.map((row) => {
    const rate = mb(row.bytes) / row.watched.seconds;
    return [
      row.label,
      row.method,
      row.points,
      mb(row.bytes).toFixed(1),
      row.watched.seconds.toFixed(2),
      rate.toFixed(1),
      Math.round(row.points / row.watched.seconds),
      ratio(rate, copyRate),
      row.checksums,
      runsNote(row.watched),
    ];
  });
  body.push([
    'plain copy (cp -r + fsync)',
    '—',
    POINTS,
    mb(copy.bytes).toFixed(1),
    copy.seconds.toFixed(2),
    copyRate.toFixed(1),
    Math.round(POINTS / copy.seconds),
    '1.000×',
    `${copy.files} files, same bytes`,
    '—',
  ]);
  console.log(
    table(['transfer', 'method', 'points', 'MB', 'seconds', 'MB/s', 'points/s', '÷ copy', 'checksums', 'runs'], body),
  );

  console.log(
    '\nWhere the time goes: seconds from the request (recovery: the restart) until the restarted server answered ' +
      '/readyz, a transfer and each stage of its comment were first seen (a stage shorter than the 100 ms poll may ' +
      'not show; any run), a transfer was last seen, and the copy was Active everywhere; the last run took: from ' +
      'when the run that made the copy was first seen until Active everywhere; CPU seconds of the source and ' +
      "target servers over that time (a restarted target's include its start); the copy indexed: until its own " +
      "segments held every point in indexed segments (a streamed copy builds its HNSW itself; a snapshot's " +
      "restore brings the source's).\n",
  );
  const seenStages = STAGES.filter((stage) => rows.some((row) => row.watched.stageSeen.has(stage)));
  console.log(
    table(
      [
        'transfer',
        'method',
        'ready',
        'transfer seen',
        ...seenStages,
        'transfer last seen',
        'Active everywhere',
        'last run took',
        'source CPU s',
        'target CPU s',
        'copy indexed',
      ],
      rows.map((row) => [
        row.label,
        row.method,
        secs(row.readySeconds),
        secs(row.watched.firstSeen),
        ...seenStages.map((stage) => secs(row.watched.stageSeen.get(stage))),
        secs(row.watched.lastSeen),
        row.watched.seconds.toFixed(1),
        secs(
          row.watched.runs.length === 0
            ? undefined
            : row.watched.seconds - row.watched.runs[row.watched.runs.length - 1].at,
        ),
        row.watched.sourceCpu.toFixed(1),
        row.watched.targetCpu.toFixed(1),
        secs(row.indexedAfter),
      ]),
    ),
  );
  if (run.problems.length > 0) console.log(`\nProblems:\n${run.problems.map((p) => `- ${p}`).join('\n')}`);
  console.log(
    `\ntransfers took ${((performance.now() - run.began) / 1000).toFixed(0)} s; 1-minute load average ` +
      `${run.loadAtStart.toFixed(1)} at the start, ${loadavg()[0].toFixed(1)} at the end (${availableParallelism()} cores)`,
  );
}

for (const [signal, code] of [
  ['SIGINT', 130],
  ['SIGTERM', 143],
] as const) {
  process.once(signal, () => {
    process.stderr.write(`\n${signal}: stopping servers and etcd\n`);
    void cleanUp().finally(() => process.exit(code));
  });
}

main().catch(async (error: unknown) => {
  console.error(error);
  await cleanUp();
  process.exit(1);
});
