// For specs: a QueryEngine over fresh points storage in a temporary folder.
import {
  CollectionCatalog,
  CollectionsService,
  EmptyCollectionStatsProvider,
  FileCatalogStore,
} from '@vectorstore/collections';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { PointsStorage } from '../storage/points-storage';
import { WriteAheadLog } from '../wal/write-ahead-log';
import { CollectionContexts } from './collection-context';
import { PointsReader } from './points-reader';
import { QueryEngine } from './query-engine';

export interface QueryEngineFixture {
  contexts: CollectionContexts;
  engine: QueryEngine;
  collections: CollectionsService;
  /** Shuts the storage down and removes the folder. */
  close(): Promise<void>;
}

export async function openQueryEngine(prefix: string): Promise<QueryEngineFixture> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  const catalog = new CollectionCatalog(new FileCatalogStore(dir));
  await catalog.load();
  const storage = new PointsStorage(catalog, dir, (options) => WriteAheadLog.open(options), '1');
  await storage.onModuleInit();
  const contexts = new CollectionContexts(catalog, storage);
  return {
    contexts,
    engine: new QueryEngine(contexts, new PointsReader(contexts)),
    collections: new CollectionsService(catalog, new EmptyCollectionStatsProvider()),
    close: async () => {
      await storage.onApplicationShutdown();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
