import { insufficientStorageOf } from '@vectorstore/common';
import { FileOp, FullDiskWalkOperation, walkFullDiskPoints } from '@vectorstore/persistence';
import { doneSteps, STATES, summary, USER_STEPS, userChange } from '../testing/user-walk-fixtures';
import { FileUserStore } from './user.store';

/*
 * Full disk at every step (issue 28, item 2) of a user change: the three changes of the crash walk
 * (../testing/user-walk-fixtures.ts), with file operation N and every later one failing with ENOSPC, for each N. A
 * change must be done or refused as a full disk (507); the store, still full, must list exactly the acknowledged
 * changes; once space is freed the same store makes the rest; and a fresh store loads them all. (The walker:
 * libs/persistence/src/crash-walk.ts; the storage's walk: libs/points/src/storage/full-disk-at-every-step.spec.ts.)
 */
const STRIDE = Math.max(1, Number(process.env.FULL_DISK_WALK_STRIDE ?? process.env.CRASH_WALK_STRIDE ?? 1));

const userChangeOnFullDisk: FullDiskWalkOperation<FileUserStore> = {
  ...userChange,
  checkLive: async (store, acked) => {
    const found = summary(await store.list());
    const expected = STATES[doneSteps(acked)];
    if (JSON.stringify(found) !== JSON.stringify(expected))
      throw new Error(`the store lists ${JSON.stringify(found)}; acknowledged: ${JSON.stringify(expected)}`);
  },
  resume: async (store, acked) => {
    for (const [label, change] of USER_STEPS) {
      if (acked.has(label)) continue;
      await store.update(change);
      acked.add(label);
    }
  },
};

/**
 * Known defect (walked apart, as `it.failing`; delete this and walk every point once fixed): the full disk refuses
 * the fsync of the auth folder after users.json was renamed into place. `writeFileAtomic` throws, so the change is
 * answered 507, but users.json already holds it and the store serves it (it reads the file back): a refused change
 * is visible, and made again when the client retries (bob added twice, his token version bumped twice). Whether
 * the change then counts as made (not durable until the next fsync) or must be put back is a decision for
 * writeFileAtomic's callers (libs/auth users, and the catalog, which keeps the old state in memory but finds the
 * refused change on disk at the next start).
 */
const afterTheRename = (op: FileOp, trace: readonly FileOp[]) =>
  op.kind === 'fsync' && trace[op.n - 2]?.kind === 'rename' && trace[op.n - 2].to?.endsWith('/users.json') === true;

describe('full disk at every step: user change (issue 28, item 2)', () => {
  const walk = (select: (op: FileOp, trace: readonly FileOp[]) => boolean, note = '') =>
    walkFullDiskPoints(userChangeOnFullDisk, {
      stride: STRIDE,
      isFullDisk: (error) => insufficientStorageOf(error) !== undefined,
      select,
    }).then((result) => {
      process.stdout.write(
        `full disk at every step:\n  ${result.name.padEnd(26)} ${String(result.points).padStart(4)} injection ` +
          `points, ${result.walked} walked, ${result.refused} refused${note}\n`,
      );
      return result;
    });

  it('should refuse a change as a full disk or make it, list only acknowledged changes, and go on once space is freed', async () => {
    const result = await walk((op, trace) => !afterTheRename(op, trace));
    expect(result.points).toBeGreaterThan(0);
    expect(result.failures).toEqual([]);
  }, 300_000);

  it.failing(
    'known defect: a change refused at the fsync after its rename is visible',
    async () => {
      const result = await walk(afterTheRename, ' (the points of a known defect)');
      expect(result.walked).toBeGreaterThan(0);
      expect(result.failures).toEqual([]);
    },
    300_000,
  );
});
