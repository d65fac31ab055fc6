import type { ShardRecord } from '@vectorstore/collections';
import { DomainError, ErrorKind, isDomainError } from '@vectorstore/common';
import type { ReadConsistency } from '@vectorstore/points';
import { type FanOut, readReplicas } from './hedged-read';

const SELF = '1';

/** Active replicas: shard id → the peers holding it. */
function replicas(placement: Record<number, string[]>): ShardRecord[] {
  return Object.entries(placement).flatMap(([shardId, peerIds]) =>
    peerIds.map((peerId) => ({ shardId: Number(shardId), state: 'Active' as const, peerId })),
  );
}

interface Call {
  peerId: string;
  shardIds: number[];
  at: number;
  answer(): void;
  fail(error: unknown): void;
}

/**
 * Fake peers. Each call is recorded; a peer listed in `after` answers by itself after that many ms, one
 * listed in `failWith` fails at once, any other waits until the test answers or fails the call. An answer
 * names its peer and shards (`2:0,1`).
 */
function fakePeers(options: { after?: Record<string, number>; failWith?: Record<string, unknown> } = {}) {
  const calls: Call[] = [];
  const started = Date.now();
  const ask = (peerId: string, shardIds: number[]): Promise<string> =>
    new Promise<string>((resolve, reject) => {
      const call: Call = {
        peerId,
        shardIds: [...shardIds],
        at: Date.now() - started,
        answer: () => resolve(`${peerId}:${shardIds.join(',')}`),
        fail: reject,
      };
      calls.push(call);
      const failure = options.failWith?.[peerId];
      if (failure !== undefined) reject(failure);
      const after = options.after?.[peerId];
      if (after !== undefined) setTimeout(call.answer, after);
    });
  const to = (peerId: string) => calls.filter((call) => call.peerId === peerId);
  return { ask, calls, to };
}

const unreachable = (peerId: string) =>
  DomainError.unavailable(`Service unavailable: peer ${peerId} cannot be reached`);
const isPeerFailure = (error: unknown) =>
  isDomainError(error) && [ErrorKind.Unavailable, ErrorKind.DeadlineExceeded].includes(error.kind);

