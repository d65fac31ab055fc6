// Regression specs for the shard-transfer review (defects D1–D8, fixed in b353093 on top of the clocks of 9e8091f).
// Each runs the reviewer's scenario on two peers in one process (the harness of ../testing/two-peer-harness.ts: real
// app contexts sharing one catalog through an in-memory store that behaves as etcd's watch does; only the wire is a
// stand-in), plus a third peer that only answers writes where a scenario needs one.
// D7 (the gRPC mapper) is apps/server/src/cluster/grpc/cluster-setup.mapper.spec.ts.
import { type CatalogState, type ReplicaState, type ShardTransferKey } from '@vectorstore/collections';
import { DomainError } from '@vectorstore/common';
import { type ClockTag, type Filter, type UpdateOperation } from '@vectorstore/points';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { epochOf, StaleRouting } from '../local-replicas';
import {
  gate,
  holdCopy,
  Network,
  range,
  SharedCatalog,
  startDriver as startHarnessDriver,
  startPeer as startHarnessPeer,
  stopPeers,
  ticks,
  twoPeerMembership,
  until,
  type Peer,
} from '../testing/two-peer-harness';
import { TransferDriver } from './transfer-driver';
import { TransferStep } from './transfer-steps';

const A = '101';
const B = '202';
/** A peer that holds a replica but is not started: the network answers its writes (see `Network.stubs`). */
const R = '303';

type Payload = Record<string, string>;
const dense = (...values: number[]) => ({ kind: 'dense' as const, values: Float32Array.from(values) });
const point = (id: number, payload: Payload = { x: 'old' }) => ({
  id: BigInt(id),
  vectors: { a: dense(id, 1) },
  payload,
});
const upsert = (ids: number[], payload?: Payload | ((id: number) => Payload)): UpdateOperation => ({
  upsert: { points: ids.map((id) => point(id, typeof payload === 'function' ? payload(id) : payload)) },
});
const op = (operation: UpdateOperation): TransferStep => ({ kind: 'operation', operation });

