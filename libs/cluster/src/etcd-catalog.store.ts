// The collection catalog in the cluster's metadata store. A change is one guarded transaction over
// the keys it touches; the prefix watch is the only path into the live catalog, on every peer.
import { Logger } from '@nestjs/common';
import { DomainError, integersToNumbers, parseJson, stringifyJson } from '@vectorstore/common';
import { CatalogConflict, CatalogState, CatalogStore, CollectionRecord, emptyCatalog } from '@vectorstore/collections';
import { ClusterKeys } from './cluster-keys';
import { Guard, MetadataStore, MetadataWatch, StoredKey, WatchEvent, Write } from './metadata/metadata-store';

/** Where each key of a published state was last changed: the guard of the next change made from it. */
interface Published {
  revision: number;
  modRevisions: Map<string, number>;
}

export class EtcdCatalogStore implements CatalogStore {
  private readonly logger = new Logger(EtcdCatalogStore.name);
  private readonly published = new WeakMap<CatalogState, Published>();
  private latest: { state: CatalogState; revision: number; modRevisions: Map<string, number> } | undefined;
  private publishChain: Promise<void> = Promise.resolve();
  private publishedRevision = 0;
  private readonly waiters: Array<{ revision: number; resolve: () => void }> = [];
  /** Listener failures of recent revisions, for the peer whose change it was. */
  /**
   * The states published lately, in order, each with its listeners' failure if one failed: a change of ours is
   * answered by the first state that covers its revision (the watch's own event, or a later re-read that skipped it).
   */
  private readonly recentPublishes: Array<{ revision: number; failure?: unknown }> = [];
  private publish: ((state: CatalogState) => Promise<void>) | undefined;
  private watcher: MetadataWatch | undefined;
  private closed = false;

  constructor(
    private readonly store: MetadataStore,
    private readonly keys: ClusterKeys,
    /** How long a committed change may take to come back through the watch. */
    private readonly timeoutMs: number,
    /** Throws when this peer may not change metadata (its lease is in doubt). */
    private readonly assertWritable: () => void = () => undefined,
    /** A guard every change also carries: this peer's registration, which dies with its lease. */
    private readonly membershipGuard: () => Guard | undefined = () => undefined,
  ) {}

  /** The newest catalog revision this peer has published. */
  get revision(): number {
    return this.publishedRevision;
  }

  async load(): Promise<CatalogState | undefined> {
    const { keys, revision } = await this.store.range(this.keys.catalog);
    const modRevisions = new Map(keys.map((k) => [k.key, k.modRevision]));
    const state = this.stateOf(keys);
    this.latest = { state, revision, modRevisions };
    this.published.set(state, { revision, modRevisions });
    this.publishedRevision = revision;
    return state;
  }

  async watch(publish: (state: CatalogState) => Promise<void>): Promise<void> {
    this.publish = publish;
    await this.startWatch();
  }

  async save(state: CatalogState, base: Readonly<CatalogState>): Promise<void> {
    const from = this.published.get(base as CatalogState);
    if (!from) throw new Error('catalog change made from a state this store did not publish');
    const guards: Guard[] = [];
    const writes: Write[] = [];
    const guarded = new Set<string>();
    const guard = (key: string) => {
      if (guarded.has(key)) return;
      guarded.add(key);
      const modRevision = from.modRevisions.get(key);
      guards.push(modRevision === undefined ? { key, absent: true } : { key, modRevision });
    };
    for (const name of new Set([...base.collections.keys(), ...state.collections.keys()])) {
      const before = base.collections.get(name);
      const after = state.collections.get(name);
      const text = after === undefined ? undefined : stringifyJson(after);
      if (text === (before === undefined ? undefined : stringifyJson(before))) continue;
      const key = this.keys.collection(name);
      guard(key);
      writes.push(text === undefined ? { delete: key } : { put: key, value: text });
    }
    const aliases = stringifyJson(Object.fromEntries(state.aliases));
    // Aliases name collections: every change is checked against the aliases it was made with, and an
    // alias pointed somewhere new against the collection it now names (which another peer may delete).
    guard(this.keys.aliases);
    for (const [alias, target] of state.aliases) {
      if (base.aliases.get(alias) !== target) guard(this.keys.collection(target));
    }
    if (aliases !== stringifyJson(Object.fromEntries(base.aliases)))
      writes.push({ put: this.keys.aliases, value: aliases });
    if (writes.length === 0) return;
    checkRequestSize(writes);

    this.assertWritable();
    const membership = this.membershipGuard();
    const result = await this.store.txn(membership ? [...guards, membership] : guards, writes);
    if (!result.succeeded && membership && !(await this.stillHolds(membership))) {
      throw DomainError.unavailable(
        'lease expired: this peer is no longer registered in the cluster metadata store; the change was not applied',
      );
    }
    if (!result.succeeded) {
      // A guarded key changed after `base`: the watch brings that change (the store's revision may
      // have moved on through keys outside the catalog, which the catalog watch never reports).
      await this.caughtUp(from.revision + 1);
      throw new CatalogConflict(result.revision);
    }
    await this.caughtUp(result.revision);
    // A listener of this very change failed (e.g. storage could not be created): the request fails too.
    const covering = this.recentPublishes.find((published) => published.revision >= result.revision);
    if (covering?.failure !== undefined) throw covering.failure;
  }

