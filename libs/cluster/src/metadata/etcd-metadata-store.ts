// MetadataStore on etcd v3 through the `etcd3` client. Standalone servers load the module (about 85 ms
// at start) but never create a client.
import { DomainError } from '@vectorstore/common';
import type { ClusterConfig } from '@vectorstore/config';
import { readFileSync } from 'node:fs';
import { noop } from 'cockatiel';
import { Etcd3, IKeyValue, ILeaseKeepAliveResponse, Watcher } from 'etcd3';
import { Guard, MetadataStore, MetadataWatch, StoredKey, TxnResult, WatchHandlers, Write } from './metadata-store';

export class EtcdMetadataStore implements MetadataStore {
  private constructor(
    private readonly client: Etcd3,
    private readonly timeoutMs: number,
  ) {}

  static async connect(config: ClusterConfig['etcd']): Promise<EtcdMetadataStore> {
    const client = new Etcd3({
      hosts: config.endpoints,
      ...(config.username ? { auth: { username: config.username, password: config.password ?? '' } } : {}),
      ...(config.tlsCaFile ? { credentials: { rootCertificate: readFileSync(config.tlsCaFile) } } : {}),
      dialTimeout: config.timeoutMs,
      // No retries and no circuit breaker inside the client: a retried guarded write can fail its own
      // guard and be reported as a conflict, and an open breaker locks a peer out of etcd for seconds
      // after one timeout (long enough to lose its lease). Callers decide what to retry.
      faultHandling: { global: noop, host: () => noop },
    });
    return new EtcdMetadataStore(client, config.timeoutMs);
  }

  async range(prefix: string): Promise<{ keys: StoredKey[]; revision: number }> {
    const res = await this.call('read', () =>
      this.client.kv.range({ key: Buffer.from(prefix), range_end: Buffer.from(prefixEnd(prefix)) }, this.options()),
    );
    return { keys: res.kvs.map(toStoredKey), revision: Number(res.header.revision) };
  }

  async get(key: string): Promise<StoredKey | undefined> {
    const res = await this.call('read', () => this.client.kv.range({ key: Buffer.from(key) }, this.options()));
    return res.kvs.length > 0 ? toStoredKey(res.kvs[0]) : undefined;
  }

  async txn(guards: Guard[], writes: Write[]): Promise<TxnResult> {
    const compare = guards.map((guard) => {
      const key = Buffer.from(guard.key);
      if ('absent' in guard) return { key, target: 'Version' as const, result: 'Equal' as const, version: 0 };
      if ('modRevision' in guard)
        return { key, target: 'Mod' as const, result: 'Equal' as const, mod_revision: guard.modRevision };
      return { key, target: 'Create' as const, result: 'Equal' as const, create_revision: guard.createRevision };
    });
    const success = writes.map((write) =>
      'put' in write
        ? { request_put: { key: Buffer.from(write.put), value: Buffer.from(write.value), lease: write.lease ?? 0 } }
        : { request_delete_range: { key: Buffer.from(write.delete) } },
    );
    const res = await this.call('write', () => this.client.kv.txn({ compare, success, failure: [] }, this.options()));
    return { succeeded: res.succeeded, revision: Number(res.header.revision) };
  }

  /**
   * Our own resume point, not etcd3's: on reconnect etcd3 moves its resume revision to the server's
   * current one before the missed events arrive, so a second drop in that window would skip them. We
   * re-watch from the revision after the last event delivered, and report the highest event revision
   * (a replayed backlog comes in batches stamped with the server's current revision).
   */
  async watch(prefix: string, fromRevision: number, handlers: WatchHandlers): Promise<MetadataWatch> {
    let next = fromRevision;
    let current: Watcher | undefined;
    let cancelled = false;
    let restarting = false;
    const open = async (): Promise<void> => {
      const watcher = await this.call('read', () =>
        this.client.watch().prefix(prefix).startRevision(String(next)).create(),
      );
      if (cancelled) {
        void watcher.cancel().catch(() => undefined);
        return;
      }
      current = watcher;
      watcher.on('data', (res) => {
        if (watcher !== current || res.events.length === 0) return;
        const events = res.events.map((event) => ({
          type: event.type === 'Put' ? ('put' as const) : ('delete' as const),
          key: event.kv.key.toString(),
          value: event.type === 'Put' ? event.kv.value.toString() : '',
          modRevision: Number(event.kv.mod_revision),
        }));
        const last = Math.max(...events.map((event) => event.modRevision));
        next = Math.max(next, last + 1);
        handlers.onEvents(events, last);
      });
      watcher.on('disconnected', () => {
        if (watcher === current) void restart();
      });
      // An error ends the watch for good (e.g. compacted past `next`): the owner re-reads.
      watcher.on('error', (error: Error) => {
        if (watcher !== current) return;
        current = undefined;
        void watcher.cancel().catch(() => undefined);
        if (!cancelled) handlers.onLost(error);
      });
    };
    const restart = async (): Promise<void> => {
      if (restarting || cancelled) return;
      restarting = true;
      const previous = current;
      current = undefined;
      void previous?.cancel().catch(() => undefined);
      for (let delay = 100; !cancelled; delay = Math.min(delay * 2, 2000)) {
        try {
          await open();
          break;
        } catch {
          await new Promise((resolve) => setTimeout(resolve, delay));
        }
      }
      restarting = false;
    };
    await open();
    return {
      cancel: async () => {
        cancelled = true;
        const watcher = current;
        current = undefined;
        await watcher?.cancel().catch(() => undefined);
      },
    };
  }

