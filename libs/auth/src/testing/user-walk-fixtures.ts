import { CrashWalkOperation } from '@vectorstore/persistence';
import { readdirSync } from 'node:fs';
import * as path from 'node:path';
import { UserRecord } from '../users/user.model';
import { FileUserStore } from '../users/user.store';

/*
 * The user change the crash walk (users/user.store.crash.spec.ts) and the full-disk walk
 * (users/user.store.full-disk.spec.ts) run: three changes of users.json (and its copy), with the states the file
 * goes through.
 */

export const user = (email: string, role: UserRecord['role'] = 'reader'): UserRecord => ({
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

/** users as "email:role:tokenVersion", sorted. */
export const summary = (users: UserRecord[]) => users.map((u) => `${u.email}:${u.role}:${u.tokenVersion}`).sort();

// The states the file goes through, in order: a crash may leave any one from the last acknowledged on.
export const STATES = [
  ['admin@x:admin:0'],
  ['admin@x:admin:0', 'bob@x:reader:0'],
  ['admin@x:admin:0', 'bob@x:admin:1'],
  ['bob@x:admin:1'],
];

/** The three changes, in order, by the label each is acknowledged under. */
export const USER_STEPS: Array<[string, (users: UserRecord[]) => void]> = [
  ['add bob', (users) => void users.push(user('bob@x'))],
  [
    'promote bob',
    (users) => {
      const bob = users.find((u) => u.email === 'bob@x')!;
      bob.role = 'admin';
      bob.tokenVersion++;
    },
  ],
  [
    'remove admin',
    (users) =>
      void users.splice(
        users.findIndex((u) => u.email === 'admin@x'),
        1,
      ),
  ],
];

/** How many of the steps are acknowledged (they are made in order, so a prefix). */
export const doneSteps = (acked: ReadonlySet<string>) => USER_STEPS.filter(([label]) => acked.has(label)).length;

export const userChange: CrashWalkOperation<FileUserStore> = {
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
    for (const [label, change] of USER_STEPS) {
      await store.update(change);
      acked.add(label);
    }
  },
  check: async (dir, acked) => {
    const warnings: string[] = [];
    const store = new FileUserStore(dir, (message) => warnings.push(message));
    await store.load();
    const done = doneSteps(acked);
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
