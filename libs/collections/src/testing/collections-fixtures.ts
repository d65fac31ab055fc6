// Shared setup for the libs/collections specs: temporary data folders, a catalog and services over them,
// default requests, and catching DomainErrors. Test-only: tsconfig.build.json excludes libs/**/testing.
import { DomainError } from '@vectorstore/common';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { CollectionCatalog } from '../catalog/collection-catalog';
import { FileCatalogStore } from '../catalog/file-catalog.store';
import { CollectionsService } from '../collections.service';
import { CreateCollectionRequest } from '../model/requests.model';
import { VectorParams } from '../model/vectors.model';
import { EmptyCollectionStatsProvider } from '../stats/collection-stats.provider';

/** A fresh empty folder under the OS temp folder, named `<prefix>XXXXXX`. */
export function makeTempDir(prefix: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

export function removeTempDir(dir: string): void {
  fs.rmSync(dir, { recursive: true, force: true });
}

/** A catalog over `<dir>/catalog.json`, loaded (as after a restart when the file exists). */
export async function openCatalog(dir: string): Promise<CollectionCatalog> {
  const catalog = new CollectionCatalog(new FileCatalogStore(dir));
  await catalog.load();
  return catalog;
}

/** A CollectionsService over `catalog`, with no points behind it. */
export function collectionsServiceOver(catalog: CollectionCatalog): CollectionsService {
  return new CollectionsService(catalog, new EmptyCollectionStatsProvider());
}

export interface CollectionsFixture {
  readonly dir: string;
  readonly catalog: CollectionCatalog;
  readonly collections: CollectionsService;
}

/** A new temporary folder with a loaded catalog and a CollectionsService; remove it with removeTempDir(dir). */
export async function collectionsFixture(prefix: string): Promise<CollectionsFixture> {
  const dir = makeTempDir(prefix);
  const catalog = await openCatalog(dir);
  return { dir, catalog, collections: collectionsServiceOver(catalog) };
}

/** Dense vector params: size 4, Cosine, with overrides. */
export const dense = (params: Partial<VectorParams> = {}): VectorParams => ({ size: 4, distance: 'Cosine', ...params });

/** A create request for `name` with one unnamed dense vector (size 4, Cosine), plus `extra`. */
export const withVectors = (name: string, extra: Partial<CreateCollectionRequest> = {}): CreateCollectionRequest => ({
  name,
  vectors: { params: dense() },
  ...extra,
});

/** The DomainError `run` throws, or undefined when it returns; any other error is rethrown. */
export function thrownDomainError(run: () => unknown): DomainError | undefined {
  try {
    run();
  } catch (error) {
    if (error instanceof DomainError) return error;
    throw error;
  }
  return undefined;
}

/** The DomainError `run` throws; fails when it returns, rethrows any other error. */
export function domainErrorOf(run: () => unknown): DomainError {
  const error = thrownDomainError(run);
  if (error === undefined) throw new Error('expected a DomainError');
  return error;
}

/** The DomainError `promise` rejects with; fails when it resolves, rethrows any other error. */
export async function rejectionOf(promise: Promise<unknown>): Promise<DomainError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof DomainError) return error;
    throw error;
  }
  throw new Error('expected a DomainError');
}