describe('shard transfers: regressions of the review (D1–D6, D8)', () => {
  let shared: SharedCatalog;
  let net: Network;
  let peerA: Peer;
  let peerB: Peer;
  let drivers: TransferDriver[];

  const membership = twoPeerMembership(A);
  const startPeer = (id: string) =>
    startHarnessPeer({ id, shared, net, membership, dirPrefix: 'vs-transfer-regressions' });
  /** Starts the transfer driver of `peer` (a process of it): it runs the transfers whose source it is. */
  const startDriver = (peer: Peer) => startHarnessDriver(peer, drivers);

  const record = (name = 'c') => peerA.catalog.resolve(name)!;
  const shardOf = (peer: Peer, shardId = 0, name = 'c') =>
    peer.contexts.resolve(name).storage.shards.get(shardId)?.shard;
  const stateOf = (peerId: string, shardId = 0, name = 'c'): ReplicaState | undefined =>
    record(name).shards.find((s) => s.shardId === shardId && s.peerId === peerId)?.state;
  const idsOf = (peer: Peer, shardId = 0, name = 'c') =>
    shardOf(peer, shardId, name)!.livePointIds().map(String).sort();
  const payloadOf = (peer: Peer, id: number, shardId = 0, name = 'c') => {
    const ref = shardOf(peer, shardId, name)?.find(BigInt(id));
    return ref && ref.segment.payload(ref.slot);
  };
  const checksumOf = (peer: Peer, shardId = 0, name = 'c') => shardOf(peer, shardId, name)!.checksum();
  /** A client's write through peer A (the coordinator), one shard's part. */
  const write = (operation: UpdateOperation, shardId = 0, name = 'c') =>
    peerA.writer.apply(peerA.contexts.resolve(name), shardId, operation, undefined);
  const key: ShardTransferKey = { shardId: 0, from: A, to: B };
  const startTransfer = (peerOperation: 'replicateShard' | 'moveShard' = 'replicateShard') =>
    peerA.cluster.updateClusterSetup('c', {
      peerOperation,
      transfer: { shardId: 0, fromPeerId: A, toPeerId: B },
    });
  /** The catalog state a finish of the transfer to B makes. */
  const finishes = (state: CatalogState) => {
    const c = state.collections.get('c');
    return !!c && !c.transfers && c.shards.some((s) => s.peerId === B && s.state === 'Active');
  };
  const transferDone = (name = 'c') =>
    until(
      () => !record(name).transfers && drivers.every((driver) => driver.running().length === 0),
      'the transfer to end',
    );

  /** Resolves when the run on A has the finish's answer (it then waits for the writes routed before it). */
  function finishAnswered(): Promise<void> {
    const answered = gate();
    const original = peerA.replicas.settled.bind(peerA.replicas);
    jest.spyOn(peerA.replicas, 'settled').mockImplementation((...args) => {
      answered.resolve();
      return original(...args);
    });
    return answered.promise;
  }

  /** Holds the next write that reaches shard 0 on A in its log append until `release`. */
  function holdNextWriteOnA() {
    const released = gate();
    const reached = gate();
    const shard = shardOf(peerA)!;
    const original = shard.update.bind(shard);
    jest.spyOn(shard, 'update').mockImplementationOnce(async (operation: UpdateOperation, tag?: ClockTag) => {
      reached.resolve();
      await released.promise;
      return original(operation, tag);
    });
    return { reached: reached.promise, release: () => released.resolve() };
  }

  beforeEach(async () => {
    shared = new SharedCatalog();
    net = new Network();
    drivers = [];
    peerA = await startPeer(A);
    peerB = await startPeer(B);
    await peerA.collections.create({
      name: 'c',
      vectors: { paramsMap: { a: { size: 2, distance: 'Dot' } } },
      shardNumber: 1,
    });
    expect(record().shards).toEqual([{ shardId: 0, state: 'Active', peerId: A }]);
    await write(upsert(range(1, 150)));
  });

  afterEach(() => stopPeers(net, drivers, [peerA, peerB]));

  it('D1: a source restarted mid-transfer runs it again from batch 1, and the target takes the new run whole', async () => {
    const hold = holdCopy();
    const first = await startDriver(peerA);
    await startTransfer();
    await hold.reached;
    await until(() => net.delivered.length >= 2, "the first run's batches on B");
    const firstRun = net.delivered[0];
    expect(firstRun.seq).toBe(1);
    // The source's process stops mid-copy (its run with it); the catalog still has the transfer, same start time.
    first.onApplicationShutdown();
    hold.open();
    // Meanwhile the source changes (nothing forwards it: no run).
    await write({ deletePoints: { selector: { ids: range(1, 10).map(BigInt) } } });
    await write(upsert([20], { x: 'changed' }));
    // The restarted process runs the same transfer again: a new run, numbered from batch 1.
    await startDriver(peerA);
    await transferDone();
    expect(stateOf(B)).toBe('Active');
    expect(idsOf(peerB)).toEqual(idsOf(peerA));
    expect(payloadOf(peerB, 20)).toEqual({ x: 'changed' });
    expect(checksumOf(peerB)).toEqual(checksumOf(peerA));
    // A late batch of the first run is refused: a newer run has started on the target.
    await expect(peerB.receiver.apply({ ...firstRun, seq: 3, steps: [op(upsert([1]))] })).rejects.toThrow(/newer run/);
  });

  it('D2: replicate_points forwards the writes made during the copy (upserts as the filter keeps them) into an Active destination', async () => {
    await peerA.collections.create({
      name: 'k',
      vectors: { paramsMap: { a: { size: 2, distance: 'Dot' } } },
      shardingMethod: 'Custom',
    });
    await peerA.cluster.createShardKey('k', { shardKey: { keyword: 'src' }, placement: [A] });
    await peerA.cluster.createShardKey('k', { shardKey: { keyword: 'dst' }, placement: [B] });
    const shardOfKey = (keyword: string) =>
      record('k').shards.find((s) => s.shardKey && 'keyword' in s.shardKey && s.shardKey.keyword === keyword)!.shardId;
    const [src, dst] = [shardOfKey('src'), shardOfKey('dst')];
    const tenant = (id: number) => ({ tenant: id % 10 === 0 ? 'b' : 'a', x: 'old' });
    await write(upsert(range(1, 150), tenant), src, 'k');
    await write(upsert([1001, 1002], { tenant: 'own' }), dst, 'k');
    const filter: Filter = { must: [{ field: { key: 'tenant', match: { keyword: 'a' } } }] };
    const hold = holdCopy();
    await startDriver(peerA);
    await peerA.cluster.updateClusterSetup('k', {
      replicatePoints: { fromShardKey: { keyword: 'src' }, toShardKey: { keyword: 'dst' }, filter },
    });
    await hold.reached;
    // The destination keeps serving its own points meanwhile.
    expect(stateOf(B, dst, 'k')).toBe('Active');
    await write(upsert([5], { tenant: 'a', x: 'changed' }), src, 'k'); // copied already
    await write(upsert([999], { tenant: 'a', x: 'new' }), src, 'k'); // matches: goes too
    await write(upsert([998], { tenant: 'b', x: 'new' }), src, 'k'); // does not match: stays
    hold.open();
    await transferDone('k');
    const matching = [...range(1, 150).filter((id) => id % 10 !== 0), 999];
    expect(idsOf(peerB, dst, 'k')).toEqual([...matching, 1001, 1002].map(String).sort());
    expect(payloadOf(peerB, 5, dst, 'k')).toEqual({ tenant: 'a', x: 'changed' });
    expect(payloadOf(peerB, 1001, dst, 'k')).toEqual({ tenant: 'own' });
    expect(stateOf(B, dst, 'k')).toBe('Active');
  });

  it('D3: a write answered around the finish is on the target before the same client can write the point again', async () => {
    // The link to the target is slow (a retry back-off) from the finish on.
    const link = gate();
    let slow = false;
    net.onTransfer = async () => {
      if (slow) await link.promise;
    };
    let first: Promise<number> | undefined;
    shared.beforeCommit(finishes, async () => {
      // During the finish's round trip a client writes point 7: routed before the finish, to A only; forwarded.
      slow = true;
      first = write(upsert([7], { x: 'first' }));
      await until(() => payloadOf(peerA, 7)?.x === 'first', 'the write on A');
    });
    await startDriver(peerA);
    await startTransfer();
    await until(() => stateOf(B) === 'Active', 'the finish');
    setTimeout(() => link.resolve(), 300);
    // The client has its answer, then writes point 7 again: routed at the finish epoch, to A and B directly.
    await first;
    await write(upsert([7], { x: 'second' }));
    link.resolve();
    await transferDone();
    expect(payloadOf(peerA, 7)).toEqual({ x: 'second' });
    expect(payloadOf(peerB, 7)).toEqual({ x: 'second' });
    expect(checksumOf(peerB)).toEqual(checksumOf(peerA));
  });

  it('D3: a write routed at the finish epoch is not forwarded, even when another routing change lands before the run reads its epoch', async () => {
    const afterFinish: TransferStep[] = [];
    let finished = false;
    net.onTransfer = (request) => {
      if (finished) afterFinish.push(...request.steps);
    };
    let routedAtFinish: Promise<number> | undefined;
    let held: ReturnType<typeof holdNextWriteOnA> | undefined;
    const finishEpoch = gate<number>();
    shared.afterCommit(finishes, async (state) => {
      finished = true;
      finishEpoch.resolve(epochOf(state.collections.get('c')!));
      // A client's write routed at the finish epoch F (to A and B): A admits it, its log append takes a while ...
      held = holdNextWriteOnA();
      routedAtFinish = write(upsert([77], { x: 'routed at F' }));
      await held.reached;
      // ... while another routing change (made by the other peer) reaches A before the run reads the epoch.
      await peerB.catalog.mutate((draft) => {
        draft.collections.get('c')!.shards.push({ shardId: 0, state: 'Dead', peerId: R });
      });
    });
    await startDriver(peerA);
    await startTransfer();
    const epoch = await finishEpoch.promise;
    await until(() => epochOf(record()) === epoch + 1, 'the later routing change');
    setTimeout(() => held!.release(), 200);
    await routedAtFinish;
    await transferDone();
    // B got it directly; forwarding it as well could land it after later direct writes.
    expect(afterFinish.filter((step) => step.kind === 'operation')).toEqual([]);
    expect(payloadOf(peerB, 77)).toEqual({ x: 'routed at F' });
  });

  it('D4: a point a forwarded conditional upsert made on the target, and the source then deleted, goes there too', async () => {
    const hold = holdCopy();
    await startDriver(peerA);
    await startTransfer();
    await hold.reached;
    // 120 is in the id list but not copied yet. The source keeps its 120 (insert_only); the target, which has no 120
    // yet, inserts it; then the source deletes its 120 by a filter on the old value (the target's 120 does not match).
    await write({ upsert: { points: [point(120, { x: 'new' })], updateMode: 'InsertOnly' } });
    await write({
      deletePoints: {
        selector: { filter: { must: [{ hasId: [120n] }, { field: { key: 'x', match: { keyword: 'old' } } }] } },
      },
    });
    hold.open();
    await transferDone();
    expect(shardOf(peerA)!.find(120n)).toBeUndefined();
    expect(idsOf(peerB)).toEqual(idsOf(peerA));
    expect(checksumOf(peerB)).toEqual(checksumOf(peerA));
  });

  /** The target takes batches until `fail`, then refuses the held one (it restarted: its batch counter is gone). */
  function linkThatFails() {
    const failNow = gate();
    let holding = false;
    net.onTransfer = async () => {
      if (!holding) return;
      await failNow.promise;
      throw DomainError.failedPrecondition(
        'Failed precondition: transfer batch 9 arrived after batch 0; the transfer must start again',
      );
    };
    return { hold: () => (holding = true), fail: () => failNow.resolve() };
  }

  it('D5: a forwarded write the Active target cannot take after the finish makes it Dead before the write is answered', async () => {
    const link = linkThatFails();
    let late: Promise<number> | undefined;
    shared.beforeCommit(finishes, async () => {
      link.hold();
      late = write(upsert([777], { x: 'routed before the finish' }));
      await until(() => shardOf(peerA)!.find(777n) !== undefined, 'the write on A');
    });
    const answered = finishAnswered();
    await startDriver(peerA);
    await startTransfer();
    await answered;
    link.fail();
    await expect(late).resolves.toBeGreaterThan(0);
    // The write was answered: B, which lacks it, is no longer counted on.
    expect(stateOf(B)).toBe('Dead');
    expect(shardOf(peerB)!.find(777n)).toBeUndefined();
    await transferDone();
  });

  it('D5: ... and when the target is the last Active replica (a move), the write fails instead', async () => {
    const link = linkThatFails();
    let late: Promise<number> | undefined;
    shared.beforeCommit(finishes, async () => {
      link.hold();
      late = write(upsert([777], { x: 'routed before the finish' }));
      await until(() => shardOf(peerA)?.find(777n) !== undefined, 'the write on A');
    });
    const answered = finishAnswered();
    await startDriver(peerA);
    await startTransfer('moveShard');
    await answered;
    expect(record().shards).toEqual([{ shardId: 0, state: 'Active', peerId: B }]);
    link.fail();
    await expect(late).rejects.toThrow(/no other Active replica/);
    await transferDone();
  });

  it('D5: a finish whose answer was lost is looked up; the run goes on forwarding the writes routed before it', async () => {
    let beforeFinish: Promise<number> | undefined;
    let held: ReturnType<typeof holdNextWriteOnA> | undefined;
    shared.beforeCommit(finishes, async () => {
      held = holdNextWriteOnA();
      beforeFinish = write(upsert([555], { x: 'routed before the finish' }));
      await held.reached;
    });
    shared.afterCommit(finishes, () => {
      throw DomainError.deadlineExceeded(
        'Timeout error: etcd did not answer; the change may or may not have been applied',
      );
    });
    await startDriver(peerA);
    await startTransfer();
    await until(() => stateOf(B) === 'Active', 'the finish');
    await ticks();
    held!.release();
    await beforeFinish;
    await transferDone();
    expect(stateOf(B)).toBe('Active');
    expect(payloadOf(peerB, 555)).toEqual({ x: 'routed before the finish' });
    expect(checksumOf(peerB)).toEqual(checksumOf(peerA));
  });

  // Round 2, "D5 during the finish": a delivery that fails while the finish is on its way waits for the finish's
  // outcome; once it went through, the failure is one after the finish (the target is marked Dead).
  it('D5: a forwarded write the target refuses while the finish is on its way is not answered while the Active target lacks it', async () => {
    let refusing = false;
    net.onTransfer = () => {
      if (refusing)
        throw DomainError.failedPrecondition(
          'Failed precondition: transfer batch 9 arrived after batch 0; the transfer must start again',
        );
    };
    let late: Promise<number> | undefined;
    shared.beforeCommit(finishes, async () => {
      refusing = true;
      late = write(upsert([777], { x: 'routed before the finish' }));
      await until(() => shardOf(peerA)!.find(777n) !== undefined, 'the write on A');
      await ticks();
    });
    await startDriver(peerA);
    await startTransfer();
    await until(() => late !== undefined, 'the write');
    const outcome = await late!.then(
      () => 'answered',
      () => 'failed',
    );
    await transferDone();
    // Either the write failed, or the replica that lacks it is not counted on.
    const lacking = stateOf(B) === 'Active' && shardOf(peerB)!.find(777n) === undefined;
    expect({ outcome, lacking }).not.toEqual({ outcome: 'answered', lacking: true });
  });

  it('D6: a resend after a stale refusal carries the clock tag: the target that had the write forwarded applies it once', async () => {
    // rf 2: A and R Active; a replication A -> B running.
    await peerA.catalog.mutate((draft) => {
      draft.collections.get('c')!.shards.push({ shardId: 0, state: 'Active', peerId: R });
    });
    let refuseOnce: (() => Promise<void>) | undefined;
    net.stubs.set(R, async (epoch) => {
      const refuse = refuseOnce;
      if (!refuse) return 1;
      refuseOnce = undefined;
      await refuse();
      throw new StaleRouting((epoch ?? 0) + 1);
    });
    let earlier: Promise<number> | undefined;
    shared.beforeCommit(finishes, async () => {
      // R's watch shows the finish first: it refuses the write, routed before the finish, as stale; by then another
      // client has written the same point again, routed at the finish (A, R and B directly).
      refuseOnce = async () => {
        await until(() => stateOf(B) === 'Active', 'the finish');
        await write(upsert([7], { x: 'later' }));
      };
      earlier = write(upsert([7], { x: 'earlier' }));
      // A applied it before the finish: forwarded, B has it.
      await until(() => payloadOf(peerB, 7)?.x === 'earlier', 'the forwarded write on B');
    });
    await startDriver(peerA);
    await startTransfer();
    await until(() => earlier !== undefined, 'the write');
    // The coordinator catches up and sends it to the replicas of the new view that lack it: R and B.
    await earlier;
    await transferDone();
    expect(payloadOf(peerA, 7)).toEqual({ x: 'later' });
    expect(payloadOf(peerB, 7)).toEqual({ x: 'later' });
    expect(checksumOf(peerB)).toEqual(checksumOf(peerA));
  });

  it('D8: a batch of an older run still being applied when the transfer restarts applies nothing more; the new run waits for it', async () => {
    // No driver: the batches are sent by hand, as two runs of the source would send them.
    await startTransfer();
    const send = (startedAt: string, runId: string, seq: number, steps: TransferStep[]) =>
      peerB.receiver.apply({ collection: { id: record().id, name: 'c' }, transfer: key, startedAt, runId, seq, steps });
    const firstStart = record().transfers![0].startedAt;
    await send(firstStart, 'run-1', 1, [{ kind: 'reset' }, op(upsert([1, 2]))]);
    // Batch 2 of that run: its first step is applied, then the peer stalls before the next one. (A run of operation
    // steps goes to the log as one group commit, checked once before it: the steps here are separated by another.)
    const target = shardOf(peerB)!;
    const original = target.update.bind(target);
    const stalled = gate();
    const resume = gate();
    jest.spyOn(target, 'update').mockImplementationOnce(async (operation: UpdateOperation, tag?: ClockTag) => {
      const opNum = await original(operation, tag);
      stalled.resolve();
      await resume.promise;
      return opNum;
    });
    const older = send(firstStart, 'run-1', 2, [op(upsert([3])), { kind: 'clocks', point: {} }, op(upsert([4]))]).then(
      () => 'applied',
      () => 'refused',
    );
    await stalled.promise;
    // The transfer is restarted; its new run starts with a reset.
    await new Promise((resolve) => setTimeout(resolve, 5));
    await peerA.cluster.updateClusterSetup('c', {
      peerOperation: 'restartTransfer',
      transfer: { shardId: 0, fromPeerId: A, toPeerId: B, method: 'StreamRecords' },
    });
    const secondStart = record().transfers![0].startedAt;
    expect(secondStart).not.toBe(firstStart);
    const newer = send(secondStart, 'run-2', 1, [{ kind: 'reset' }, op(upsert([10]))]);
    // The new run's batch is given the time to go ahead (it must not: one batch at a time per target replica).
    await Promise.race([newer, new Promise((resolve) => setTimeout(resolve, 300))]);
    resume.resolve();
    await newer;
    const outcome = await older;
    expect(idsOf(peerB)).toEqual(['10']);
    expect(outcome).toBe('refused');
  });

  it('D8: a snapshot restore of an older run, checked before the transfer restarted, is done before the new run starts', async () => {
    // A snapshot transfer: the source's files, sent by hand.
    const snapshot = path.join(peerA.dir, 'snapshot-of-shard-0');
    await peerA.snapshots.checkpointShard('c', 0, snapshot);
    await peerA.cluster.updateClusterSetup('c', {
      peerOperation: 'replicateShard',
      transfer: { shardId: 0, fromPeerId: A, toPeerId: B, method: 'Snapshot' },
    });
    const files = (fs.readdirSync(snapshot, { recursive: true }) as string[]).filter((file) =>
      fs.statSync(path.join(snapshot, file)).isFile(),
    );
    const send = (startedAt: string, runId: string, seq: number, steps: TransferStep[]) =>
      peerB.receiver.apply({ collection: { id: record().id, name: 'c' }, transfer: key, startedAt, runId, seq, steps });
    const firstStart = record().transfers![0].startedAt;
    await send(firstStart, 'run-1', 1, [
      { kind: 'reset' },
      ...files.map((file): TransferStep => ({
        kind: 'file',
        path: file,
        offset: 0,
        data: fs.readFileSync(path.join(snapshot, file)),
      })),
    ]);
    // The restore has been checked and built, and is about to replace the replica, when the transfer is restarted.
    const building = gate();
    const built = gate();
    const storage = peerB.storage.storageOf(peerB.catalog.resolve('c')!);
    const replace = storage.replaceShard.bind(storage);
    jest.spyOn(storage, 'replaceShard').mockImplementationOnce(async (...args) => {
      building.resolve();
      await built.promise;
      return replace(...args);
    });
    const older = send(firstStart, 'run-1', 2, [{ kind: 'restore' }]);
    await building.promise;
    await new Promise((resolve) => setTimeout(resolve, 5));
    await peerA.cluster.updateClusterSetup('c', {
      peerOperation: 'restartTransfer',
      transfer: { shardId: 0, fromPeerId: A, toPeerId: B, method: 'StreamRecords' },
    });
    const newer = send(record().transfers![0].startedAt, 'run-2', 1, [{ kind: 'reset' }, op(upsert([10]))]);
    await Promise.race([newer, new Promise((resolve) => setTimeout(resolve, 300))]);
    built.resolve();
    await older;
    await newer;
    // The new run's reset came after the old run's restore: the replica holds the new run's copy only.
    expect(idsOf(peerB)).toEqual(['10']);
  });
});