  /**
   * Publishes the catalog as the store holds it now, unless the watch has already brought it: one read of the
   * catalog keys; when they differ from the newest state this peer has (a change the watch has not delivered yet),
   * that read is published as of its revision, as a lost watch's re-read is, and the watch's older events are then
   * skipped. Resolves once the state is published.
   */
  async catchUp(): Promise<void> {
    const { keys, revision } = await this.store.range(this.keys.catalog);
    const latest = this.latest;
    if (!latest) return;
    const modRevisions = new Map(keys.map((k) => [k.key, k.modRevision]));
    const current =
      modRevisions.size === latest.modRevisions.size &&
      [...modRevisions].every(([key, modRevision]) => latest.modRevisions.get(key) === modRevision);
    if (!current && revision > latest.revision) this.enqueue(this.stateOf(keys), revision, modRevisions);
    await this.caughtUp(this.latest!.revision);
  }

  /**
   * Brings a standalone catalog into an empty cluster catalog (a server switched to cluster mode keeps
   * its collections). Refuses when both hold collections: merging them could lose one side's data.
   * Collections go in batches (etcd caps a transaction's operations); the aliases key goes last and
   * marks the import complete, so an interrupted import is resumed by the next start.
   */
  async importStandalone(local: CatalogState | undefined): Promise<boolean> {
    if (!local || (local.collections.size === 0 && local.aliases.size === 0)) return false;
    const { keys } = await this.store.range(this.keys.catalog);
    const existing = new Map(keys.map((k) => [k.key, k.value]));
    const wanted = new Map(
      [...local.collections].map(([name, record]) => [this.keys.collection(name), stringifyJson(record)]),
    );
    const aliases = stringifyJson(Object.fromEntries(local.aliases));
    // Imported before, by a start that stopped before it could retire the local catalog.
    if (
      existing.get(this.keys.aliases) === aliases &&
      existing.size === wanted.size + 1 &&
      [...wanted].every(([key, value]) => existing.get(key) === value)
    )
      return true;
    const resuming =
      !existing.has(this.keys.aliases) && [...existing].every(([key, value]) => wanted.get(key) === value);
    if (!resuming) {
      const names = [...local.collections.keys()].slice(0, 5).join(', ');
      throw DomainError.failedPrecondition(
        `this data folder has a standalone catalog (${local.collections.size} collections: ${names}) and the cluster already has its own; ` +
          'start this peer with an empty data folder, or import into an empty cluster',
      );
    }
    const missing = [...wanted].filter(([key]) => !existing.has(key));
    for (let i = 0; i < missing.length; i += IMPORT_BATCH) {
      const batch = missing.slice(i, i + IMPORT_BATCH);
      const writes: Write[] = batch.map(([key, value]) => ({ put: key, value }));
      checkRequestSize(writes);
      const result = await this.store.txn(
        batch.map(([key]) => ({ key, absent: true })),
        writes,
      );
      if (!result.succeeded)
        throw DomainError.unavailable('another peer changed the cluster catalog meanwhile; restart');
    }
    const done = await this.store.txn(
      [{ key: this.keys.aliases, absent: true }],
      [{ put: this.keys.aliases, value: aliases }],
    );
    if (!done.succeeded) throw DomainError.unavailable('another peer changed the cluster catalog meanwhile; restart');
    return true;
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.watcher?.cancel();
  }

  private async stillHolds(guard: Guard): Promise<boolean> {
    const found = await this.store.get(guard.key);
    if ('createRevision' in guard) return found?.createRevision === guard.createRevision;
    if ('modRevision' in guard) return found?.modRevision === guard.modRevision;
    return found === undefined;
  }

