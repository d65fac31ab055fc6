import { parseJson, stringifyJson } from '@vectorstore/common';
import { readFileIfExists, removeStaleTemporaryFiles, writeFileAtomic } from '@vectorstore/persistence';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { CATALOG_FORMAT_VERSION, CatalogState, fromPersisted, PersistedCatalog, toPersisted } from './catalog-state';
import { CatalogStore } from './catalog.store';

const CATALOG_FILE = 'catalog.json';

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
    const persisted = reviveNumbers(parseJson(text)) as PersistedCatalog;
    if (persisted.version !== CATALOG_FORMAT_VERSION) {
      throw new Error(`${this.filePath}: unsupported catalog format version ${String(persisted.version)}`);
    }
    return fromPersisted(persisted);
  }

  async save(state: CatalogState): Promise<void> {
    await writeFileAtomic(this.filePath, stringifyJson(toPersisted(state), 2));
  }
}

/**
 * The JSON codec reads every integer as bigint so payload-like values stay exact; configuration
 * numbers are plain numbers, so convert them back everywhere except inside collection metadata.
 */
function reviveNumbers(value: unknown, insideMetadata = false): unknown {
  if (typeof value === 'bigint') return insideMetadata ? value : Number(value);
  if (Array.isArray(value)) return value.map((item) => reviveNumbers(item, insideMetadata));
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, reviveNumbers(item, insideMetadata || key === 'metadata')]),
    );
  }
  return value;
}
