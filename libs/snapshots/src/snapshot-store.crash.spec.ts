import { CrashWalkOperation, walkCrashPoints } from '@vectorstore/persistence';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { readSnapshot } from './snapshot-reader';
import { SnapshotStore, type SnapshotScope } from './snapshot-store';
import { writeSnapshot } from './snapshot-writer';
import { listTree, makeTempDir, removeTempDir } from './testing/snapshot-fixtures';

/*
 * Crash at every step (issue 28, item 1) of a snapshot archive's writes: a collection snapshot created (name
 * reserved, archive streamed to `<name>.tmp`, fsynced, linked to its name, its `.sha256` written) and an older one
 * deleted, crashed at each durable file operation in turn, as kill -9 and as a power cut leave the files. The next
 * start (SnapshotStore.removeLeftovers) must leave only whole archives: each listed snapshot reads back and
 * verifies, an acknowledged one is there with its checksum, a deleted one is gone, and no temporary or orphan file
 * stays. (Restores have their own walk; the walker: libs/persistence/src/crash-walk.ts.)
 */
const STRIDE = Math.max(1, Number(process.env.CRASH_WALK_STRIDE ?? 1));
const PEER = '3766212330831337';
const SCOPE: SnapshotScope = { kind: 'collection', collection: 'c' };
const OLD_AT = new Date('2026-01-01T00:00:00.000Z');
const NEW_AT = new Date('2026-01-01T01:00:00.000Z');

const storeOf = (dir: string, at = NEW_AT) =>
  new SnapshotStore(path.join(dir, 'snapshots'), { peerId: PEER, now: () => at });

async function createSnapshot(store: SnapshotStore, dir: string): Promise<string> {
  const reservation = await store.reserveName(SCOPE);
  try {
    await writeSnapshot({
      dir: reservation.dir,
      name: reservation.name,
      kind: 'collection',
      peerId: PEER,
      collections: ['c'],
      directories: [{ root: path.join(dir, 'source'), prefix: 'collection' }],
    });
  } finally {
    await reservation.release();
  }
  return reservation.name;
}

let oldName = '';

const snapshotWrites: CrashWalkOperation<SnapshotStore> = {
  name: 'snapshot create + delete',
  prepare: async (dir) => {
    const source = path.join(dir, 'source', 'segments');
    fs.mkdirSync(source, { recursive: true });
    // over one 1 MiB write buffer, so the archive takes more than one write
    fs.writeFileSync(path.join(source, 'vectors.bin'), Buffer.alloc(1536 * 1024, 7));
    fs.writeFileSync(path.join(dir, 'source', 'manifest.json'), '{"segments": ["segments"]}');
    oldName = await createSnapshot(storeOf(dir, OLD_AT), dir);
  },
  open: async (dir) => storeOf(dir),
  close: async () => undefined,
  run: async (store, acked) => {
    acked.add(`created ${await createSnapshot(store, path.dirname(store.root))}`);
    await store.delete(SCOPE, oldName);
    acked.add('deleted');
  },
  check: async (dir, acked) => {
    const store = storeOf(dir);
    await store.removeLeftovers();
    const listed = await store.list(SCOPE);
    const work = makeTempDir('vs-snap-crash-read-');
    try {
      for (const snapshot of listed) {
        const archive = path.join(store.dirOf(SCOPE), snapshot.name);
        const extracted = await readSnapshot(archive, {
          extractParent: work,
          maxTotalBytes: 1 << 30,
          requireChecksum: false,
        });
        if (extracted.manifest.files.length !== 2)
          throw new Error(`${snapshot.name} holds ${extracted.manifest.files.length} files`);
      }
    } catch (error) {
      throw new Error(`a listed snapshot does not read back: ${(error as Error).message}`);
    } finally {
      removeTempDir(work);
    }
    const created = [...acked].find((label) => label.startsWith('created '))?.slice('created '.length);
    if (created !== undefined && listed.find((s) => s.name === created)?.checksum === undefined)
      throw new Error(`the acknowledged snapshot ${created} is not listed with its checksum`);
    if (acked.has('deleted') && listed.some((s) => s.name === oldName)) throw new Error('the deleted snapshot is back');
    if (!acked.has('deleted') && created === undefined && !listed.some((s) => s.name === oldName))
      throw new Error('the old snapshot went before its delete began');
    const left = listTree(path.join(dir, 'snapshots')).filter(
      (entry) =>
        entry.endsWith('.tmp') ||
        (entry.endsWith('.sha256') && !listed.some((s) => entry.endsWith(`${s.name}.sha256`))),
    );
    if (left.length > 0) throw new Error(`left after the start: ${left.join(', ')}`);
  },
};

describe('crash at every step: snapshot archive writes (issue 28, item 1)', () => {
  it.each([
    { mode: 'kill -9', powerCut: false },
    { mode: 'power cut', powerCut: true },
  ])(
    '$mode: should keep only whole archives after a crash at any file operation',
    async ({ mode, powerCut }) => {
      const result = await walkCrashPoints(snapshotWrites, { stride: STRIDE, powerCut });
      process.stdout.write(
        `crash at every step:\n  ${result.name.padEnd(28)} ${mode.padEnd(10)} ${String(result.points).padStart(4)} ` +
          `injection points, ${result.walked} walked\n`,
      );
      expect(result.points).toBeGreaterThan(0);
      expect(result.failures).toEqual([]);
    },
    120_000,
  );
});
