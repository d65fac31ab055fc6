import { DomainError, ErrorKind } from '@vectorstore/common';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createRequest, openDb, quietLogs } from '../testing/storage-walk-fixtures';
import { LocalShard } from '../storage/local-shard';
import { CollectionContexts } from './collection-context';

/*
 * Review of 99315ae (a standalone collection answers 503 while its shards are still opening): checked sound; this
 * pins the behaviour the commit added without a spec.
 */

quietLogs();

let root: string;
beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'review3-opening-'));
});
afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

function refusalOf(run: () => unknown): unknown {
  try {
    run();
    return undefined;
  } catch (error) {
    return error;
  }
}

describe('review3: a collection whose shards are still opening', () => {
  it('is refused as unavailable (retry) until every shard is open, then served', async () => {
    const db = await openDb(root);
    const contexts = new CollectionContexts(db.catalog, db.storage);
    const open = LocalShard.open.bind(LocalShard);
    const opens = jest.spyOn(LocalShard, 'open').mockImplementation(async (options) => {
      await new Promise((resolve) => setTimeout(resolve, 100)); // shards that take a while to open
      return open(options);
    });
    try {
      const created = db.collections.create({ ...createRequest('c'), shardNumber: 3 });
      const seen: unknown[] = [];
      while (seen.length < 100) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        if (db.catalog.resolve('c') === undefined) continue;
        const refusal = refusalOf(() => contexts.resolve('c'));
        seen.push(refusal);
        if (refusal === undefined) break;
      }
      await created;

      const refusals = seen.filter((r) => r !== undefined);
      expect(refusals.length).toBeGreaterThan(0);
      for (const refusal of refusals) {
        expect(refusal).toBeInstanceOf(DomainError);
        expect((refusal as DomainError).kind).toBe(ErrorKind.Unavailable);
        expect((refusal as DomainError).message).toContain('is being opened; retry');
      }
      expect(contexts.resolve('c').storage.shards.size).toBe(3);
    } finally {
      opens.mockRestore();
      await db.close();
    }
  });
});
