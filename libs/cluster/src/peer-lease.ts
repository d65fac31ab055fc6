// This peer's lease in the metadata store, renewed by our own loop. We keep a local deadline on the
// monotonic clock that etcd can never undercut: the send time of the last answered renewal plus the
// granted TTL, minus a margin. Past it the peer is fenced: it must not acknowledge writes or change
// metadata, because etcd may already have expired the lease and handed its duties to others.
import { Logger } from '@nestjs/common';
import { DomainError } from '@vectorstore/common';
import { MetadataStore } from './metadata/metadata-store';

export type Clock = () => number;
const monotonicMs: Clock = () => performance.now();

export class PeerLease {
  private readonly logger = new Logger(PeerLease.name);
  private leaseId: string | undefined;
  private deadline = 0;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private renewing: Promise<void> | undefined;
  /** Called with the new lease id after the lease was lost and granted again (keys must be re-created). */
  onRegranted: (leaseId: string) => Promise<void> = async () => undefined;

  constructor(
    private readonly store: MetadataStore,
    private readonly ttlSeconds: number,
    private readonly clock: Clock = monotonicMs,
  ) {}

  get id(): string {
    if (this.leaseId === undefined) throw new Error('the peer lease is not granted yet');
    return this.leaseId;
  }

  /** True once the local deadline has passed: etcd may have expired the lease. */
  get fenced(): boolean {
    return this.clock() >= this.deadline;
  }

  /** Milliseconds left before the peer fences itself (0 when fenced). */
  get remainingMs(): number {
    return Math.max(0, this.deadline - this.clock());
  }

  /** Throws UNAVAILABLE when fenced: for writes and metadata changes. */
  assertValid(): void {
    if (this.leaseId === undefined)
      throw DomainError.unavailable('this peer has not joined the cluster yet; try again in a moment');
    if (this.fenced)
      throw DomainError.unavailable(
        'lease expired: this peer cannot reach the cluster metadata store to confirm shard ownership; writes and metadata changes are refused until it can',
      );
  }

  async start(): Promise<string> {
    await this.grant();
    this.schedule();
    return this.id;
  }

  /** One renewal now (the loop calls it every TTL/3). */
  renew(): Promise<void> {
    this.renewing ??= this.renewOnce().finally(() => (this.renewing = undefined));
    return this.renewing;
  }

  /** Stops renewing; with `revoke`, ends the lease now. Either way this peer is fenced from here on. */
  async stop(revoke: boolean): Promise<void> {
    this.stopped = true;
    this.deadline = 0;
    if (this.timer) clearTimeout(this.timer);
    await this.renewing?.catch(() => undefined);
    if (revoke && this.leaseId !== undefined) await this.store.revokeLease(this.leaseId).catch(() => undefined);
  }

  private async grant(): Promise<void> {
    const sent = this.clock();
    const { id, ttlSeconds } = await this.store.grantLease(this.ttlSeconds);
    this.leaseId = id;
    this.extend(sent, ttlSeconds);
  }

  private async renewOnce(): Promise<void> {
    try {
      const sent = this.clock();
      const ttl = await this.store.keepAlive(this.id);
      if (ttl > 0) {
        this.extend(sent, ttl);
        return;
      }
      // etcd expired the lease (we were cut off too long): take a new one and re-create our keys.
      this.logger.warn(`peer lease ${this.id} expired; granting a new one`);
      await this.grant();
      await this.onRegranted(this.id);
    } catch (error) {
      this.logger.warn({ err: error }, `renewing the peer lease failed (${Math.round(this.remainingMs)} ms left)`);
    }
  }

  private extend(sentAt: number, ttlSeconds: number): void {
    if (this.stopped) return;
    const margin = Math.max(500, (ttlSeconds * 1000) / 5);
    this.deadline = Math.max(this.deadline, sentAt + ttlSeconds * 1000 - margin);
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(
      () => void this.renew().finally(() => this.schedule()),
      Math.max(100, (this.ttlSeconds * 1000) / 3),
    );
    this.timer.unref();
  }
}
