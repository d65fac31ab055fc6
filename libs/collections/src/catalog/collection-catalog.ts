import { Inject, Injectable } from '@nestjs/common';
import { DomainError, KeyedMutex } from '@vectorstore/common';
import { CollectionRecord } from '../model/collection.model';
import { CatalogState, emptyCatalog, resolveInState } from './catalog-state';
import { CATALOG_STORE, CatalogConflict, CatalogStore } from './catalog.store';
import { bumpReplicaEpochs } from './replica-epoch';

const CATALOG_LOCK = 'catalog';
/** Publishing a state and subscribing run one at a time under this lock (never waits for CATALOG_LOCK). */
const PUBLISH_LOCK = 'publish';
/** A shared store's change is retried this many times when other peers keep changing the catalog. */
const MAX_ATTEMPTS = 5;

/**
 * The in-memory catalog and the only way to change it. Changes run one at a time; each works on a
 * copy that is persisted before it replaces the live state, so readers never see a change that a
 * crash could undo, and a failed write changes nothing. With a shared store (cluster mode) the live
 * state changes only through the store's watch, for this peer's changes and the others' alike.
 */
@Injectable()
export class CollectionCatalog {
  private state: CatalogState = emptyCatalog();
  private readonly mutex = new KeyedMutex();
  private readonly listeners: Array<(state: Readonly<CatalogState>) => Promise<void> | void> = [];

  constructor(@Inject(CATALOG_STORE) private readonly store: CatalogStore) {}

  async load(): Promise<void> {
    this.state = (await this.store.load()) ?? emptyCatalog();
    await this.store.watch?.((state) => this.mutex.run(PUBLISH_LOCK, () => this.publish(state)));
  }

  /** The current state; treat as read-only. */
  get snapshot(): Readonly<CatalogState> {
    return this.state;
  }

  /**
   * Resolves once the live state holds every change the store had committed when called. A shared store's watch
   * lags by milliseconds; what must not act on an older state (a backup choosing the replicas to copy) waits here.
   * A local store publishes each change before `mutate` resolves, so it is always caught up.
   */
  async catchUp(): Promise<void> {
    await this.store.catchUp?.();
  }

  /** Resolves a collection name or alias to the collection's record. */
  resolve(nameOrAlias: string): CollectionRecord | undefined {
    return resolveInState(this.state, nameOrAlias);
  }

  /** Like {@link resolve} but NOT_FOUND with Qdrant's message when absent. */
  require(nameOrAlias: string): CollectionRecord {
    const record = this.resolve(nameOrAlias);
    if (!record) throw collectionNotFound(nameOrAlias);
    return record;
  }

  /**
   * Applies `change` to a private copy, persists it, then publishes it. `change` may throw a
   * DomainError to abort with nothing changed. Its return value is passed through.
   */
  mutate<T>(change: (draft: CatalogState) => T): Promise<T> {
    return this.mutex.run(CATALOG_LOCK, () => this.commit(change));
  }

  /**
   * Like {@link mutate}, but first runs `prepare` under the same lock with the current state: for
   * work that must be durable before the catalog records the change (e.g. deleting a vector's data
   * before the vector name). No other change can come in between. Whatever `prepare` resolves to is
   * handed to `change`; if it throws, nothing is changed.
   */
  mutateAfter<P, T>(
    prepare: (state: Readonly<CatalogState>) => Promise<P>,
    change: (draft: CatalogState, prepared: P) => T,
  ): Promise<T> {
    return this.mutex.run(CATALOG_LOCK, async () => {
      const prepared = await prepare(this.state);
      return this.commit((draft) => change(draft, prepared));
    });
  }

  private async commit<T>(change: (draft: CatalogState) => T): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      const base = this.state;
      const draft = structuredClone(base);
      const result = change(draft);
      bumpReplicaEpochs(base, draft);
      try {
        await this.store.save(draft, base);
      } catch (error) {
        // The store has published the newer state by now: build the change again on it.
        if (error instanceof CatalogConflict && attempt < MAX_ATTEMPTS) continue;
        if (error instanceof CatalogConflict)
          throw DomainError.unavailable(
            `the collection catalog kept changing concurrently (${MAX_ATTEMPTS} attempts); nothing was applied, try again`,
          );
        throw error;
      }
      if (!this.store.watch) await this.mutex.run(PUBLISH_LOCK, () => this.publish(draft));
      return result;
    }
  }

  private async publish(state: CatalogState): Promise<void> {
    this.state = state;
    // Listeners see changes one at a time and in order.
    for (const listener of this.listeners) await listener(state);
  }

  /**
   * Calls `listener` after every committed change (and once now with the current state), e.g. so
   * storage can create or drop a collection's data. A listener failure fails the change's request,
   * but the change itself stays committed; the next change or restart reconciles again.
   */
  async subscribe(listener: (state: Readonly<CatalogState>) => Promise<void> | void): Promise<void> {
    await this.mutex.run(PUBLISH_LOCK, async () => {
      this.listeners.push(listener);
      await listener(this.state);
    });
  }
}

export function collectionNotFound(name: string): DomainError {
  return DomainError.notFound(`Not found: Collection \`${name}\` doesn't exist!`);
}