  /** Resolves once the watch has published `revision` (or later); a change of ours must come back this way. */
  private async caughtUp(revision: number): Promise<void> {
    if (this.publishedRevision >= revision) return this.publishChain;
    let timer: NodeJS.Timeout | undefined;
    const seen = new Promise<void>((resolve) => this.waiters.push({ revision, resolve }));
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(
            DomainError.deadlineExceeded(
              `the catalog change (revision ${revision}) was committed but this peer has not seen it within ${this.timeoutMs} ms`,
            ),
          ),
        this.timeoutMs,
      );
    });
    try {
      await Promise.race([seen, late]);
    } finally {
      clearTimeout(timer);
    }
  }

  private async startWatch(): Promise<void> {
    const from = (this.latest?.revision ?? 0) + 1;
    this.watcher = await this.store.watch(this.keys.catalog, from, {
      onEvents: (events, revision) => this.apply(events, revision),
      onLost: (error) => void this.rewatch(error),
    });
  }

  /** The watch ended (e.g. etcd compacted past it): read everything again, publish it, watch again. */
  private async rewatch(error: Error): Promise<void> {
    if (this.closed) return;
    this.logger.warn({ err: error }, 'catalog watch lost: re-reading the catalog');
    for (let delay = 200; !this.closed; delay = Math.min(delay * 2, 5000)) {
      try {
        const { keys, revision } = await this.store.range(this.keys.catalog);
        this.enqueue(this.stateOf(keys), revision, new Map(keys.map((k) => [k.key, k.modRevision])));
        await this.startWatch();
        return;
      } catch (retryError) {
        this.logger.warn({ err: retryError }, `catalog re-read failed; retrying in ${delay} ms`);
        await new Promise((resolve) => setTimeout(resolve, delay));
      }
    }
  }

  private apply(events: WatchEvent[], revision: number): void {
    const latest = this.latest;
    if (!latest || revision <= latest.revision) return;
    const state = structuredClone(latest.state);
    const modRevisions = new Map(latest.modRevisions);
    for (const event of events) {
      if (event.modRevision <= latest.revision) continue;
      if (event.type === 'put') modRevisions.set(event.key, event.modRevision);
      else modRevisions.delete(event.key);
      if (event.key === this.keys.aliases) {
        state.aliases = event.type === 'put' ? aliasesOf(event.value) : new Map();
      } else if (event.key.startsWith(this.keys.collections)) {
        const name = this.keys.collectionName(event.key);
        if (event.type === 'put') state.collections.set(name, recordOf(event.value));
        else state.collections.delete(name);
      }
    }
    this.enqueue(state, revision, modRevisions);
  }

  private enqueue(state: CatalogState, revision: number, modRevisions: Map<string, number>): void {
    this.latest = { state, revision, modRevisions };
    this.published.set(state, { revision, modRevisions });
    const publish = this.publish;
    this.publishChain = this.publishChain
      .then(() => publish?.(state))
      .then(
        () => this.rememberPublish({ revision }),
        (error: unknown) => {
          this.logger.error({ err: error }, `applying catalog revision ${revision} failed`);
          this.rememberPublish({ revision, failure: error });
        },
      )
      .then(() => {
        this.publishedRevision = Math.max(this.publishedRevision, revision);
        for (let i = this.waiters.length - 1; i >= 0; i--) {
          if (this.waiters[i].revision <= revision) this.waiters.splice(i, 1)[0].resolve();
        }
      });
  }

  private rememberPublish(published: { revision: number; failure?: unknown }): void {
    this.recentPublishes.push(published);
    if (this.recentPublishes.length > 100) this.recentPublishes.shift();
  }

  private stateOf(keys: StoredKey[]): CatalogState {
    const state = emptyCatalog();
    for (const k of keys) {
      if (k.key === this.keys.aliases) state.aliases = aliasesOf(k.value);
      else if (k.key.startsWith(this.keys.collections))
        state.collections.set(this.keys.collectionName(k.key), recordOf(k.value));
    }
    return state;
  }
}

/** Collections per transaction when importing (etcd allows 128 operations by default). */
const IMPORT_BATCH = 100;
/** etcd refuses requests above 1.5 MiB; stay below it with room for the guards. */
const MAX_REQUEST_BYTES = 1_400_000;

function checkRequestSize(writes: Write[]): void {
  let bytes = 0;
  for (const write of writes)
    bytes += 'put' in write ? Buffer.byteLength(write.put) + Buffer.byteLength(write.value) : 0;
  if (bytes > MAX_REQUEST_BYTES)
    throw DomainError.invalidArgument(
      `collection metadata too large for the cluster metadata store: ${bytes} bytes in one change, at most ${MAX_REQUEST_BYTES}`,
    );
}

/** Configuration numbers come back as numbers; collection metadata is user data and stays exact. */
function recordOf(text: string): CollectionRecord {
  return integersToNumbers(parseJson(text), (key) => key === 'metadata') as unknown as CollectionRecord;
}

function aliasesOf(text: string): Map<string, string> {
  return new Map(Object.entries(parseJson(text) as Record<string, string>));
}
