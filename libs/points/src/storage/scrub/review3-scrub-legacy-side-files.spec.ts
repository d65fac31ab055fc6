import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { deserialize, serialize } from 'node:v8';
import { createRequest, gen0, openDb, optimize, quietLogs } from '../../testing/storage-walk-fixtures';
import { ScrubService } from './scrub.service';

/*
 * Review of 1f9d446 (the scrub's reopen first writes the segments again from memory). A body written again lists
 * its segment's vector and payload files by the checksums the body itself holds (`sideFiles`), not by those the
 * manifest recorded: a segment written before checksums has none in its body.
 */

quietLogs();

let root: string;
beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'review3-legacy-'));
});
afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

interface ManifestJson {
  checksum?: string;
  segments: Array<{ id: string; body: string; files?: Array<{ file: string }> }>;
}

const manifestOf = (shardDir: string): ManifestJson =>
  JSON.parse(fs.readFileSync(path.join(shardDir, 'manifest.json'), 'utf8')) as ManifestJson;

/**
 * Shard 0 of an on-disk collection `c` with a built segment (`.vec`, `.pay`) as a server from before checksums
 * left it: no checksums in the manifest (unsealed) nor in the segment bodies. Returns the shard folder.
 */
async function legacyOnDiskShard(dir: string): Promise<string> {
  const db = await openDb(dir);
  let shardDir: string;
  try {
    await db.collections.create(createRequest('c', true));
    await db.upsert('c', gen0);
    await optimize(db);
    await db.flush('c');
    shardDir = db.storage.storageOf(db.catalog.require('c')).shardDir(0);
  } finally {
    await db.close();
  }
  const manifest = manifestOf(shardDir);
  delete manifest.checksum;
  for (const segment of manifest.segments) {
    delete segment.files;
    const bodyPath = path.join(shardDir, 'segments', segment.body);
    const body = deserialize(fs.readFileSync(bodyPath)) as { sideFiles?: unknown };
    delete body.sideFiles;
    fs.writeFileSync(bodyPath, serialize(body));
  }
  fs.writeFileSync(path.join(shardDir, 'manifest.json'), JSON.stringify(manifest, null, 2));
  return shardDir;
}

const vecFileOf = (shardDir: string): string => {
  const name = fs.readdirSync(path.join(shardDir, 'segments')).find((file) => file.endsWith('.vec'));
  if (name === undefined) throw new Error('no vector file: the build kept nothing on disk');
  return name;
};

const listed = (shardDir: string, file: string): boolean =>
  manifestOf(shardDir).segments.some((segment) => segment.files?.some((checksum) => checksum.file === file));

describe('review3: the scrub on a segment written before checksums', () => {
  it('control: the start records the checksums of its vector file, and the scrub finds that file damaged', async () => {
    const shardDir = await legacyOnDiskShard(root);
    const vec = vecFileOf(shardDir);
    const db = await openDb(root);
    try {
      await db.flush('c'); // the upgrade: the next manifest records every file's checksum
      expect(listed(shardDir, vec)).toBe(true);
      const file = path.join(shardDir, 'segments', vec);
      const bytes = fs.readFileSync(file);
      bytes[bytes.length >> 1] ^= 0xff;
      fs.writeFileSync(file, bytes);

      const pass = await new ScrubService(db.storage).runPass();

      expect(pass.damaged).toHaveLength(1);
      expect(pass.damaged[0].message).toContain(vec);
    } finally {
      await db.close();
    }
  });

  // Review finding, fixed (1f9d446): reopenDamagedShard writes every body again first (LocalShard.rewriteFromMemory); the flush
  // lists a rewritten body's segment files as [body, ...segment.sideFiles], and a body written before checksums has
  // no sideFiles. The manifest then drops the checksum of the damaged `.vec` (and `.pay`): the check after the
  // rewrite no longer sees the file, the outcome is 'rewritten', the damaged vectors keep being read from disk, no
  // later pass checks them, and the next start takes the damaged file as it is (a new checksum). Fix: carry the
  // side-file checksums the manifest recorded (ShardManifest.recordedFiles) into a rewritten body's entry, not only
  // segment.sideFiles.
  it('keeps the damaged vector file checked after writing the bodies again', async () => {
    const shardDir = await legacyOnDiskShard(root);
    const vec = vecFileOf(shardDir);
    const db = await openDb(root);
    try {
      await db.flush('c');
      const file = path.join(shardDir, 'segments', vec);
      const bytes = fs.readFileSync(file);
      bytes[bytes.length >> 1] ^= 0xff;
      fs.writeFileSync(file, bytes);

      const pass = await new ScrubService(db.storage).runPass();

      // Fixed: such a segment is not written again from memory; the shard is reopened (here rebuilt from its log,
      // the damaged file gone with the old segment) or the file stays listed, to be found again.
      expect(listed(shardDir, vec) || !fs.existsSync(file)).toBe(true);
      expect(pass.damaged.map((d) => d.outcome)).not.toEqual(['rewritten']);
    } finally {
      await db.close();
    }
  });
});
