// The cluster's metadata store: a strongly consistent key-value store with revisions, transactions,
// prefix watches and leases (etcd's model). Everything the cluster keeps in etcd goes through this
// interface, so the client library can be replaced and state machines can be tested in memory.

/** One stored key with etcd's bookkeeping. Revisions are store-wide and only grow. */
export interface StoredKey {
  key: string;
  value: string;
  /** Revision of the last change to this key. */
  modRevision: number;
  /** Revision that created this key (since its last deletion). */
  createRevision: number;
  /** The lease the key dies with, if any. */
  lease?: string;
}

/** A transaction guard: every one must hold for the writes to apply. */
export type Guard =
  { key: string; absent: true } | { key: string; modRevision: number } | { key: string; createRevision: number };

export type Write = { put: string; value: string; lease?: string } | { delete: string };

export interface TxnResult {
  succeeded: boolean;
  /** The store's revision after the transaction (or when the guard failed). */
  revision: number;
}

export interface WatchEvent {
  type: 'put' | 'delete';
  key: string;
  /** The new value (put) or '' (delete). */
  value: string;
  modRevision: number;
}

export interface MetadataWatch {
  cancel(): Promise<void>;
}

export interface WatchHandlers {
  /** The events of one revision (or several), in revision order. */
  onEvents(events: WatchEvent[], revision: number): void;
  /** The watch ended (compaction, a lost connection that could not resume): re-read and re-watch. */
  onLost(error: Error): void;
}

export interface MetadataStore {
  /** Every key under `prefix`, with the revision the read saw. */
  range(prefix: string): Promise<{ keys: StoredKey[]; revision: number }>;
  get(key: string): Promise<StoredKey | undefined>;
  /** Applies `writes` atomically if every guard holds. */
  txn(guards: Guard[], writes: Write[]): Promise<TxnResult>;
  /** Changes under `prefix` from `fromRevision` on (inclusive). */
  watch(prefix: string, fromRevision: number, handlers: WatchHandlers): Promise<MetadataWatch>;
  /** A new lease of `ttlSeconds`; returns its id and the granted TTL. */
  grantLease(ttlSeconds: number): Promise<{ id: string; ttlSeconds: number }>;
  /** Renews a lease once; the remaining TTL in seconds, 0 when the lease is gone. */
  keepAlive(id: string): Promise<number>;
  revokeLease(id: string): Promise<void>;
  close(): Promise<void>;
}

export const METADATA_STORE = Symbol('METADATA_STORE');
