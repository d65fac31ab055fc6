import { Logger } from '@nestjs/common';
import {
  checkSealedJson,
  DamagedFileError,
  describeSealCheck,
  integersToNumbers,
  parseJson,
  sealJson,
  stringifyJson,
} from '@vectorstore/common';
import { durableFs, readFileIfExists, removeStaleTemporaryFiles, writeFileAtomic } from '@vectorstore/persistence';
import * as path from 'node:path';
import { CATALOG_FORMAT_VERSION, CatalogState, fromPersisted, PersistedCatalog, toPersisted } from './catalog-state';
import { CatalogStore } from './catalog.store';

const CATALOG_FILE = 'catalog.json';
/** The same content as the catalog, written just before it: what start recovers a damaged catalog from. */
const COPY_FILE = 'catalog.copy.json';
const RETIRED_FILE = 'catalog.standalone.json';

/** What reading one of the two files found. */
type ReadResult = { state: CatalogState; sealed: boolean } | { missing: true } | { damaged: DamagedFileError };

/**
 * Keeps the catalog in `<dataDir>/catalog.json`, replaced atomically on every change, with a checksum of its
 * content, and an identical `catalog.copy.json` written just before it. Start takes the catalog if it is intact,
 * else the copy (and repairs the catalog from it). With neither intact it refuses to start, naming the file:
 * starting with an empty catalog would remove every collection's data as unlisted.
 */
export class FileCatalogStore implements CatalogStore {
  private readonly filePath: string;
  private readonly copyPath: string;
  private readonly logger = new Logger(FileCatalogStore.name);

  constructor(private readonly dataDir: string) {
    this.filePath = path.join(dataDir, CATALOG_FILE);
    this.copyPath = path.join(dataDir, COPY_FILE);
  }

  async load(): Promise<CatalogState | undefined> {
    await durableFs.mkdir(this.dataDir, { recursive: true, mode: 0o700 });
    await removeStaleTemporaryFiles(this.dataDir);
    const main = await this.read(this.filePath);
    if ('state' in main) {
      // A catalog written before checksums gets one, and its copy, now rather than at the next change.
      if (!main.sealed) await this.save(main.state);
      return main.state;
    }
    const copy = await this.read(this.copyPath);
    if ('missing' in main && 'missing' in copy) return undefined;
    if ('state' in copy) {
      // The copy is never older than the catalog (it is written first), so nothing acknowledged is lost.
      this.logger.warn(
        'damaged' in main
          ? `${main.damaged.message}; the catalog was recovered from ${this.copyPath}`
          : `${this.filePath} is missing; the catalog was recovered from ${this.copyPath}`,
      );
      await writeFileAtomic(this.filePath, catalogText(copy.state));
      return copy.state;
    }
    const damage = 'damaged' in main ? main.damaged : (copy as { damaged: DamagedFileError }).damaged;
    const copyState = 'missing' in copy ? `there is no ${COPY_FILE} beside it` : `${this.copyPath} is damaged too`;
    throw damage.withAdvice(
      `${copyState}, so the server did not start (an empty catalog would remove every collection's data); ` +
        `put back a catalog.json from a backup, or move the data folder aside and restore the collections from snapshots`,
    );
  }

  /** Keeps the file as `catalog.standalone.json` once its collections live elsewhere (cluster mode). */
  async retire(): Promise<void> {
    // The copy goes first: left behind, it would bring the catalog back at the next standalone start.
    await durableFs.rm(this.copyPath, { force: true });
    await durableFs.rename(this.filePath, path.join(this.dataDir, RETIRED_FILE));
    await durableFs.syncDirectory(this.dataDir);
  }

  async save(state: CatalogState): Promise<void> {
    const text = catalogText(state);
    await writeFileAtomic(this.copyPath, text);
    await writeFileAtomic(this.filePath, text);
  }

  private async read(filePath: string): Promise<ReadResult> {
    let text: string | undefined;
    try {
      text = await readFileIfExists(filePath);
    } catch (error) {
      return { damaged: new DamagedFileError(filePath, `it cannot be read (${(error as Error).message})`) };
    }
    if (text === undefined) return { missing: true };
    let parsed: unknown;
    try {
      parsed = parseJson(text);
    } catch (error) {
      return { damaged: new DamagedFileError(filePath, `not valid JSON (${(error as Error).message})`) };
    }
    const check = checkSealedJson(parsed, (value) => stringifyJson(value));
    if (check.state === 'mismatch' || check.state === 'malformed')
      return { damaged: new DamagedFileError(filePath, describeSealCheck(check)) };
    // Configuration numbers come back as numbers; collection metadata is user data and stays exact.
    const persisted = integersToNumbers(parsed, (key) => key === 'metadata') as PersistedCatalog;
    if (persisted.version !== CATALOG_FORMAT_VERSION) {
      throw new Error(`${filePath}: unsupported catalog format version ${String(persisted.version)}`);
    }
    if (!Array.isArray(persisted.collections) || !Array.isArray(persisted.aliases))
      return { damaged: new DamagedFileError(filePath, 'not a catalog: collections or aliases is not a list') };
    return { state: fromPersisted(persisted), sealed: check.state === 'valid' };
  }
}

/** The catalog as written: indented JSON with a checksum of its content as the last field. */
function catalogText(state: CatalogState): string {
  return stringifyJson(
    sealJson(toPersisted(state), (value) => stringifyJson(value)),
    2,
  );
}
