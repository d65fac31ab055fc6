import { CatalogState } from './catalog-state';

/**
 * Where the catalog lives: a local file (standalone), or the cluster's metadata store, shared by
 * every peer (cluster mode).
 */
export interface CatalogStore {
  load(): Promise<CatalogState | undefined>;
  /**
   * Must be durable when it resolves: a crash afterwards still finds this state. `base` is the
   * published state `state` was made from: a shared store applies the change only if what it touched
   * has not changed since `base`, else it throws {@link CatalogConflict}.
   */
  save(state: CatalogState, base: Readonly<CatalogState>): Promise<void>;
  /**
   * Shared stores only. Every committed state (this peer's and the others') is handed to `publish`,
   * one at a time and in commit order: it is the only way the live catalog changes. `save` resolves
   * once its own change has been published, and throws CatalogConflict only after the newer state has.
   */
  watch?(publish: (state: CatalogState) => Promise<void>): Promise<void>;
  /**
   * Shared stores only. Resolves once every change the store had committed when called has been handed to
   * `publish` (the watch may lag): after it, the live catalog is at least as new as the call.
   */
  catchUp?(): Promise<void>;
}

/** A shared store refused a change made from a state that is no longer current; retry on the new one. */
export class CatalogConflict extends Error {
  constructor(readonly revision: number) {
    super(`the catalog changed concurrently (revision ${revision})`);
    this.name = 'CatalogConflict';
  }
}

export const CATALOG_STORE = Symbol('CATALOG_STORE');
