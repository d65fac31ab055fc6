import { DomainError, ErrorKind } from '@vectorstore/common';
import { CollectionRecord } from '../model/collection.model';
import {
  abortTransfer,
  abortTransfersOf,
  finishTransfer,
  PeerStanding,
  restartTransfer,
  startTransfer,
  TransferStart,
} from './shard-transfers';
import { bumpReplicaEpochs } from '../catalog/replica-epoch';
import { emptyCatalog } from '../catalog/catalog-state';

const NOW = new Date('2026-11-28T12:00:00Z');
const live = (): PeerStanding => 'live';

function record(): CollectionRecord {
  return {
    id: 'c1',
    name: 'books',
    createdAt: NOW.toISOString(),
    config: {} as CollectionRecord['config'],
    shards: [
      { shardId: 0, state: 'Active', peerId: '1' },
      { shardId: 0, state: 'Dead', peerId: '2' },
      { shardId: 1, state: 'Active', peerId: '2' },
    ],
    shardKeys: [],
    nextShardId: 2,
  };
}

function move(overrides: Partial<TransferStart> = {}): TransferStart {
  return { shardId: 1, from: '2', to: '3', sync: false, method: 'StreamRecords', reason: 'user', ...overrides };
}

function errorOf(run: () => unknown): DomainError {
  try {
    run();
  } catch (error) {
    return error as DomainError;
  }
  throw new Error('expected a failure');
}

