// MetadataStore on etcd v3 through the `etcd3` client. Standalone servers load the module (about 85 ms
// at start) but never create a client.
import { DomainError } from '@vectorstore/common';
import type { ClusterConfig } from '@vectorstore/config';
import { readFileSync } from 'node:fs';
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

  async watch(prefix: string, fromRevision: number, handlers: WatchHandlers): Promise<MetadataWatch> {
    const watcher: Watcher = await this.call('read', () =>
      this.client.watch().prefix(prefix).startRevision(String(fromRevision)).create(),
    );
    watcher.on('data', (res) => {
      if (res.events.length === 0) return;
      handlers.onEvents(
        res.events.map((event) => ({
          type: event.type === 'Put' ? 'put' : 'delete',
          key: event.kv.key.toString(),
          value: event.type === 'Put' ? event.kv.value.toString() : '',
          modRevision: Number(event.kv.mod_revision),
        })),
        Number(res.header.revision),
      );
    });
    // etcd3 resumes a disconnected watch by itself; an error means the watch is gone for good.
    watcher.on('error', (error: Error) => handlers.onLost(error));
    return { cancel: () => watcher.cancel() };
  }

  async grantLease(ttlSeconds: number): Promise<{ id: string; ttlSeconds: number }> {
    const res = await this.call('write', () =>
      this.client.leaseClient.leaseGrant({ TTL: ttlSeconds, ID: 0 }, this.options()),
    );
    return { id: String(res.ID), ttlSeconds: Number(res.TTL) };
  }

  async keepAlive(id: string): Promise<number> {
    const res = await this.call('write', async () => {
      // One request on a keep-alive stream, as etcd has no unary renewal.
      const stream = await this.client.leaseClient.leaseKeepAlive(this.options());
      try {
        return await new Promise<ILeaseKeepAliveResponse>((resolve, reject) => {
          stream.on('data', resolve);
          stream.on('error', reject);
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

  /** Maps a failed etcd call to UNAVAILABLE (not applied) or DEADLINE_EXCEEDED (a write may have been applied). */
  private async call<T>(kind: 'read' | 'write', run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      const text = error instanceof Error ? error.message : String(error);
      if (/deadline/i.test(text) && kind === 'write')
        throw DomainError.deadlineExceeded(
          `cluster metadata store (etcd) did not answer within ${this.timeoutMs} ms: the change may or may not have been applied`,
          error,
        );
      if (/not found/i.test(text)) throw error;
      throw DomainError.unavailable(
        `cluster metadata store (etcd) is unreachable: ${text}; nothing was applied`,
        error,
      );
    }
  }
}

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
