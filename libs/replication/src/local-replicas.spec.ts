import { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import {
  CollectionCatalog,
  CollectionsModule,
  CollectionsService,
  PEER_ID,
  type ReplicaState,
} from '@vectorstore/collections';
import { DomainError, ErrorKind } from '@vectorstore/common';
import { CollectionContexts, PointsModule, type UpdateOperation } from '@vectorstore/points';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { epochOf, LocalReplicas, StaleRouting } from './local-replicas';
import { PointsPeers } from './points-peers';

const dense = (...values: number[]) => ({ kind: 'dense' as const, values: Float32Array.from(values) });
const upsert = (...ids: number[]): UpdateOperation => ({
  upsert: { points: ids.map((id) => ({ id: BigInt(id), vectors: { a: dense(id, 1) }, payload: {} })) },
});

/** A promise and the functions that settle it. */
function deferred<T = void>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** The state of a promise, without waiting for it. */
function track<T>(promise: Promise<T>): { state: 'pending' | 'resolved' | 'rejected'; value?: T; error?: unknown } {
  const tracked: { state: 'pending' | 'resolved' | 'rejected'; value?: T; error?: unknown } = { state: 'pending' };
  void promise.then(
    (value) => {
      tracked.state = 'resolved';
      tracked.value = value;
    },
    (error: unknown) => {
      tracked.state = 'rejected';
      tracked.error = error;
    },
  );
  return tracked;
}

/** Lets pending promise callbacks and I/O completions run (no timer is waited for). */
const ticks = async (n = 5) => {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
};

/**
 * The real catalog and points storage over a temporary folder, with collection `c` (2 shards) placed as cluster
 * mode places it: a replica of each shard on this peer and on another peer.
 */
describe(LocalReplicas.name, () => {
  let dir: string;
  let app: INestApplicationContext;
  let catalog: CollectionCatalog;
  let contexts: CollectionContexts;
  let selfId: string;
  let otherId: string;
  let replicas: LocalReplicas;
  let collection: { id: string; name: string };

  const record = () => catalog.resolve('c')!;
  const epoch = () => epochOf(record());
  /** A change of the replicas elsewhere (the other peer's replica of shard 1 goes Dead or back): a new epoch. */
  const bumpEpoch = async () => {
    const before = epoch();
    await catalog.mutate((draft) => {
      const other = draft.collections.get('c')!.shards.find((s) => s.shardId === 1 && s.peerId === otherId)!;
      other.state = other.state === 'Active' ? 'Dead' : 'Active';
    });
    expect(epoch()).toBe(before + 1);
  };
  const setLocalState = (shardId: number, state: ReplicaState) =>
    catalog.mutate((draft) => {
      draft.collections.get('c')!.shards.find((s) => s.shardId === shardId && s.peerId === selfId)!.state = state;
    });
  const shard = (shardId: number) => contexts.resolve('c').storage.shards.get(shardId)!.shard;
  /** Makes the next write to the shard wait (before it is logged) until the returned gate opens. */
  const gateNextWrite = (shardId: number) => {
    const target = shard(shardId);
    const original = target.update.bind(target);
    const gate = deferred();
    const entered = deferred();
    jest.spyOn(target, 'update').mockImplementationOnce(async (operation) => {
      entered.resolve();
      await gate.promise;
      return original(operation);
    });
    return { open: () => gate.resolve(), entered: entered.promise };
  };

  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vs-local-replicas-'));
    app = await NestFactory.createApplicationContext(
      {
        module: class Root {},
        imports: [CollectionsModule.forRoot({ dataDir: dir }), PointsModule.forRoot({ dataDir: dir })],
      },
      { logger: false },
    );
    catalog = app.get(CollectionCatalog);
    contexts = app.get(CollectionContexts);
    selfId = app.get<string>(PEER_ID);
    otherId = selfId === '1' ? '2' : '1';
    await app.get(CollectionsService).create({
      name: 'c',
      vectors: { paramsMap: { a: { size: 2, distance: 'Dot' } } },
      shardNumber: 2,
    });
    await catalog.mutate((draft) => {
      const c = draft.collections.get('c')!;
      c.shards = [0, 1].flatMap((shardId) => [
        { shardId, state: 'Active' as const, peerId: selfId },
        { shardId, state: 'Active' as const, peerId: otherId },
      ]);
    });
    collection = { id: record().id, name: 'c' };
    const peers: PointsPeers = {
      selfId,
      assertWritable: () => undefined,
      update: () => Promise.reject(new Error('no other peer')),
      read: () => Promise.reject(new Error('no other peer')),
      transferApply: () => Promise.reject(new Error('no other peer')),
      checksum: () => Promise.reject(new Error('no other peer')),
      recoveryPoint: () => Promise.reject(new Error('no other peer')),
      incarnation: 'test',
    };
    replicas = new LocalReplicas(contexts, peers);
    expect(shard(0).pointCount).toBe(0);
  });

  afterEach(async () => {
    jest.useRealTimers();
    jest.restoreAllMocks();
    await app.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  describe('apply', () => {
    it('applies a write routed under the replica’s epoch and answers its op number', async () => {
      const first = await replicas.apply(collection, 0, upsert(1), epoch());
      const second = await replicas.apply(collection, 0, upsert(2), epoch());
      expect(second).toBe(first + 1);
      expect(shard(0).pointCount).toBe(2);
      expect(shard(1).pointCount).toBe(0);
    });

    it('applies with no epoch check on a standalone server (no peers) or without a routed epoch', async () => {
      const standalone = new LocalReplicas(contexts);
      await standalone.apply(collection, 0, upsert(1), 12345);
      await replicas.apply(collection, 0, upsert(2), undefined);
      expect(shard(0).pointCount).toBe(2);
    });

    it('refuses a write routed under an older epoch as stale, with its own epoch, and applies nothing', async () => {
      const routed = epoch();
      await bumpEpoch();
      const error = await replicas.apply(collection, 0, upsert(1), routed).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(StaleRouting);
      expect((error as StaleRouting).epoch).toBe(routed + 1);
      expect(shard(0).pointCount).toBe(0);
      expect(shard(0).find(1n)).toBeUndefined();
    });

    it('holds a write routed under a newer epoch until its catalog reaches it, then applies it', async () => {
      const routed = epoch() + 1;
      const held = replicas.apply(collection, 0, upsert(1), routed);
      const write = track(held);
      await ticks();
      expect(write.state).toBe('pending');
      expect(shard(0).pointCount).toBe(0);
      await bumpEpoch();
      await expect(replicas.apply(collection, 0, upsert(2), routed)).resolves.toEqual(expect.any(Number));
      await expect(held).resolves.toEqual(expect.any(Number));
      expect(shard(0).pointCount).toBe(2);
    });

    it('refuses a held write when the epoch it waited for made the replica unable to take writes', async () => {
      const write = replicas.apply(collection, 0, upsert(1), epoch() + 1).catch((e: unknown) => e);
      await setLocalState(0, 'Dead');
      expect(await write).toMatchObject({ kind: ErrorKind.FailedPrecondition });
      expect(shard(0).pointCount).toBe(0);
    });

    it('answers Unavailable when its catalog does not reach the newer epoch within 2 s', async () => {
      jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });
      const write = track(replicas.apply(collection, 0, upsert(1), epoch() + 1));
      await jest.advanceTimersByTimeAsync(1950);
      expect(write.state).toBe('pending');
      await jest.advanceTimersByTimeAsync(100);
      expect(write.state).toBe('rejected');
      expect(write.error).toBeInstanceOf(DomainError);
      expect(write.error).toMatchObject({ kind: ErrorKind.Unavailable });
      expect((write.error as Error).message).toContain(`epoch ${epoch() + 1}, here ${epoch()}`);
      jest.useRealTimers();
      expect(shard(0).pointCount).toBe(0);
    });

    it('answers Not found, after the wait, for a collection of that name with another id (deleted and recreated)', async () => {
      jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });
      const write = track(replicas.apply({ id: 'another-id', name: 'c' }, 0, upsert(1), epoch()));
      await jest.advanceTimersByTimeAsync(2100);
      expect(write.error).toMatchObject({ kind: ErrorKind.NotFound });
      const missing = track(replicas.apply({ id: collection.id, name: 'nope' }, 0, upsert(1), epoch()));
      await jest.advanceTimersByTimeAsync(2100);
      expect(missing.error).toMatchObject({ kind: ErrorKind.NotFound });
    });

    it.each<ReplicaState>(['Dead', 'Partial', 'Recovery', 'PartialSnapshot', 'ManualRecovery'])(
      'refuses a write to a %s replica (not updatable): Failed precondition naming the state',
      async (state) => {
        await setLocalState(0, state);
        const error = await replicas.apply(collection, 0, upsert(1), epoch()).catch((e: unknown) => e);
        expect(error).toMatchObject({ kind: ErrorKind.FailedPrecondition });
        expect((error as Error).message).toContain(`(${state})`);
        expect(shard(0).pointCount).toBe(0);
      },
    );

    it.each<ReplicaState>(['Initializing', 'Listener', 'ActiveRead'])(
      'takes a write to a %s replica',
      async (state) => {
        await setLocalState(0, state);
        await replicas.apply(collection, 0, upsert(1), epoch());
        expect(shard(0).pointCount).toBe(1);
      },
    );

    it('refuses a write for a shard this peer holds no replica of', async () => {
      await catalog.mutate((draft) => {
        const c = draft.collections.get('c')!;
        c.shards = c.shards.filter((s) => !(s.shardId === 1 && s.peerId === selfId));
      });
      const error = await replicas.apply(collection, 1, upsert(1), epoch()).catch((e: unknown) => e);
      expect(error).toMatchObject({ kind: ErrorKind.FailedPrecondition });
      expect((error as Error).message).toContain('(not placed here)');
    });
  });

  describe('listen', () => {
    it('tells each routed write in apply order, in the tick it is applied, with its epoch and op number', async () => {
      const told: Array<{ ids: string[]; epoch: number; opNum: number; visible: boolean }> = [];
      const stop = replicas.listen(contexts.resolve('c'), 0, (operation, routedEpoch, opNum) => {
        const ids = 'upsert' in operation ? operation.upsert.points.map((p) => String(p.id)) : [];
        told.push({ ids, epoch: routedEpoch, opNum, visible: shard(0).find(BigInt(ids[0])) !== undefined });
      });
      const e1 = epoch();
      const a = await replicas.apply(collection, 0, upsert(1), e1);
      await bumpEpoch();
      const e2 = epoch();
      // Two at once: the one logged first is told first.
      const gate = gateNextWrite(0);
      const slow = replicas.apply(collection, 0, upsert(2), e2);
      await gate.entered;
      const fast = await replicas.apply(collection, 0, upsert(3), e2);
      gate.open();
      const slowOp = await slow;
      // Not routed (standalone path): not told. Another shard: not told.
      await replicas.apply(collection, 0, upsert(4), undefined);
      await replicas.apply(collection, 1, upsert(5), e2);
      stop();
      await replicas.apply(collection, 0, upsert(6), e2);
      expect(told).toEqual([
        { ids: ['1'], epoch: e1, opNum: a, visible: true },
        { ids: ['3'], epoch: e2, opNum: fast, visible: true },
        { ids: ['2'], epoch: e2, opNum: slowOp, visible: true },
      ]);
      expect(slowOp).toBe(fast + 1);
      expect(shard(0).pointCount).toBe(5);
    });

    it('answers Unavailable for a shard that is not open here', async () => {
      expect(() => replicas.listen(contexts.resolve('c'), 7, () => undefined)).toThrow(
        expect.objectContaining({ kind: ErrorKind.Unavailable }),
      );
    });
  });

  describe('settled', () => {
    it('resolves at once when no write is waiting', async () => {
      await expect(replicas.settled(collection.id, 0, epoch() + 10)).resolves.toBeUndefined();
    });

    it('waits for a write routed under an older epoch, not for one routed under the epoch or later', async () => {
      const e1 = epoch();
      const gate = gateNextWrite(0);
      const write = replicas.apply(collection, 0, upsert(1), e1);
      await gate.entered;
      // A write at e1 is not "before e1".
      await expect(replicas.settled(collection.id, 0, e1)).resolves.toBeUndefined();
      // Another shard is not this one.
      await expect(replicas.settled(collection.id, 1, e1 + 1)).resolves.toBeUndefined();
      const settled = track(replicas.settled(collection.id, 0, e1 + 1));
      await ticks();
      expect(settled.state).toBe('pending');
      gate.open();
      await write;
      await ticks();
      expect(settled.state).toBe('resolved');
    });

    it('counts a write that failed as no longer waiting', async () => {
      const e1 = epoch();
      const target = shard(0);
      const failure = deferred<number>();
      jest.spyOn(target, 'update').mockImplementationOnce(() => failure.promise);
      const write = replicas.apply(collection, 0, upsert(1), e1).catch((e: unknown) => e);
      await ticks();
      const settled = track(replicas.settled(collection.id, 0, e1 + 1));
      await ticks();
      expect(settled.state).toBe('pending');
      failure.reject(new Error('disk full'));
      expect(await write).toEqual(new Error('disk full'));
      await ticks();
      expect(settled.state).toBe('resolved');
    });

    it('waits for several older writes, until the last is applied', async () => {
      const e1 = epoch();
      const first = gateNextWrite(0);
      const a = replicas.apply(collection, 0, upsert(1), e1);
      await first.entered;
      const second = gateNextWrite(0);
      const b = replicas.apply(collection, 0, upsert(2), e1);
      await second.entered;
      const settled = track(replicas.settled(collection.id, 0, e1 + 1));
      first.open();
      await a;
      await ticks();
      expect(settled.state).toBe('pending');
      second.open();
      await b;
      await ticks();
      expect(settled.state).toBe('resolved');
    });
  });

  describe('regressions', () => {
    // Regression: settled() used to wake only when no write at all was pending, so steady newer writes kept it asleep.
    it('resolves once the older writes are applied, while a newer write is still being applied', async () => {
      const e1 = epoch();
      const older = gateNextWrite(0);
      const a = replicas.apply(collection, 0, upsert(1), e1);
      await older.entered;
      await bumpEpoch();
      const newer = gateNextWrite(0);
      const b = replicas.apply(collection, 0, upsert(2), e1 + 1);
      await newer.entered;
      const settled = track(replicas.settled(collection.id, 0, e1 + 1));
      try {
        older.open();
        await a;
        await ticks();
        expect(settled.state).toBe('resolved');
      } finally {
        newer.open();
        await b;
      }
    });
  });
});