describe('shard transfers in the catalog', () => {
  it('should start a move: the target replica waits Partial and the transfer is recorded', () => {
    const r = record();
    const transfer = startTransfer(r, move(), live, NOW);

    expect(r.shards).toContainEqual({ shardId: 1, state: 'Partial', peerId: '3' });
    expect(r.transfers).toEqual([transfer]);
    expect(transfer).toEqual({
      shardId: 1,
      from: '2',
      to: '3',
      sync: false,
      method: 'StreamRecords',
      reason: 'user',
      startedAt: NOW.toISOString(),
    });
  });

  it.each([
    ['Snapshot', 'Recovery'],
    ['WalDelta', 'Recovery'],
  ] as const)('should put a %s target in %s', (method, state) => {
    const r = record();
    startTransfer(r, move({ method }), live, NOW);
    expect(r.shards.find((s) => s.peerId === '3')?.state).toBe(state);
  });

  it('should recover a Dead replica in place, remembering it was Dead', () => {
    const r = record();
    const transfer = startTransfer(r, move({ shardId: 0, from: '1', to: '2', sync: true }), live, NOW);
    expect(r.shards.filter((s) => s.shardId === 0)).toEqual([
      { shardId: 0, state: 'Active', peerId: '1' },
      { shardId: 0, state: 'Partial', peerId: '2' },
    ]);
    expect(transfer.targetWas).toBe('Dead');
  });

  it.each([
    ['a missing shard', move({ shardId: 9 }), live, 'Bad request: Shard 9 of books does not exist'],
    ['an unknown peer', move(), (): PeerStanding => 'unknown', 'Bad request: Peer 3 does not exist'],
    [
      'a gone peer',
      move(),
      (id: string): PeerStanding => (id === '3' ? 'gone' : 'live'),
      'Bad request: Peer 3 is not live: a transfer needs both of its peers up',
    ],
    [
      'a source that is not Active',
      move({ shardId: 0, from: '2', to: '3' }),
      live,
      'Bad request: Shard 0 is not active on peer 2',
    ],
    [
      'a target that already has an Active replica',
      move({ shardId: 0, from: '1', to: '1', sync: true }),
      live,
      'Bad request: Shard 0 already has a replica on peer 1 (Active)',
    ],
    [
      'a move onto a peer holding a replica',
      move({ shardId: 0, from: '1', to: '2' }),
      live,
      'Bad request: Shard 0 already has a replica on peer 2 (Dead); drop it first or replicate onto it',
    ],
    [
      'a target shard without a filter',
      move({ toShardId: 0 }),
      live,
      'Bad request: Target shard 0 can only be set for ReshardingStreamRecords or filtered streaming records transfers',
    ],
  ])('should refuse %s with 400 and Qdrant words', (_, start, standing, message) => {
    const error = errorOf(() => startTransfer(record(), start, standing, NOW));
    expect(error.kind).toBe(ErrorKind.InvalidArgument);
    expect(error.message).toBe(message);
  });

  it('should refuse a second transfer touching the same shard and peers', () => {
    const r = record();
    startTransfer(r, move(), live, NOW);
    const error = errorOf(() => startTransfer(r, move({ to: '4' }), live, NOW));
    expect(error.message).toBe('Bad request: Shard 1 is already involved in transfer 2 -> 3');
  });

  it('should finish a move: target Active, source replica gone, transfer gone', () => {
    const r = record();
    const transfer = startTransfer(r, move(), live, NOW);
    finishTransfer(r, transfer, transfer.startedAt);
    expect(r.shards.filter((s) => s.shardId === 1)).toEqual([{ shardId: 1, state: 'Active', peerId: '3' }]);
    expect(r.transfers).toBeUndefined();
  });

  it('should finish a replication keeping the source', () => {
    const r = record();
    const transfer = startTransfer(r, move({ sync: true }), live, NOW);
    finishTransfer(r, transfer, transfer.startedAt);
    expect(r.shards.filter((s) => s.shardId === 1).map((s) => `${s.peerId}:${s.state}`)).toEqual([
      '2:Active',
      '3:Active',
    ]);
  });

  it('should not finish a transfer restarted since (another run)', () => {
    const r = record();
    const transfer = startTransfer(r, move(), live, NOW);
    restartTransfer(r, transfer, 'Snapshot', new Date(NOW.getTime() + 1000));
    const error = errorOf(() => finishTransfer(r, transfer, NOW.toISOString()));
    expect(error.kind).toBe(ErrorKind.NotFound);
    expect(r.shards.find((s) => s.peerId === '3')?.state).toBe('Recovery');
  });

  it('should remove a target the operator cancels, and leave a failed recovery Dead', () => {
    const cancelled = record();
    const transfer = startTransfer(cancelled, move({ sync: true }), live, NOW);
    abortTransfer(cancelled, transfer, true);
    expect(cancelled.shards.some((s) => s.peerId === '3')).toBe(false);

    const failed = record();
    const recovery = startTransfer(failed, move({ shardId: 0, from: '1', to: '2', sync: true }), live, NOW);
    abortTransfer(failed, recovery, false);
    expect(failed.shards.find((s) => s.shardId === 0 && s.peerId === '2')?.state).toBe('Dead');
    expect(failed.transfers).toBeUndefined();
  });

  it('should answer Not found for an abort of no transfer, as Qdrant', () => {
    const error = errorOf(() => abortTransfer(record(), { shardId: 1, from: '2', to: '3' }, true));
    expect(error.kind).toBe(ErrorKind.NotFound);
    expect(error.message).toBe('Not found: Shard transfer 2 -> 3 for collection books:1 does not exist');
  });

  it('should end the transfers of a replica that is dropped or goes Dead', () => {
    const r = record();
    startTransfer(r, move({ sync: true }), live, NOW);
    abortTransfersOf(r, 1, '2');
    expect(r.transfers).toBeUndefined();
  });

  it('should bump the replica epoch when routing changes, not otherwise', () => {
    const base = emptyCatalog();
    base.collections.set('books', record());
    const draft = structuredClone(base);
    draft.collections.get('books')!.createdAt = 'changed';
    bumpReplicaEpochs(base, draft);
    expect(draft.collections.get('books')!.replicaEpoch).toBeUndefined();
    startTransfer(draft.collections.get('books')!, move(), live, NOW);
    bumpReplicaEpochs(base, draft);
    expect(draft.collections.get('books')!.replicaEpoch).toBe(1);
  });
});
