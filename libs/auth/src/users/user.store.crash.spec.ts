import { CrashWalkOperation, walkCrashPoints } from '@vectorstore/persistence';
import { readdirSync } from 'node:fs';
import * as path from 'node:path';
import { UserRecord } from './user.model';
import { FileUserStore } from './user.store';

/*
 * Crash at every step (issue 28, item 1) of a user change: three changes of users.json (and its copy), crashed at
 * each durable file operation in turn; a fresh store on the folder as the crash left it must load, hold every
 * acknowledged change, and hold each unacknowledged one whole or not at all. (The points storage's walk and the
 * walker itself: libs/points/src/storage/crash-at-every-step.spec.ts, libs/persistence/src/crash-walk.ts.)
 */
const STRIDE = Math.max(1, Number(process.env.CRASH_WALK_STRIDE ?? 1));

const user = (email: string, role: UserRecord['role'] = 'reader'): UserRecord => ({
  id: `id-${email}`,
  email,
  fullName: null,
  role,
  isActive: true,
  passwordHash: '$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA',
  tokenVersion: 0,
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
});

/** users as "email:role", sorted. */
const summary = (users: UserRecord[]) => users.map((u) => `${u.email}:${u.role}:${u.tokenVersion}`).sort();

// The states the file goes through, in order: a crash may leave any one from the last acknowledged on.
const STATES = [
  ['admin@x:admin:0'],
  ['admin@x:admin:0', 'bob@x:reader:0'],
  ['admin@x:admin:0', 'bob@x:admin:1'],
  ['bob@x:admin:1'],
];
const STEPS = ['add bob', 'promote bob', 'remove admin'];

const userChange: CrashWalkOperation<FileUserStore> = {
  name: 'user change',
  prepare: async (dir) => {
    const store = new FileUserStore(dir);
    await store.load();
    await store.update((users) => void users.push(user('admin@x', 'admin')));
  },
  open: async (dir) => {
    const store = new FileUserStore(dir);
    await store.load();
    return store;
  },
  close: async () => undefined,
  run: async (store, acked) => {
    await store.update((users) => void users.push(user('bob@x')));
    acked.add(STEPS[0]);
    await store.update((users) => {
      const bob = users.find((u) => u.email === 'bob@x')!;
      bob.role = 'admin';
      bob.tokenVersion++;
    });
    acked.add(STEPS[1]);
    await store.update(
      (users) =>
        void users.splice(
          users.findIndex((u) => u.email === 'admin@x'),
          1,
        ),
    );
    acked.add(STEPS[2]);
  },
  check: async (dir, acked) => {
    const warnings: string[] = [];
    const store = new FileUserStore(dir, (message) => warnings.push(message));
    await store.load();
    const done = STEPS.filter((step) => acked.has(step)).length;
    const found = summary(await store.list());
    if (!STATES.slice(done).some((state) => JSON.stringify(state) === JSON.stringify(found)))
      throw new Error(`users ${JSON.stringify(found)} after ${done} acknowledged changes`);
    const left = readdirSync(path.join(dir, 'auth')).filter((name) => name.endsWith('.tmp'));
    if (left.length > 0) throw new Error(`left after the start: ${left.join(', ')}`);
    // the next change and start work
    await store.update((users) => void users.push(user('carol@x')));
    const again = new FileUserStore(dir);
    await again.load();
    if (!(await again.findByEmail('carol@x'))) throw new Error('the change after the restart is gone');
  },
};

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
