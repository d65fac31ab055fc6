import { CollectionRecord } from '../model/collection.model';

export const CATALOG_FORMAT_VERSION = 1;

/**
 * Everything the node knows about collections, written as one unit so changes are all-or-nothing.
 * Maps, not plain objects: any string is a valid name, including `constructor` or `__proto__`.
 */
export interface CatalogState {
  collections: Map<string, CollectionRecord>;
  /** alias name -> collection name */
  aliases: Map<string, string>;
}

export function emptyCatalog(): CatalogState {
  return { collections: new Map(), aliases: new Map() };
}

/** The catalog as written to disk: lists rather than maps, with a format version. */
export interface PersistedCatalog {
  version: typeof CATALOG_FORMAT_VERSION;
  collections: CollectionRecord[];
  aliases: Array<{ aliasName: string; collectionName: string }>;
}

export function toPersisted(state: CatalogState): PersistedCatalog {
  return {
    version: CATALOG_FORMAT_VERSION,
    collections: [...state.collections.values()],
    aliases: [...state.aliases].map(([aliasName, collectionName]) => ({ aliasName, collectionName })),
  };
}

export function fromPersisted(persisted: PersistedCatalog): CatalogState {
  return {
    collections: new Map(persisted.collections.map((record) => [record.name, record])),
    aliases: new Map(persisted.aliases.map((alias) => [alias.aliasName, alias.collectionName])),
  };
}

/** The collection a name or alias refers to. */
export function resolveInState(state: CatalogState, nameOrAlias: string): CollectionRecord | undefined {
  const direct = state.collections.get(nameOrAlias);
  if (direct) return direct;
  const target = state.aliases.get(nameOrAlias);
  return target === undefined ? undefined : state.collections.get(target);
}