function read(
  peers: ReturnType<typeof fakePeers>,
  placement: Record<number, string[]>,
  fanOut?: FanOut,
  readConsistency?: ReadConsistency,
) {
  return readReplicas({
    replicas: replicas(placement),
    selfId: SELF,
    readConsistency,
    fanOut,
    ask: peers.ask,
    isPeerFailure,
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** Lets every settled promise's reactions run. */
const settle = () => sleep(0);

describe('readReplicas (hedged reads, read_fan_out_factor / read_fan_out_delay_ms)', () => {
  // Jest fails a test in which a promise rejection goes unhandled: each test lets its losers answer or fail
  // late, then waits a little, so that a loser's error that leaked would fail it.
  afterEach(() => sleep(5));

  it('asks one replica per shard, this peer first, with no fan-out set and a local replica (as today)', async () => {
    const peers = fakePeers({ after: { '1': 30 } });
    const answers = await read(peers, { 0: ['1', '2'], 1: ['1', '3'] });
    expect(answers).toEqual([['1:0,1']]);
    expect(peers.calls.map((call) => call.peerId)).toEqual(['1']);
  });

  it('sends nothing extra with factor 0 and no delay, however long the replica takes', async () => {
    const peers = fakePeers();
    const pending = read(peers, { 0: ['2', '3'] }, { factor: 0, delayMs: 0 });
    await sleep(40);
    expect(peers.calls).toHaveLength(1);
    peers.calls[0].answer();
    expect(await pending).toEqual([[`${peers.calls[0].peerId}:0`]]);
    expect(peers.calls).toHaveLength(1);
  });

  it('asks one more replica at once by default when this peer holds no replica of the shard (Qdrant’s auto fan-out)', async () => {
    const peers = fakePeers();
    const pending = read(peers, { 0: ['2', '3'] });
    await settle();
    expect(peers.calls.map((call) => call.peerId).sort()).toEqual(['2', '3']);
    peers.to('3')[0].answer();
    expect(await pending).toEqual([['3:0']]);
    // The other one's late answer changes nothing.
    peers.to('2')[0].answer();
  });

  it('overtakes a slow first replica with factor 1 / delay 20 ms; the loser’s late answer is ignored', async () => {
    // Peer 2 answers first for shard 0 (the lowest id; no local replica) and is slow; peer 3 is asked at once.
    const peers = fakePeers({ after: { '3': 5 } });
    const started = Date.now();
    const answers = await read(peers, { 0: ['2', '3'] }, { factor: 1, delayMs: 20 });
    expect(answers).toEqual([['3:0']]);
    expect(Date.now() - started).toBeLessThan(500);
    expect(peers.calls.map((call) => [call.peerId, call.at < 15])).toEqual([
      ['2', true],
      ['3', true],
    ]);
    peers.to('2')[0].answer();
    await sleep(30);
    // No replica was left for the delayed request: nothing more was sent.
    expect(peers.calls).toHaveLength(2);

    // rf 3, both first replicas slow: the third is asked once the delay passes.
    const slow = fakePeers({ after: { '4': 1 } });
    expect(await read(slow, { 0: ['2', '3', '4'] }, { factor: 1, delayMs: 20 })).toEqual([['4:0']]);
    expect(slow.calls.map((call) => call.peerId)).toEqual(['2', '3', '4']);
    expect(slow.calls[2].at).toBeGreaterThanOrEqual(15);
    slow.to('2')[0].fail(unreachable('2'));
    slow.to('3')[0].answer();
  });

  it('hedges a shard held here too when the factor says so: the local part races a remote replica', async () => {
    const peers = fakePeers({ after: { '3': 1 } });
    const pending = read(peers, { 0: ['1', '3'], 3: ['1', '2'] }, { factor: 1 });
    await settle();
    // One part for both local shards; its lane splits them over their other replicas.
    expect(peers.calls.map((call) => `${call.peerId}:${call.shardIds.join(',')}`).sort()).toEqual([
      '1:0,3',
      '2:3',
      '3:0',
    ]);
    peers.to('1')[0].answer();
    expect(await pending).toEqual([['1:0,3']]);
    peers.to('2')[0].answer();
  });

  it('with factor 0 and a delay asks exactly one more replica once the delay passes without an answer', async () => {
    const quick = fakePeers({ after: { '2': 1 } });
    expect(await read(quick, { 0: ['2', '3', '4'] }, { factor: 0, delayMs: 20 })).toEqual([['2:0']]);
    // Peer 2 answered before the delay: nobody else was asked, and the timer is gone.
    await sleep(40);
    expect(quick.calls).toHaveLength(1);

    const slow = fakePeers({ after: { '3': 1, '4': 1 } });
    const hedged = read(slow, { 0: ['2', '3', '4'] }, { factor: 0, delayMs: 20 });
    await sleep(5);
    expect(slow.calls.map((call) => call.peerId)).toEqual(['2']);
    const answers = await hedged;
    // One more replica after the delay (not every other one), and it answered for the shard.
    expect(slow.calls.map((call) => call.peerId)).toEqual(['2', '3']);
    expect(slow.calls[1].at).toBeGreaterThanOrEqual(15);
    expect(answers).toEqual([['3:0']]);
    slow.to('2')[0].answer();
    await sleep(30);
    expect(slow.calls).toHaveLength(2);
  });

  it('fails over to another replica when a replica’s peer fails, hedged or not', async () => {
    const plain = fakePeers({ failWith: { '2': unreachable('2') }, after: { '3': 1 } });
    expect(await read(plain, { 0: ['2', '3'] }, { factor: 0 })).toEqual([['3:0']]);
    expect(plain.calls.map((call) => call.peerId)).toEqual(['2', '3']);

    // Hedged: the slow first replica (2) stays in the race; failed ones are replaced by replicas nobody asked yet.
    const hedged = fakePeers({ failWith: { '3': unreachable('3'), '4': unreachable('4') }, after: { '5': 1 } });
    const answers = await read(hedged, { 0: ['2', '3', '4', '5'] }, { factor: 1, delayMs: 1000 });
    expect(answers).toEqual([['5:0']]);
    expect(hedged.calls.map((call) => call.peerId)).toEqual(['2', '3', '4', '5']);
    hedged.to('2')[0].answer();

    // Every replica failed: the read fails (503), after asking each once.
    const gone = fakePeers({ failWith: { '2': unreachable('2'), '3': unreachable('3') } });
    await expect(read(gone, { 0: ['2', '3'] }, { factor: 1 })).rejects.toMatchObject({ kind: ErrorKind.Unavailable });
    expect(gone.calls.map((call) => call.peerId)).toEqual(['2', '3']);
  });

  it('splits a part over several peers when its shards’ other replicas are on different peers, failing over inside', async () => {
    // Peer 2 answers first for shards 0 and 3; their other replicas are on 3, and on 4 and 5 (5 first).
    const peers = fakePeers({ failWith: { '5': unreachable('5') }, after: { '3': 1, '4': 3 } });
    const answers = await read(peers, { 0: ['2', '3'], 3: ['2', '4', '5'] }, { factor: 1 });
    expect(answers[0].sort()).toEqual(['3:0', '4:3']);
    expect(peers.calls.map((call) => `${call.peerId}:${call.shardIds.join(',')}`)).toEqual([
      '2:0,3',
      '3:0',
      '5:3',
      '4:3',
    ]);
    peers.to('2')[0].answer();
  });

  it('answers with a failure that is not the peer’s at once, and ignores a loser’s late error', async () => {
    const invalid = DomainError.invalidArgument('Wrong input: no such vector');
    const peers = fakePeers({ failWith: { '2': invalid } });
    await expect(read(peers, { 0: ['2', '3'] }, { factor: 1 })).rejects.toBe(invalid);
    peers.to('3')[0].answer();

    // The winner answered first: the loser's error (of any kind) is dropped, and the loser is not replaced.
    const late = fakePeers({ after: { '3': 1 } });
    expect(await read(late, { 0: ['2', '3', '4'] }, { factor: 1 })).toEqual([['3:0']]);
    late.to('2')[0].fail(invalid);
    await settle();
    const lateAgain = fakePeers({ after: { '3': 1 } });
    expect(await read(lateAgain, { 0: ['2', '3', '4'] }, { factor: 1 })).toEqual([['3:0']]);
    lateAgain.to('2')[0].fail(unreachable('2'));
    await sleep(5);
    expect(lateAgain.calls.map((call) => call.peerId)).toEqual(['2', '3']);
  });

  it('keeps this peer’s own failures final (no failover of the local part)', async () => {
    const own = unreachable(SELF);
    const peers = fakePeers({ failWith: { '1': own } });
    await expect(read(peers, { 0: ['1', '2'] }, { factor: 0 })).rejects.toBe(own);
    expect(peers.calls.map((call) => call.peerId)).toEqual(['1']);
  });

  it('counts extra replicas per shard with read consistency above 1: copies + factor asked at once', async () => {
    // rf 4, consistency 2, factor 1: three replicas at once (2 + 1), as Qdrant; the fourth is not asked.
    const peers = fakePeers({ after: { '3': 1, '4': 1 } });
    const pending = read(peers, { 0: ['1', '2', '3', '4'] }, { factor: 1 }, { factor: 2 });
    await sleep(10);
    expect(peers.calls.map((call) => call.peerId)).toEqual(['1', '3', '2']);
    // The first copy (peer 1) was overtaken by the extra replica (3); the second (peer 2) is still waited for.
    peers.to('2')[0].answer();
    expect(await pending).toEqual([['3:0'], ['2:0']]);
    peers.to('1')[0].answer();
  });

  it('replaces a failed replica within read consistency above 1 when one is left', async () => {
    const peers = fakePeers({ failWith: { '2': unreachable('2') }, after: { '1': 1, '3': 1 } });
    expect(await read(peers, { 0: ['1', '2', '3'] }, { factor: 0 }, { factor: 2 })).toEqual([['1:0'], ['3:0']]);
    // With no replica left, the read fails as before.
    const short = fakePeers({ failWith: { '2': unreachable('2') }, after: { '1': 1 } });
    await expect(read(short, { 0: ['1', '2'] }, { factor: 0 }, { factor: 2 })).rejects.toMatchObject({
      kind: ErrorKind.Unavailable,
    });
  });

  it('refuses up front, asking nobody, when a shard has too few readable replicas for the consistency', async () => {
    const peers = fakePeers();
    await expect(
      readReplicas({
        replicas: [
          { shardId: 0, state: 'Active', peerId: '2' },
          { shardId: 0, state: 'Dead', peerId: '3' },
        ],
        selfId: SELF,
        readConsistency: { factor: 2 },
        fanOut: { factor: 1, delayMs: 10 },
        ask: peers.ask,
        isPeerFailure,
      }),
    ).rejects.toMatchObject({ kind: ErrorKind.Unavailable });
    expect(peers.calls).toEqual([]);
  });
});
