import { CollectionRecord } from '../model/collection.model';

export const CATALOG_FORMAT_VERSION = 1;

/** Everything the node knows about collections, written as one unit so changes are all-or-nothing. */
export interface CatalogState {
  version: typeof CATALOG_FORMAT_VERSION;
  collections: Record<string, CollectionRecord>;
  /** alias name -> collection name */
  aliases: Record<string, string>;
}

export function emptyCatalog(): CatalogState {
  return { version: CATALOG_FORMAT_VERSION, collections: {}, aliases: {} };
}
