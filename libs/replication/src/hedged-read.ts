import { READABLE_REPLICA_STATES, type ShardRecord } from '@vectorstore/collections';
import type { ReadConsistency } from '@vectorstore/points';
import { planReads, type ReadPart } from './read-plan';

/** A collection's `read_fan_out_factor` and `read_fan_out_delay_ms` (absent: Qdrant's defaults). */
export interface FanOut {
  /**
   * Replicas of a shard asked at once besides the ones the read needs. Absent (Qdrant's "auto"): 0 when
   * this peer holds a readable replica of the shard, else 1.
   */
  factor?: number;
  /** After this many ms without an answer, one more replica of the shard is asked; 0 or absent: never. */
  delayMs?: number;
}

/** One read over the replicas of some shards, as the read router runs it. */
export interface ReplicaRead<T> {
  /** Every replica of every selected shard. */
  replicas: readonly ShardRecord[];
  selfId: string;
  readConsistency?: ReadConsistency;
  fanOut?: FanOut;
  /** Runs the read on `peerId` over its replicas of `shardIds`: one answer for those shards together. */
  ask(peerId: string, shardIds: number[]): Promise<T>;
  /**
   * Whether `error`, raised by another peer, is that peer's failure (unreachable, timeout, its replica
   * Dead): then another replica is asked. Any other error, and every error of this peer's own part, is
   * the read's answer.
   */
  isPeerFailure(error: unknown): boolean;
}

/**
 * A read over the replicas of its shards, hedged as Qdrant does (replica_set/execute_read_operation.rs):
 * the answers of each copy planReads plans (one copy unless read consistency asks for more), each copy's
 * answers covering every selected shard exactly once.
 *
 * Each part of a copy (one peer, the shards it answers for) is a race. Its peer is asked first; at the
 * same moment `factor` more replicas of those shards, and after `delayMs` without an answer one more, each
 * a replica not asked yet by this read (a plan of the part's shards over other peers, which may split them).
 * A replica whose peer fails is replaced by another not asked yet, as before hedging. The first contender
 * to answer for all of the part's shards wins; the others' later answers and errors are dropped (a peer
 * call cannot be cancelled, so they still run to their end). An error that is not a peer failure ends the
 * race at once. With read consistency above 1, the copies share the replicas (no replica is asked twice
 * for one shard) and the extra replicas are counted per shard, as Qdrant counts them: at most `factor`
 * asked at once and one after the delay, whichever copies they help.
 */
export async function readReplicas<T>(read: ReplicaRead<T>): Promise<T[][]> {
  // Fails before anything is sent when the shards have too few readable replicas for the consistency.
  const copies = planReads(read.replicas, read.selfId, read.readConsistency);
  return await new HedgedRead(read).run(copies);
}

class HedgedRead<T> {
  /** Per shard, the peers asked for it so far (a contender never asks one of them again). */
  private readonly asked = new Map<number, Set<string>>();
  /** Peers that failed during this read: asked for no shard again. */
  private readonly failed = new Set<string>();
  /** Per shard, how many more replicas may be asked at once (the fan-out factor)... */
  private readonly atOnce = new Map<number, number>();
  /** ...and after the delay (one). */
  private readonly delayed = new Map<number, number>();
  /** Errors that mean "a peer (or every replica left) failed", not "the read failed". */
  private readonly peerFailures = new WeakSet<object>();
  private readonly delayMs: number;

  constructor(private readonly read: ReplicaRead<T>) {
    const delay = read.fanOut?.delayMs;
    this.delayMs = delay !== undefined && Number.isFinite(delay) && delay > 0 ? delay : 0;
  }

  async run(copies: ReadPart[][]): Promise<T[][]> {
    const { replicas, selfId, fanOut } = this.read;
    for (const parts of copies) for (const part of parts) this.markAsked(part);
    for (const shardId of new Set(replicas.map((replica) => replica.shardId))) {
      // Qdrant's default fan-out: none when this peer's own replica answers, else one more replica.
      const local = replicas.some(
        (replica) =>
          replica.shardId === shardId &&
          (replica.peerId ?? selfId) === selfId &&
          READABLE_REPLICA_STATES.has(replica.state),
      );
      this.atOnce.set(shardId, Math.max(0, fanOut?.factor ?? (local ? 0 : 1)));
      this.delayed.set(shardId, this.delayMs > 0 ? 1 : 0);
    }
    return Promise.all(copies.map(async (parts) => (await Promise.all(parts.map((part) => this.race(part)))).flat()));
  }

