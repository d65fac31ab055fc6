// An in-memory MetadataStore with etcd's semantics (revisions, guarded transactions, prefix watches,
// leases), for unit tests of the cluster's state machines. `down` makes every call fail as etcd
// unreachable would; `expireLease` ends a lease as etcd's TTL would.
import { DomainError } from '@vectorstore/common';
import {
  Guard,
  MetadataStore,
  MetadataWatch,
  StoredKey,
  TxnResult,
  WatchEvent,
  WatchHandlers,
  Write,
} from '../metadata/metadata-store';

interface Watching {
  prefix: string;
  handlers: WatchHandlers;
}

export class MemoryMetadataStore implements MetadataStore {
  private readonly keys = new Map<string, StoredKey>();
  private readonly history: WatchEvent[] = [];
  private readonly watches = new Set<Watching>();
  private readonly leases = new Map<string, number>();
  private revision = 1;
  private nextLease = 1;
  down = false;

  async range(prefix: string): Promise<{ keys: StoredKey[]; revision: number }> {
    this.check();
    const keys = [...this.keys.values()].filter((k) => k.key.startsWith(prefix)).sort((a, b) => cmp(a.key, b.key));
    return { keys: keys.map((k) => ({ ...k })), revision: this.revision };
  }

  async get(key: string): Promise<StoredKey | undefined> {
    this.check();
    const found = this.keys.get(key);
    return found ? { ...found } : undefined;
  }

  async txn(guards: Guard[], writes: Write[]): Promise<TxnResult> {
    this.check();
    const holds = guards.every((guard) => {
      const found = this.keys.get(guard.key);
      if ('absent' in guard) return found === undefined;
      if ('modRevision' in guard) return (found?.modRevision ?? 0) === guard.modRevision;
      return (found?.createRevision ?? 0) === guard.createRevision;
    });
    if (!holds) return { succeeded: false, revision: this.revision };
    for (const write of writes) {
      if ('put' in write && write.lease !== undefined && !this.leases.has(write.lease))
        throw new Error(`lease ${write.lease} not found`);
    }
    if (writes.length === 0) return { succeeded: true, revision: this.revision };
    this.revision++;
    const events: WatchEvent[] = [];
    for (const write of writes) {
      if ('put' in write) {
        const previous = this.keys.get(write.put);
        this.keys.set(write.put, {
          key: write.put,
          value: write.value,
          modRevision: this.revision,
          createRevision: previous?.createRevision ?? this.revision,
          ...(write.lease !== undefined ? { lease: write.lease } : {}),
        });
        events.push({ type: 'put', key: write.put, value: write.value, modRevision: this.revision });
      } else if (this.keys.delete(write.delete)) {
        events.push({ type: 'delete', key: write.delete, value: '', modRevision: this.revision });
      }
    }
    this.publish(events);
    return { succeeded: true, revision: this.revision };
  }

  async watch(prefix: string, fromRevision: number, handlers: WatchHandlers): Promise<MetadataWatch> {
    this.check();
    const watching = { prefix, handlers };
    const past = this.history.filter((e) => e.modRevision >= fromRevision && e.key.startsWith(prefix));
    this.watches.add(watching);
    if (past.length > 0) queueMicrotask(() => deliver(handlers, past));
    return { cancel: async () => void this.watches.delete(watching) };
  }

  async grantLease(ttlSeconds: number): Promise<{ id: string; ttlSeconds: number }> {
    this.check();
    const id = String(this.nextLease++);
    this.leases.set(id, ttlSeconds);
    return { id, ttlSeconds };
  }

  async keepAlive(id: string): Promise<number> {
    this.check();
    return this.leases.get(id) ?? 0;
  }

  async revokeLease(id: string): Promise<void> {
    this.check();
    this.expireLease(id);
  }

  /** Ends a lease and deletes its keys, as etcd does when the TTL runs out. */
  expireLease(id: string): void {
    if (!this.leases.delete(id)) return;
    const doomed = [...this.keys.values()].filter((k) => k.lease === id).map((k) => ({ delete: k.key }));
    if (doomed.length === 0) return;
    this.revision++;
    const events = doomed.map((d) => {
      this.keys.delete(d.delete);
      return { type: 'delete' as const, key: d.delete, value: '', modRevision: this.revision };
    });
    this.publish(events);
  }

  /** Like one client disconnecting: peers sharing this store keep their watches (each cancels its own). */
  async close(): Promise<void> {}

  private publish(events: WatchEvent[]): void {
    this.history.push(...events);
    for (const watching of this.watches) {
      const mine = events.filter((e) => e.key.startsWith(watching.prefix));
      if (mine.length > 0) queueMicrotask(() => deliver(watching.handlers, mine));
    }
  }

  private check(): void {
    if (this.down) throw DomainError.unavailable('cluster metadata store (etcd) is unreachable; nothing was applied');
  }
}

function deliver(handlers: WatchHandlers, events: WatchEvent[]): void {
  handlers.onEvents(events, events[events.length - 1].modRevision);
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
