import type { CollectionRecord, ReplicaState } from '@vectorstore/collections';
import { prepareRecovery, settleRecovery } from './recovery-priority';

/** Shard 0 on peers 1 (where the recovery runs), 2 and 3 in the given states; shard 1 on peer 2 only. */
function record(states: ReplicaState[], transfer = false): CollectionRecord {
  return {
    id: 'id',
    name: 'c',
    createdAt: '2026-01-01T00:00:00.000Z',
    config: {} as CollectionRecord['config'],
    shards: [
      ...states.map((state, i) => ({ shardId: 0, state, peerId: String(i + 1) })),
      { shardId: 1, state: 'Active' as const, peerId: '2' },
    ],
    shardKeys: [],
    nextShardId: 2,
    ...(transfer
      ? {
          transfers: [
            {
              shardId: 0,
              from: '2',
              to: '3',
              sync: true,
              method: 'StreamRecords' as const,
              reason: 'user' as const,
              startedAt: '2026-01-01T00:00:00.000Z',
            },
          ],
        }
      : {}),
  } as CollectionRecord;
}

const statesOf = (r: CollectionRecord) => r.shards.filter((s) => s.shardId === 0).map((s) => s.state);

describe('recovery priority (cluster shard recovery, as Qdrant)', () => {
  it('snapshot: the recovered replica is Active and the other Active ones go Dead, to be copied from it', () => {
    const r = record(['Active', 'Active', 'Dead']);
    expect(prepareRecovery(r, 0, '1', 'snapshot')).toBe(false);
    expect(settleRecovery(r, 0, '1', 'snapshot')).toEqual({ dead: ['2'] });
    expect(statesOf(r)).toEqual(['Active', 'Dead', 'Dead']);
  });

  it('replica: the recovered replica goes Dead before the restore and stays so, to be copied from the others', () => {
    const r = record(['Active', 'Active', 'Active']);
    expect(prepareRecovery(r, 0, '1', 'replica')).toBe(true);
    expect(statesOf(r)).toEqual(['Dead', 'Active', 'Active']);
    expect(settleRecovery(r, 0, '1', 'replica')).toEqual({ dead: ['1'] });
    expect(statesOf(r)).toEqual(['Dead', 'Active', 'Active']);
  });

  it('no_sync: the recovered replica is Active, the others are left as they are', () => {
    const r = record(['Dead', 'Active', 'Active']);
    expect(prepareRecovery(r, 0, '1', 'no_sync')).toBe(false);
    expect(settleRecovery(r, 0, '1', 'no_sync')).toEqual({ dead: [] });
    expect(statesOf(r)).toEqual(['Active', 'Active', 'Active']);
  });

  it.each(['snapshot', 'replica', 'no_sync'] as const)(
    '%s with no other Active replica: the recovered one is the source of truth, Active',
    (priority) => {
      const r = record(['Dead', 'Dead']);
      expect(prepareRecovery(r, 0, '1', priority)).toBe(false);
      expect(settleRecovery(r, 0, '1', priority)).toEqual({ dead: [] });
      expect(statesOf(r)).toEqual(['Active', 'Dead']);
    },
  );

  it("refuses a shard this peer holds no replica of, in Qdrant's words", () => {
    expect(() => prepareRecovery(record(['Active']), 1, '1', 'snapshot')).toThrow(
      'Bad request: Shard 1 is not a local shard',
    );
  });

  it('refuses a shard being transferred, naming the transfer', () => {
    expect(() => prepareRecovery(record(['Active', 'Active', 'Partial'], true), 0, '1', 'snapshot')).toThrow(
      /shard 0 of c is being transferred \(peer 2 -> peer 3\)/,
    );
  });
});
