// The cluster's users (issue: "one auth store for the cluster"): every user in one etcd key, read once and then kept
// current by a watch, so verifying a token or a password never waits for etcd; a change is one guarded write.
import { Logger } from '@nestjs/common';
import { normalizeEmail, type UserRecord, type UserStore } from '@vectorstore/auth';
import { DomainError } from '@vectorstore/common';
import { ClusterKeys } from '../cluster-keys';
import { Guard, MetadataStore, MetadataWatch, StoredKey } from '../metadata/metadata-store';

/** Attempts of one change when other peers keep changing the users. */
const MAX_ATTEMPTS = 5;

export class EtcdUserStore implements UserStore {
  private readonly logger = new Logger(EtcdUserStore.name);
  private byId = new Map<string, UserRecord>();
  private byEmail = new Map<string, UserRecord>();
  /** The users key's modification revision as last seen (0: absent). */
  private modRevision = 0;
  /** The store revision this copy reflects: never replaced by an older one. */
  private seenRevision = 0;
  private watcher: MetadataWatch | undefined;
  private closed = false;

  constructor(
    private readonly store: MetadataStore,
    private readonly keys: ClusterKeys,
    /** Throws when this peer may not change metadata (its lease is in doubt). */
    private readonly assertWritable: () => void = () => undefined,
    /** A guard every change also carries: this peer's registration, which dies with its lease. */
    private readonly membershipGuard: () => Guard | undefined = () => undefined,
  ) {}

  async load(): Promise<void> {
    await this.readUsers();
    await this.follow(this.seenRevision + 1);
  }

  async findByEmail(email: string): Promise<UserRecord | undefined> {
    const found = this.byEmail.get(normalizeEmail(email));
    return found && { ...found };
  }

  async findById(id: string): Promise<UserRecord | undefined> {
    const found = this.byId.get(id);
    return found && { ...found };
  }

  async list(): Promise<UserRecord[]> {
    return [...this.byId.values()].map((user) => ({ ...user }));
  }

  async update<T>(mutate: (users: UserRecord[]) => T): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      const users = [...this.byId.values()].map((user) => ({ ...user }));
      const result = mutate(users);
      this.assertWritable();
      const membership = this.membershipGuard();
      const guard: Guard =
        this.modRevision === 0
          ? { key: this.keys.users, absent: true }
          : { key: this.keys.users, modRevision: this.modRevision };
      const value = JSON.stringify({ version: 1, users });
      const outcome = await this.store.txn(membership ? [guard, membership] : [guard], [
        { put: this.keys.users, value },
      ]);
      if (outcome.succeeded) {
        this.take({ key: this.keys.users, value, modRevision: outcome.revision, createRevision: 0 }, outcome.revision);
        return result;
      }
      if (attempt >= MAX_ATTEMPTS)
        throw DomainError.unavailable('the users kept changing on other peers; nothing was applied, try again');
      // Another peer changed them first (or this peer is fenced): read them again and redo the change on them.
      const fresh = await this.store.get(this.keys.users);
      this.take(fresh, Math.max(outcome.revision, fresh?.modRevision ?? 0));
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.watcher?.cancel();
  }

  private async follow(fromRevision: number): Promise<void> {
    this.watcher = await this.store.watch(this.keys.users, fromRevision, {
      onEvents: (events, revision) => {
        for (const event of events) {
          if (event.key !== this.keys.users) continue;
          this.take(
            event.type === 'put'
              ? { key: event.key, value: event.value, modRevision: event.modRevision, createRevision: 0 }
              : undefined,
            revision,
          );
        }
      },
      onLost: (error) => void this.refollow(error),
    });
  }

  private async refollow(error: Error): Promise<void> {
    if (this.closed) return;
    this.logger.warn({ err: error }, 'users watch lost: reading the users again');
    for (let delay = 200; !this.closed; delay = Math.min(delay * 2, 5000)) {
      try {
        await this.readUsers();
        await this.follow(this.seenRevision + 1);
        return;
      } catch {
        await new Promise((resolve) => setTimeout(resolve, delay));
      }
    }
  }

  /**
   * The users key and the store revision in one read, so that the watch started after it begins right past what
   * was read: with two reads, a change between them would be in neither the copy nor the watch.
   */
  private async readUsers(): Promise<void> {
    const { keys, revision } = await this.store.range(this.keys.users);
    this.take(
      keys.find((stored) => stored.key === this.keys.users),
      revision,
    );
  }

  /** Takes the users key as of store revision `revision`, unless this copy is newer already. */
  private take(stored: StoredKey | undefined, revision: number): void {
    if (revision < this.seenRevision) return;
    this.seenRevision = revision;
    this.modRevision = stored?.modRevision ?? 0;
    const users = stored ? parseUsers(stored.value) : [];
    this.byId = new Map(users.map((user) => [user.id, user]));
    this.byEmail = new Map(users.map((user) => [user.email, user]));
  }
}

function parseUsers(text: string): UserRecord[] {
  const data = JSON.parse(text) as { version?: number; users?: UserRecord[] };
  if (data.version !== 1 || !Array.isArray(data.users)) throw new Error('the cluster users key is not format 1');
  return data.users;
}