  /** The answers for `part`'s shards, from its peer or from whichever other replicas answer first. */
  private race(part: ReadPart): Promise<T[]> {
    return new Promise<T[]>((resolve, reject) => {
      let pending = 0;
      let finished = false;
      let timer: ReturnType<typeof setTimeout> | undefined;
      const finish = () => {
        finished = true;
        if (timer !== undefined) clearTimeout(timer);
      };
      const live = () => !finished;
      const enter = (contender: Promise<T[]>) => {
        pending++;
        contender.then(
          (answers) => {
            pending--;
            if (finished) return;
            finish();
            resolve(answers);
          },
          (error: unknown) => {
            pending--;
            if (finished) return;
            if (!this.isPeerFailed(error)) {
              finish();
              reject(error);
              return;
            }
            // As Qdrant: a failed replica is replaced by one not asked yet.
            const replacement = this.lane(part.shardIds, live);
            if (replacement instanceof Promise) enter(replacement);
            else if (pending === 0) {
              finish();
              reject(replacement ?? error);
            }
          },
        );
      };
      enter(this.call(part).then((answer) => [answer]));
      for (;;) {
        const lane = this.lane(part.shardIds, live, this.atOnce);
        if (!(lane instanceof Promise)) break;
        enter(lane);
      }
      if (this.delayMs > 0) {
        timer = setTimeout(() => {
          timer = undefined;
          if (finished) return;
          const lane = this.lane(part.shardIds, live, this.delayed);
          if (lane instanceof Promise) enter(lane);
        }, this.delayMs);
      }
    });
  }

  /**
   * Another contender for `shardIds`: a plan of them over replicas not asked yet, each part failing over
   * on its own. With `budget`, only while every one of the shards has some left (it takes one of each).
   * Otherwise the planning error (no replica left), or undefined when the budget is spent. Its parts stop
   * failing over once the race is decided (`live` false).
   */
  private lane(
    shardIds: readonly number[],
    live: () => boolean,
    budget?: Map<number, number>,
  ): Promise<T[]> | Error | undefined {
    if (budget && shardIds.some((shardId) => (budget.get(shardId) ?? 0) <= 0)) return undefined;
    let parts: ReadPart[];
    try {
      parts = this.plan(shardIds);
    } catch (error) {
      return error as Error;
    }
    if (budget) for (const shardId of shardIds) budget.set(shardId, (budget.get(shardId) ?? 0) - 1);
    return this.failover(parts, live);
  }

  /** One replica of each of `shardIds` not asked yet and whose peer did not fail; marked asked. */
  private plan(shardIds: readonly number[]): ReadPart[] {
    const wanted = new Set(shardIds);
    try {
      const [parts] = planReads(
        this.read.replicas.filter((replica) => wanted.has(replica.shardId)),
        this.read.selfId,
        undefined,
        this.failed,
        this.asked,
      );
      for (const part of parts) this.markAsked(part);
      return parts;
    } catch (error) {
      // No replica left for some shard: for a race, one more contender that failed.
      if (typeof error === 'object' && error !== null) this.peerFailures.add(error);
      throw error;
    }
  }

  /**
   * The answers of `parts`, each part asked of another replica (not asked yet) when its peer fails, as
   * long as someone waits for them (`live`).
   */
  private async failover(parts: ReadPart[], live: () => boolean): Promise<T[]> {
    const answers = await Promise.all(
      parts.map(async (part) => {
        try {
          return [await this.call(part)];
        } catch (error) {
          if (!this.isPeerFailed(error) || !live()) throw error;
          return this.failover(this.plan(part.shardIds), live);
        }
      }),
    );
    return answers.flat();
  }

  /** `part`'s answer from its peer; a peer failure is remembered (that peer is asked nothing more). */
  private async call(part: ReadPart): Promise<T> {
    try {
      return await this.read.ask(part.peerId, part.shardIds);
    } catch (error) {
      if (part.peerId !== this.read.selfId && this.read.isPeerFailure(error)) {
        this.failed.add(part.peerId);
        if (typeof error === 'object' && error !== null) this.peerFailures.add(error);
      }
      throw error;
    }
  }

  private isPeerFailed(error: unknown): boolean {
    return typeof error === 'object' && error !== null && this.peerFailures.has(error);
  }

  private markAsked(part: ReadPart): void {
    for (const shardId of part.shardIds) {
      const peers = this.asked.get(shardId) ?? new Set<string>();
      peers.add(part.peerId);
      this.asked.set(shardId, peers);
    }
  }
}
