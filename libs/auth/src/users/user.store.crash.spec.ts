import { walkCrashPoints } from '@vectorstore/persistence';
import { userChange } from '../testing/user-walk-fixtures';

/*
 * Crash at every step (issue 28, item 1) of a user change: three changes of users.json and its copy
 * (../testing/user-walk-fixtures.ts), crashed at each durable file operation in turn; a fresh store on the folder as
 * the crash left it must load, hold every acknowledged change, and hold each unacknowledged one whole or not at all.
 * (The points storage's walk and the walker itself: libs/points/src/storage/crash-at-every-step.spec.ts,
 * libs/persistence/src/crash-walk.ts.)
 */
const STRIDE = Math.max(1, Number(process.env.CRASH_WALK_STRIDE ?? 1));

describe('crash at every step: user change (issue 28, item 1)', () => {
  // as a kill -9 leaves the files (the write it died in torn), and as a power cut does (what was not fsynced lost)
  it.each([
    { mode: 'kill -9', powerCut: false },
    { mode: 'power cut', powerCut: true },
  ])(
    '$mode: should load after a crash at any file operation with every acknowledged change and no half change',
    async ({ mode, powerCut }) => {
      const result = await walkCrashPoints(userChange, { stride: STRIDE, powerCut });
      process.stdout.write(
        `crash at every step:\n  ${result.name.padEnd(24)} ${mode.padEnd(10)} ${String(result.points).padStart(4)} ` +
          `injection points, ${result.walked} walked\n`,
      );
      expect(result.points).toBeGreaterThan(0);
      expect(result.failures).toEqual([]);
    },
    300_000,
  );
});
