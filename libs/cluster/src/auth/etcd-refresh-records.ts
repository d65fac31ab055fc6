// The cluster's refresh sessions: one etcd key per family and per token (by its SHA-256), read directly (a refresh
// is rare and must see the newest state), changed by guarded transactions, so that two peers rotating one token at
// once cannot both create successors (auth's refresh-token.store.ts runs its rules over these records).
import type { FamilyRecord, RefreshRecords, RefreshWrite, TokenRecord, Versioned } from '@vectorstore/auth';
import { ClusterKeys } from '../cluster-keys';
import { Guard, MetadataStore, StoredKey, Write } from '../metadata/metadata-store';

export class EtcdRefreshRecords implements RefreshRecords {
  constructor(
    private readonly store: MetadataStore,
    private readonly keys: ClusterKeys,
    private readonly now: () => number = Date.now,
  ) {}

  async load(): Promise<void> {
    // Nothing to read ahead: every refresh reads its own keys.
  }

  async token(hash: string): Promise<Versioned<TokenRecord> | undefined> {
    return versioned<TokenRecord>(await this.store.get(this.keys.token(hash)));
  }

  async family(id: string): Promise<Versioned<FamilyRecord> | undefined> {
    return versioned<FamilyRecord>(await this.store.get(this.keys.session(id)));
  }

  async commit(writes: readonly RefreshWrite[]): Promise<boolean> {
    const guards: Guard[] = [];
    const puts: Write[] = [];
    for (const write of writes) {
      const key = write.kind === 'token' ? this.keys.token(write.hash) : this.keys.session(write.id);
      if (write.expect === 'absent') guards.push({ key, absent: true });
      else if (write.expect !== undefined) guards.push({ key, modRevision: write.expect });
      puts.push(write.value === null ? { delete: key } : { put: key, value: JSON.stringify(write.value) });
    }
    return (await this.store.txn(guards, puts)).succeeded;
  }

  /**
   * Removes what no refresh can use any more: expired tokens, families left without tokens, and seals past
   * `sealLifetimeMs` (the peer that rotated drops its seal after the grace; one that stopped first leaves it). The
   * leader runs it now and then; each deletion is guarded by the revision it saw, so a key changed meanwhile stays.
   * Keys are read in parts (80 small ranges), so a cluster with many sessions is swept as well as a small one.
   */
  async sweep(sealLifetimeMs: number): Promise<{ tokens: number; families: number; seals: number }> {
    const now = this.now();
    const swept = { tokens: 0, families: 0, seals: 0 };
    const liveFamilies = new Set<string>();
    const deletions: Array<{ key: string; modRevision: number }> = [];
    for await (const stored of this.rangeInParts(this.keys.tokens, DIGEST_FIRST_CHARACTERS)) {
      const token = JSON.parse(stored.value) as TokenRecord;
      if (token.expiresAt <= now) {
        deletions.push({ key: stored.key, modRevision: stored.modRevision });
        swept.tokens++;
        continue;
      }
      liveFamilies.add(token.familyId);
      if (token.successor !== undefined && now - (token.usedAt ?? 0) >= sealLifetimeMs) {
        const { successor: _dropped, ...without } = token;
        const done = await this.store.txn(
          [{ key: stored.key, modRevision: stored.modRevision }],
          [{ put: stored.key, value: JSON.stringify(without) }],
        );
        if (done.succeeded) swept.seals++;
      }
    }
    for await (const stored of this.rangeInParts(this.keys.sessions, UUID_FIRST_CHARACTERS)) {
      if (liveFamilies.has(stored.key.slice(this.keys.sessions.length))) continue;
      // A family whose first token was just written is young: leave families of the last minute alone.
      const family = JSON.parse(stored.value) as FamilyRecord;
      if (now - family.createdAt < 60_000) continue;
      deletions.push({ key: stored.key, modRevision: stored.modRevision });
      swept.families++;
    }
    // Guarded one by one: a single changed key must not keep the others from going.
    for (const { key, modRevision } of deletions) await this.store.txn([{ key, modRevision }], [{ delete: key }]);
    return swept;
  }

  /**
   * Every key under `prefix`, read one first character at a time: used tokens stay until they expire (one per
   * refresh, for days), and a single answer holding them all would outgrow what the etcd client accepts (4 MB,
   * about 20 000 tokens), failing every sweep from then on.
   */
  private async *rangeInParts(prefix: string, firstCharacters: string): AsyncGenerator<StoredKey> {
    for (const first of firstCharacters) yield* (await this.store.range(`${prefix}${first}`)).keys;
  }
}

/** Token keys end in a SHA-256 in base64url, family keys in a random UUID (lower-case hex). */
const DIGEST_FIRST_CHARACTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const UUID_FIRST_CHARACTERS = '0123456789abcdef';

function versioned<T>(stored: StoredKey | undefined): Versioned<T> | undefined {
  return stored && { value: JSON.parse(stored.value) as T, version: stored.modRevision };
}
