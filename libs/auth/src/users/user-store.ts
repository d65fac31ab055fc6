import type { UserRecord } from './user.model';

/**
 * Where users are kept: `<dataDir>/auth/users.json` on a standalone server (user.store.ts), etcd in cluster mode
 * (libs/cluster), where every peer sees the same users. Reads come from memory (a cache the file's identity or
 * etcd's watch keeps current): verifying a token never waits for the store.
 */
export interface UserStore {
  /** Reads the users and starts following changes. */
  load(): Promise<void>;
  findByEmail(email: string): Promise<UserRecord | undefined>;
  findById(id: string): Promise<UserRecord | undefined>;
  list(): Promise<UserRecord[]>;
  /**
   * Read-modify-write of all users as one guarded change: `mutate` gets a fresh copy and may change, add or remove
   * entries; when another writer came first it runs again on the newer copy; when it throws, nothing is written.
   */
  update<T>(mutate: (users: UserRecord[]) => T): Promise<T>;
  close?(): Promise<void>;
}
