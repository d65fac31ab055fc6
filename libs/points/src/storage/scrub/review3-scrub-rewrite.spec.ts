import { FULL_DISK_OP_KINDS, injectFaults, stopFaultInjection } from '@vectorstore/persistence';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createRequest, gen0, openDb, quietLogs } from '../../testing/storage-walk-fixtures';
import { ScrubService } from './scrub.service';

/*
 * Review of 1f9d446 (the scrub's reopen first writes the segments again from memory). The rewrite is a flush of
 * every segment body: it writes, so it can fail (a full disk), and nothing around it catches that.
 */

quietLogs();

let root: string;
beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'review3-scrub-'));
});
afterEach(() => {
  stopFaultInjection();
  fs.rmSync(root, { recursive: true, force: true });
});

/** Flips one byte in the middle of the first segment body of `shardDir`. */
function damageABody(shardDir: string): void {
  const segments = path.join(shardDir, 'segments');
  const body = fs.readdirSync(segments).find((name) => name.endsWith('.seg'));
  if (body === undefined) throw new Error('no segment body');
  const file = path.join(segments, body);
  const bytes = fs.readFileSync(file);
  bytes[bytes.length >> 1] ^= 0xff;
  fs.writeFileSync(file, bytes);
}

describe('review3: the scrub writing a damaged shard again from memory', () => {
  it('control: a damaged body is written again from memory, and the pass goes on to the next collection', async () => {
    const db = await openDb(root);
    try {
      for (const name of ['a', 'b']) {
        await db.collections.create(createRequest(name));
        await db.upsert(name, gen0);
        await db.flush(name);
      }
      damageABody(db.storage.storageOf(db.catalog.require('a')).shardDir(0));
      const pass = await new ScrubService(db.storage).runPass();
      expect(pass.shards).toBe(2);
      expect(pass.damaged.map((d) => d.outcome)).toEqual(['rewritten']);
    } finally {
      await db.close();
    }
  });

  // Review finding, fixed (1f9d446): CollectionStorage.reopenDamagedShard calls LocalShard.rewriteFromMemory (a flush of every
  // body) outside any try, and ScrubService.pass does not catch what reopenDamagedShard throws. When the rewrite
  // fails (here the disk is full under the damaged shard), the whole pass rejects: the other collections are not
  // scrubbed, nothing is recorded for the damaged shard, and it is neither reopened nor refused (a damaged .vec/.pay
  // keeps being read from disk). Fix: on a failed rewrite, fall through to the close-and-reopen path (a full disk
  // there refuses the collection with a 507, which loadAgainAfterFullDisk retries), and have the pass catch a
  // shard's reopen error as it catches its read error.
  it('goes on with the pass when the rewrite from memory fails for want of space', async () => {
    const db = await openDb(root);
    try {
      for (const name of ['a', 'b']) {
        await db.collections.create(createRequest(name));
        await db.upsert(name, gen0);
        await db.flush(name);
      }
      const shardDir = db.storage.storageOf(db.catalog.require('a')).shardDir(0);
      damageABody(shardDir);
      injectFaults({
        root: shardDir,
        at: 1,
        action: 'fail',
        code: 'ENOSPC',
        times: Infinity,
        kinds: FULL_DISK_OP_KINDS,
      });
      const pass = await new ScrubService(db.storage).runPass();
      expect(pass.shards).toBe(2);
      expect(pass.damaged).toHaveLength(1);
    } finally {
      stopFaultInjection();
      await db.close();
    }
  });
});
