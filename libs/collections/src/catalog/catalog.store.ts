import { CatalogState } from './catalog-state';

/**
 * Where the catalog lives. A local file today; a consensus store (etcd) in distributed mode
 * implements the same two calls.
 */
export interface CatalogStore {
  load(): Promise<CatalogState | undefined>;
  /** Must be durable when it resolves: a crash afterwards still finds this state. */
  save(state: CatalogState): Promise<void>;
}

export const CATALOG_STORE = Symbol('CATALOG_STORE');
