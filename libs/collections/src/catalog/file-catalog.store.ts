import { integersToNumbers, parseJson, stringifyJson } from '@vectorstore/common';
import { readFileIfExists, removeStaleTemporaryFiles, writeFileAtomic } from '@vectorstore/persistence';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { CATALOG_FORMAT_VERSION, CatalogState, fromPersisted, PersistedCatalog, toPersisted } from './catalog-state';
import { CatalogStore } from './catalog.store';

const CATALOG_FILE = 'catalog.json';
const RETIRED_FILE = 'catalog.standalone.json';

/** Keeps the catalog in `<dataDir>/catalog.json`, replaced atomically on every change. */
export class FileCatalogStore implements CatalogStore {
  private readonly filePath: string;

  constructor(private readonly dataDir: string) {
    this.filePath = path.join(dataDir, CATALOG_FILE);
  }

  async load(): Promise<CatalogState | undefined> {
    await fs.mkdir(this.dataDir, { recursive: true, mode: 0o700 });
    await removeStaleTemporaryFiles(this.dataDir);
    const text = await readFileIfExists(this.filePath);
    if (text === undefined) return undefined;
    // Configuration numbers come back as numbers; collection metadata is user data and stays exact.
    const persisted = integersToNumbers(parseJson(text), (key) => key === 'metadata') as PersistedCatalog;
    if (persisted.version !== CATALOG_FORMAT_VERSION) {
      throw new Error(`${this.filePath}: unsupported catalog format version ${String(persisted.version)}`);
    }
    return fromPersisted(persisted);
  }

  /** Keeps the file as `catalog.standalone.json` once its collections live elsewhere (cluster mode). */
  async retire(): Promise<void> {
    await fs.rename(this.filePath, path.join(this.dataDir, RETIRED_FILE));
  }

  async save(state: CatalogState): Promise<void> {
    await writeFileAtomic(this.filePath, stringifyJson(toPersisted(state), 2));
  }
}
