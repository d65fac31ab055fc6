// Where refresh sessions are kept: one file on a standalone server, etcd in cluster mode (libs/cluster). The
// rotation rules (refresh-token.store.ts) run over this port with optimistic concurrency: each record is read with
// a version, and a commit that changes records says which versions it expects, so two peers refreshing one token
// at once cannot both create successors.

/** A login session: every refresh token descending from one login shares the family. */
export interface FamilyRecord {
  userId: string;
  tokenVersion: number;
  createdAt: number;
  revokedAt?: number;
}

/** One refresh token, known only by its SHA-256. */
export interface TokenRecord {
  familyId: string;
  expiresAt: number;
  usedAt?: number;
  /**
   * What the first use answered, sealed with a key only the token itself yields; kept for the reuse grace only, so a
   * reuse within it hands back the same successor instead of forking the family.
   */
  successor?: string;
}

/** A record as read, with the version a later commit expects it to still have. */
export interface Versioned<T> {
  value: T;
  version: number;
}

/**
 * One change of a commit. `expect`: the version the record must still have (`absent`: it must not exist); a
 * `value` of null deletes it.
 */
export type RefreshWrite =
  | { kind: 'token'; hash: string; value: TokenRecord | null; expect?: number | 'absent' }
  | { kind: 'family'; id: string; value: FamilyRecord | null; expect?: number | 'absent' };

export interface RefreshRecords {
  /** Reads what is stored (a standalone file, a cluster's keys). */
  load(): Promise<void>;
  token(hash: string): Promise<Versioned<TokenRecord> | undefined>;
  family(id: string): Promise<Versioned<FamilyRecord> | undefined>;
  /** Applies every write or none; false when an expected version no longer holds (nothing changed). */
  commit(writes: readonly RefreshWrite[]): Promise<boolean>;
  close?(): Promise<void>;
}
