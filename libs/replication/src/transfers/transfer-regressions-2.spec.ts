// Regression specs for the second transfer review (commit 2f8d7be: the clocks step after the copy, ranges in clock
// entries, lazily taken tags, the 10 s delivery bound, failures during the finish, the driver's resync). The
// harness is ../testing/two-peer-harness.ts: two peers in one process, each a real app context, sharing one catalog
// through an in-memory store that publishes like etcd's watch; only the wire is a stand-in. Here a peer is also
// restarted on its data folder, optionally as after a crash (its shards not flushed on the way down: only the
// manifest of the last flush and the fsynced log survive).
// Confirmed defects are `it.failing`, each with a comment naming it (R-numbers of the review report).
import { type CatalogState, type ReplicaState, type TransferStart } from '@vectorstore/collections';
import { DomainError } from '@vectorstore/common';
import { type ClockTag, type RecoveryPoint, type UpdateOperation } from '@vectorstore/points';
import { epochOf, StaleRouting } from '../local-replicas';
import {
  gate,
  holdCopy,
  Network,
  range,
  restartPeer as restartHarnessPeer,
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
import { TransferRun } from './transfer-run';

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
describe('shard transfers: regressions of the second review (2f8d7be)', () => {
  let shared: SharedCatalog;
  let net: Network;
  let peerA: Peer;
  let peerB: Peer;
  let drivers: TransferDriver[];

  const membership = twoPeerMembership(A);
  /** Starts peer `id` on `dir` (a new folder unless given: a restart keeps its data). */
  const startPeer = (id: string, dir?: string) =>
    startHarnessPeer({ id, shared, net, membership, dirPrefix: 'vs-transfer-regressions-2', dir });
  /** Stops `peer` and starts it again on its data; `crash`: its shards are not flushed on the way down. */
  const restartPeer = (peer: Peer, how: { crash: boolean }) => restartHarnessPeer(peer, how, net, startPeer);
  /** Starts the transfer driver of `peer` (a process of it): it runs the transfers whose source it is. */
  const startDriver = (peer: Peer) => startHarnessDriver(peer, drivers);

  /** The clock origin of the writes peer A coordinates (its peer id and process). */
  const fromA = `${A}/incarnation-of-${A}`;
  const record = (name = 'c') => peerA.catalog.resolve(name)!;
  const shardOf = (peer: Peer, shardId = 0, name = 'c') =>
    peer.contexts.resolve(name).storage.shards.get(shardId)?.shard;
  const stateOf = (peerId: string, shardId = 0, name = 'c'): ReplicaState | undefined =>
    record(name).shards.find((s) => s.shardId === shardId && s.peerId === peerId)?.state;
  const payloadOf = (peer: Peer, id: number, shardId = 0, name = 'c') => {
    const ref = shardOf(peer, shardId, name)?.find(BigInt(id));
    return ref && ref.segment.payload(ref.slot);
  };
  const checksumOf = (peer: Peer, shardId = 0, name = 'c') => shardOf(peer, shardId, name)!.checksum();
  const pointOf = (peer: Peer): RecoveryPoint => shardOf(peer)!.recoveryPoint();
  /** A client's write through peer A (the coordinator), one shard's part. */
  const write = (operation: UpdateOperation, shardId = 0, name = 'c') =>
    peerA.writer.apply(peerA.contexts.resolve(name), shardId, operation, undefined);
  const startTransfer = (
    peerOperation: 'replicateShard' | 'moveShard' = 'replicateShard',
    method: 'StreamRecords' | 'Snapshot' | 'WalDelta' = 'StreamRecords',
  ) =>
    peerA.cluster.updateClusterSetup('c', {
      peerOperation,
      transfer: { shardId: 0, fromPeerId: A, toPeerId: B, method },
    });
  /** What the leader's healer starts for a Dead replica on B (healing-plan.ts `recoveries`). */
  const recoverB = () =>
    peerA.cluster.beginTransfers(record().id, [
      { shardId: 0, from: A, to: B, sync: true, method: 'WalDelta', reason: 'recovery' } satisfies TransferStart,
    ]);
  /** The catalog state a finish of the transfer to B makes. */
  const finishes = (state: CatalogState) => {
    const c = state.collections.get('c');
    return !!c && !c.transfers && c.shards.some((s) => s.peerId === B && s.state === 'Active');
  };
  const transferDone = (name = 'c', ms = 5000) =>
    until(
      () => !record(name).transfers && drivers.every((driver) => driver.running().length === 0),
      'the transfer to end',
      ms,
    );

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
    // Write #1 of A's origin.
    await write(upsert(range(1, 150)));
  });

  afterEach(() => stopPeers(net, drivers, [peerA, peerB]));

  /**
   * A stream_records copy to B that stops between its batches and its clocks step: write #2 (point 5 = v1) is
   * applied before the copy starts (so it is in the source's recovery point the clocks step carries), write #3
   * (point 5 = v2) during the copy (forwarded with its tag); B restarts (as after a crash) just before the batch
   * holding the clocks step, which its new process refuses (or, `link failure`, that batch fails on its way); the
   * transfer fails and B is Dead.
   */
  async function copyCutBeforeClocksStep(cut: 'restart' | 'link failure' = 'restart'): Promise<void> {
    await write(upsert([5], { x: 'v1' }));
    const hold = holdCopy();
    await startDriver(peerA);
    await startTransfer();
    await hold.reached;
    await write(upsert([5], { x: 'v2' }));
    await until(() => payloadOf(peerB, 5)?.x === 'v2', 'the forwarded write on B');
    let cutDone = false;
    net.onTransfer = async (request) => {
      if (cutDone || !request.steps.some((step) => step.kind === 'clocks')) return;
      cutDone = true;
      if (cut === 'restart') peerB = await restartPeer(peerB, { crash: true });
      else throw DomainError.failedPrecondition('Failed precondition: the link broke');
    };
    hold.open();
    await until(() => stateOf(B) === 'Dead' && !record().transfers, 'the failed transfer');
    await transferDone();
    net.onTransfer = () => undefined;
  }

  it('R1 (sound): a target restarted between the copy and the clocks step does not claim the writes the copy held', async () => {
    await copyCutBeforeClocksStep();
    // B holds point 5 as write #3 left it, and claims #3 only (it came forwarded, with its tag): not #1 or #2; and it
    // records its copy as unfinished (no WAL delta may be replayed over it).
    expect(payloadOf(peerB, 5)).toEqual({ x: 'v2' });
    expect(pointOf(peerB)).toEqual({ '-/copy': { upTo: 1, above: [] }, [fromA]: { upTo: 0, above: [[3, 3]] } });
  });

  // R1 (fixed: the unfinished-copy marker) (recovery point below the data): a target whose copy stopped before the clocks step holds the copied
  // points as the source had them (newer than writes #1 and #2 left them) but claims only the forwarded writes. The
  // leader recovers the Dead replica with wal_delta; the source's log still holds #1 and #2, which B "lacks", so the
  // delta replays them over the newer points: B's point 5 goes back to v1 while A has v2, and B is made Active with
  // a checksum unequal to A's. Same without a restart: any failure of a stream_records run between its first batch
  // and the clocks step (a refused or lost batch, the source's death, the leader failing it) leaves B in that state.
  it('R1: the WAL delta that recovers such a target does not replay older writes over the points the copy gave it', async () => {
    await copyCutBeforeClocksStep();
    await recoverB();
    await transferDone();
    expect(stateOf(B)).toBe('Active');
    expect(payloadOf(peerA, 5)).toEqual({ x: 'v2' });
    expect(payloadOf(peerB, 5)).toEqual({ x: 'v2' });
    expect(checksumOf(peerB)).toEqual(checksumOf(peerA));
  });

  // R1 again (fixed), without a restart: the run fails on its way to the clocks step (here the batch holding it).
  it('R1: ... nor when the copy failed before the clocks step without the target restarting', async () => {
    await copyCutBeforeClocksStep('link failure');
    expect(pointOf(peerB)).toEqual({ '-/copy': { upTo: 1, above: [] }, [fromA]: { upTo: 0, above: [[3, 3]] } });
    await recoverB();
    await transferDone();
    expect(stateOf(B)).toBe('Active');
    expect(payloadOf(peerB, 5)).toEqual({ x: 'v2' });
    expect(checksumOf(peerB)).toEqual(checksumOf(peerA));
  });

  it('R2 (sound): a target that crashes right after its copy finished keeps the source recovery point (flushed on the clocks step)', async () => {
    const hold = holdCopy();
    await startDriver(peerA);
    await startTransfer();
    await hold.reached;
    await write(upsert([5], { x: 'during the copy' }));
    hold.open();
    await transferDone();
    expect(stateOf(B)).toBe('Active');
    const expected = pointOf(peerA);
    expect(expected).toEqual({ [fromA]: { upTo: 2, above: [] } });
    peerB = await restartPeer(peerB, { crash: true });
    expect(pointOf(peerB)).toEqual(expected);
    expect(checksumOf(peerB)).toEqual(checksumOf(peerA));
  });

  it('R3 (sound): a snapshot transfer gives the target the source recovery point with the files, across a crash', async () => {
    await startDriver(peerA);
    await startTransfer('replicateShard', 'Snapshot');
    // Writes while it runs: before the cut (in the files and the manifest's clocks) or after it (forwarded, tagged).
    for (let i = 0; i < 5; i++) await write(upsert([200 + i], { x: `w${i}` }));
    await transferDone();
    expect(stateOf(B)).toBe('Active');
    peerB = await restartPeer(peerB, { crash: true });
    expect(pointOf(peerB)).toEqual(pointOf(peerA));
    expect(pointOf(peerA)).toEqual({ [fromA]: { upTo: 6, above: [] } });
    expect(checksumOf(peerB)).toEqual(checksumOf(peerA));
  });

  it('R4 (sound): a WAL delta to a replica that missed writes leaves it with the source recovery point and points', async () => {
    await startDriver(peerA);
    await startTransfer();
    await transferDone();
    await peerA.cluster.markReplicasDead(record().id, [{ shardId: 0, peerId: B }]);
    for (let i = 0; i < 3; i++) await write(upsert([5, 300 + i], { x: `missed ${i}` }));
    const switched = jest.spyOn(peerA.cluster, 'switchTransferMethod');
    await recoverB();
    await transferDone();
    expect(switched).not.toHaveBeenCalled();
    expect(stateOf(B)).toBe('Active');
    expect(pointOf(peerB)).toEqual(pointOf(peerA));
    expect(checksumOf(peerB)).toEqual(checksumOf(peerA));
  });

  it('R5 (sound): a write refused before it is sent takes no clock number', async () => {
    await peerA.catalog.mutate((draft) => {
      const c = draft.collections.get('c')!;
      c.shards.push({ shardId: 0, state: 'Dead', peerId: R });
      c.config.params.writeConsistencyFactor = 2;
    });
    await expect(write(upsert([7]))).rejects.toThrow(/write_consistency_factor 2/);
    await peerA.catalog.mutate((draft) => {
      draft.collections.get('c')!.config.params.writeConsistencyFactor = 1;
    });
    await write(upsert([8]));
    // No gap: #2 is the write that went out.
    expect(pointOf(peerA)).toEqual({ [fromA]: { upTo: 2, above: [] } });
  });

  it('R5 (sound): a write sent again after a stale refusal carries the tag it was first sent with', async () => {
    await peerA.catalog.mutate((draft) => {
      draft.collections.get('c')!.shards.push({ shardId: 0, state: 'Active', peerId: R });
    });
    const seen: Array<ClockTag | undefined> = [];
    let refuse = true;
    net.stubs.set(R, async (_epoch, tag) => {
      seen.push(tag);
      if (!refuse) return 1;
      refuse = false;
      // R's catalog is ahead: another routing change landed there first.
      await peerA.catalog.mutate((draft) => {
        draft.collections.get('c')!.shards.push({ shardId: 0, state: 'Dead', peerId: '404' });
      });
      throw new StaleRouting(epochOf(record()));
    });
    await write(upsert([7], { x: 'y' }));
    expect(seen).toHaveLength(2);
    expect(seen[1]).toEqual(seen[0]);
    expect(seen[0]).toEqual({ peer: A, incarnation: `incarnation-of-${A}`, seq: 2 });
    expect(pointOf(peerA)).toEqual({ [fromA]: { upTo: 2, above: [] } });
  });

  /** Runs the delivery bound (10 s) as `ms`: every 10 s timer is started as one of `ms`. */
  function shortDeliveryBound(ms: number): void {
    const realSetTimeout = global.setTimeout;
    jest
      .spyOn(global, 'setTimeout')
      .mockImplementation(((fn: (...args: unknown[]) => void, delay?: number, ...args: unknown[]) =>
        realSetTimeout(fn, delay === 10_000 ? ms : delay, ...args)) as unknown as typeof setTimeout);
  }

  /** From `stall()` on, every transfer batch hangs until `release()`, then fails as a lost connection. */
  function linkThatStalls() {
    const released = gate();
    let stalled = false;
    net.onTransfer = async () => {
      if (!stalled) return;
      await released.promise;
      throw DomainError.unavailable('Service unavailable: the connection was lost');
    };
    return { stall: () => (stalled = true), release: () => released.resolve() };
  }

  it('R6 (sound): a forwarded write the Active target does not apply within the delivery bound makes it Dead, then is answered', async () => {
    shortDeliveryBound(200);
    const link = linkThatStalls();
    let late: Promise<number> | undefined;
    shared.beforeCommit(finishes, async () => {
      link.stall();
      late = write(upsert([777], { x: 'routed before the finish' }));
      await until(() => shardOf(peerA)!.find(777n) !== undefined, 'the write on A');
    });
    await startDriver(peerA);
    await startTransfer();
    await until(() => late !== undefined, 'the write');
    await expect(late).resolves.toBeGreaterThan(0);
    expect(stateOf(B)).toBe('Dead');
    expect(shardOf(peerB)!.find(777n)).toBeUndefined();
    link.release();
    await transferDone();
  });

  it('R6 (sound): ... and on a move, whose target is then the only Active replica, the write fails instead', async () => {
    shortDeliveryBound(200);
    const link = linkThatStalls();
    let late: Promise<number> | undefined;
    shared.beforeCommit(finishes, async () => {
      link.stall();
      late = write(upsert([777], { x: 'routed before the finish' }));
      await until(() => shardOf(peerA)?.find(777n) !== undefined, 'the write on A');
    });
    await startDriver(peerA);
    await startTransfer('moveShard');
    await until(() => late !== undefined, 'the write');
    await expect(late).rejects.toThrow(/no other Active replica/);
    expect(record().shards).toEqual([{ shardId: 0, state: 'Active', peerId: B }]);
    link.release();
    await transferDone();
  });

  /** From `refuse()` on, the target refuses every batch (it restarted: its batch counter is gone). */
  function linkThatRefuses() {
    let refusing = false;
    net.onTransfer = () => {
      if (refusing)
        throw DomainError.failedPrecondition(
          'Failed precondition: transfer batch 9 arrived after batch 0; the transfer must start again',
        );
    };
    return { refuse: () => (refusing = true) };
  }

  it('R7 (sound): a delivery failure while a finish whose answer is lost is on its way: the lookup finds it done, the target is Dead', async () => {
    const link = linkThatRefuses();
    let late: Promise<number> | undefined;
    shared.beforeCommit(finishes, async () => {
      link.refuse();
      late = write(upsert([777], { x: 'routed before the finish' }));
      await until(() => shardOf(peerA)!.find(777n) !== undefined, 'the write on A');
      await ticks();
    });
    shared.afterCommit(finishes, () => {
      throw DomainError.deadlineExceeded(
        'Timeout error: etcd did not answer; the change may or may not have been applied',
      );
    });
    await startDriver(peerA);
    await startTransfer();
    await until(() => late !== undefined, 'the write');
    const outcome = await late!.then(
      () => 'answered',
      () => 'failed',
    );
    await transferDone();
    expect({ outcome, target: stateOf(B) }).toEqual({ outcome: 'answered', target: 'Dead' });
  });

  it('R7 (sound): a delivery failure while a finish is on its way that an abort overtakes: the write is answered, the target is gone', async () => {
    const link = linkThatRefuses();
    let late: Promise<number> | undefined;
    shared.beforeCommit(finishes, async () => {
      link.refuse();
      late = write(upsert([777], { x: 'routed before the finish' }));
      await until(() => shardOf(peerA)!.find(777n) !== undefined, 'the write on A');
      await ticks();
      await peerB.cluster.updateClusterSetup('c', {
        peerOperation: 'abortTransfer',
        transfer: { shardId: 0, fromPeerId: A, toPeerId: B },
      });
    });
    await startDriver(peerA);
    await startTransfer();
    await until(() => late !== undefined, 'the write');
    const outcome = await late!.then(
      () => 'answered',
      () => 'failed',
    );
    await transferDone();
    expect({ outcome, target: stateOf(B) }).toEqual({ outcome: 'answered', target: undefined });
  });

  it('R8 (sound): a run whose failure could not be recorded is run again by the resync, one run at a time', async () => {
    let refuseOnce = true;
    net.onTransfer = () => {
      if (!refuseOnce) return;
      refuseOnce = false;
      throw DomainError.failedPrecondition('Failed precondition: refused once');
    };
    jest
      .spyOn(peerA.cluster, 'failTransfer')
      .mockRejectedValueOnce(DomainError.unavailable('Service unavailable: etcd did not answer'));
    const runs = jest.spyOn(TransferRun.prototype, 'run');
    const driver = await startDriver(peerA);
    let most = 0;
    const sampler = setInterval(() => (most = Math.max(most, driver.running().length)), 5);
    try {
      await startTransfer();
      await until(() => runs.mock.calls.length === 1 && driver.running().length === 0, 'the first run to end');
      // Its failure is not in the catalog: the transfer still runs there, B waits.
      expect(stateOf(B)).toBe('Partial');
      await transferDone('c', 15_000);
    } finally {
      clearInterval(sampler);
    }
    expect(runs).toHaveBeenCalledTimes(2);
    expect(most).toBe(1);
    expect(stateOf(B)).toBe('Active');
    expect(checksumOf(peerB)).toEqual(checksumOf(peerA));
  }, 20_000);
  it('R10 (sound): one operation applied to two local shards waits only for the listeners of the shard that holds them', async () => {
    // A delete by filter goes to every shard as the same operation object.
    await peerA.collections.create({
      name: 'g',
      vectors: { paramsMap: { a: { size: 2, distance: 'Dot' } } },
      shardNumber: 2,
    });
    const context = peerA.contexts.resolve('g');
    const collection = { id: context.record.id, name: 'g' };
    const held = gate();
    const stop = peerA.replicas.listen(context, 0, () => held.promise);
    try {
      const operation: UpdateOperation = { deletePoints: { selector: { filter: { must: [] } } } };
      const epoch = epochOf(context.record);
      const outcome: string[] = [];
      const onShard0 = peerA.replicas.apply(collection, 0, operation, epoch).then(() => outcome.push('shard 0'));
      const onShard1 = peerA.replicas.apply(collection, 1, operation, epoch).then(() => outcome.push('shard 1'));
      await onShard1;
      await ticks(20);
      expect(outcome).toEqual(['shard 1']);
      held.resolve();
      await onShard0;
      expect(outcome).toEqual(['shard 1', 'shard 0']);
    } finally {
      stop();
    }
  });
});
