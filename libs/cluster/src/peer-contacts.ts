// Whether this peer can reach the others: a Hello to each live peer every few seconds, with failures
// counted per peer address as Qdrant's `/cluster` reports them (`message_send_failures`).
import { Logger } from '@nestjs/common';
import { PeerIdentity } from './peer-hello';
import { PeerInfo } from './peer-registry';

/** How this peer calls another; the app provides it over the internal gRPC service. */
export interface PeerTransport {
  hello(peer: PeerInfo, timeoutMs?: number): Promise<{ peer: PeerIdentity; catalogRevision: number }>;
  close(): void;
}

export interface SendFailures {
  count: number;
  latestError: string;
  latestErrorTimestamp: string;
}

export class PeerContacts {
  private readonly logger = new Logger(PeerContacts.name);
  private readonly failures = new Map<string, SendFailures>();
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private probing: Promise<void> | undefined;

  constructor(
    private readonly transport: PeerTransport,
    private readonly peers: () => Iterable<PeerInfo>,
    private readonly selfId: string,
    private readonly intervalMs: number,
  ) {}

  /** Failed sends by peer address, since the last success to that peer. */
  get sendFailures(): ReadonlyMap<string, SendFailures> {
    return this.failures;
  }

  /** Whether the last call to the peer at `uri` failed (no success since). */
  unreachable(uri: string): boolean {
    return this.failures.has(uri);
  }

  /**
   * A Hello to every other live peer now, each bounded by `timeoutMs`, so that a choice about to be made (where new
   * shards go) does not count on a peer that died a moment ago. Callers while one runs share it.
   */
  probe(timeoutMs: number): Promise<void> {
    this.probing ??= this.checkAll(timeoutMs).finally(() => (this.probing = undefined));
    return this.probing;
  }

  start(): void {
    const tick = () => {
      this.running = this.checkAll().finally(() => {
        this.timer = setTimeout(tick, this.intervalMs);
        this.timer.unref();
      });
    };
    tick();
  }

  async stop(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    await this.running;
    this.transport.close();
  }

  /** One Hello to every other live peer. */
  async checkAll(timeoutMs?: number): Promise<void> {
    const others = [...this.peers()].filter((peer) => peer.peerId !== this.selfId);
    await Promise.all(
      others.map(async (peer) => {
        try {
          await this.transport.hello(peer, timeoutMs);
          this.failures.delete(peer.p2pUri);
        } catch (error) {
          const message = error instanceof Error ? error.message : String(error);
          const previous = this.failures.get(peer.p2pUri);
          if (!previous) this.logger.warn(`cannot reach peer ${peer.peerId} at ${peer.p2pUri}: ${message}`);
          this.failures.set(peer.p2pUri, {
            count: (previous?.count ?? 0) + 1,
            latestError: message,
            latestErrorTimestamp: new Date().toISOString(),
          });
        }
      }),
    );
  }
}