  async grantLease(ttlSeconds: number): Promise<{ id: string; ttlSeconds: number }> {
    const res = await this.call('write', () =>
      this.client.leaseClient.leaseGrant({ TTL: ttlSeconds, ID: 0 }, this.options()),
    );
    return { id: String(res.ID), ttlSeconds: Number(res.TTL) };
  }

  async keepAlive(id: string, timeoutMs = this.timeoutMs): Promise<number> {
    const res = await this.call('write', async () => {
      // One request on a keep-alive stream, as etcd has no unary renewal.
      const stream = await this.client.leaseClient.leaseKeepAlive({ deadline: Date.now() + timeoutMs });
      try {
        return await new Promise<ILeaseKeepAliveResponse>((resolve, reject) => {
          stream.on('data', resolve);
          stream.on('error', reject);
          // A stream that ends without an answer must not leave the renewal hanging.
          stream.on('end', () => reject(new Error('keep-alive stream ended without an answer')));
          stream.write({ ID: id });
        });
      } finally {
        stream.end();
      }
    });
    return Math.max(0, Number(res.TTL));
  }

  async revokeLease(id: string): Promise<void> {
    try {
      await this.call('write', () => this.client.leaseClient.leaseRevoke({ ID: id }, this.options()));
    } catch (error) {
      // Already expired or revoked: the goal is met.
      if (!(error instanceof Error) || !/not found/i.test(error.message)) throw error;
    }
  }

  async close(): Promise<void> {
    this.client.close();
  }

  private options(): { deadline: number } {
    return { deadline: Date.now() + this.timeoutMs };
  }

  /**
   * Maps a failed etcd call. A read, or a write that provably never left this process (no connection),
   * is UNAVAILABLE "nothing was applied"; any other failed write may have been applied (a reply lost
   * after etcd committed, etcd's own "request timed out" or "leader changed"): DEADLINE_EXCEEDED.
   */
  private async call<T>(kind: 'read' | 'write', run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      const text = error instanceof Error ? error.message : String(error);
      if (/not found/i.test(text)) throw error;
      if (kind === 'write' && !NEVER_SENT.test(text))
        throw DomainError.deadlineExceeded(
          `cluster metadata store (etcd) did not confirm the change (${text}): it may or may not have been applied`,
          error,
        );
      throw DomainError.unavailable(
        `cluster metadata store (etcd) is unreachable: ${text}; nothing was applied`,
        error,
      );
    }
  }
}

/** Errors that mean the request never reached etcd. */
const NEVER_SENT =
  /No connection established|ECONNREFUSED|EHOSTUNREACH|ENOTFOUND|connect E|Failed to connect|circuit breaker/i;

function toStoredKey(kv: IKeyValue): StoredKey {
  const lease = String(kv.lease);
  return {
    key: kv.key.toString(),
    value: kv.value.toString(),
    modRevision: Number(kv.mod_revision),
    createRevision: Number(kv.create_revision),
    ...(lease !== '0' ? { lease } : {}),
  };
}

/** etcd's range end for "every key starting with prefix": the prefix with its last byte incremented. */
export function prefixEnd(prefix: string): string {
  const bytes = Buffer.from(prefix);
  for (let i = bytes.length - 1; i >= 0; i--) {
    if (bytes[i] < 0xff) {
      bytes[i]++;
      return bytes.subarray(0, i + 1).toString('latin1');
    }
  }
  return '\0';
}
