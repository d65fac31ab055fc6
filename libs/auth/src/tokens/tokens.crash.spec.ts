import { CrashWalkOperation, walkCrashPoints } from '@vectorstore/persistence';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { FileRefreshRecords } from './file-refresh-records';
import { loadOrCreateJwtSecret } from './jwt-secret';
import { FamilyRecord, TokenRecord } from './refresh-records';

/*
 * Crash at every step (issue 28, item 1) of the token files: the JWT secret made at a first start, the secret of the
 * previous version's file rewritten with its checksum, and three commits of refresh sessions, each crashed at every
 * durable file operation in turn (as kill -9 and as a power cut leave the files). A start on the folder as the
 * crash left it must read the old or the new content, never a damaged one: no warning, no temporary file left.
 * (The walker: libs/persistence/src/crash-walk.ts.)
 */
const STRIDE = Math.max(1, Number(process.env.CRASH_WALK_STRIDE ?? 1));
const MODES = [
  { mode: 'kill -9', powerCut: false },
  { mode: 'power cut', powerCut: true },
];
const SECRET_PREFIX = 'secret ';

/** Loads the secret (the folder's only files under auth/), failing on any warning: a crash must not damage it. */
async function loadSecret(dir: string): Promise<string> {
  const warnings: string[] = [];
  const secret = await loadOrCreateJwtSecret(dir, undefined, { onWarning: (message) => warnings.push(message) });
  if (warnings.length > 0) throw new Error(`warned: ${warnings.join('; ')}`);
  return secret;
}

function noTemporaryFiles(dir: string): void {
  const left = readdirSync(path.join(dir, 'auth')).filter((name) => name.endsWith('.tmp'));
  if (left.length > 0) throw new Error(`left after the start: ${left.join(', ')}`);
}

/** A secret load; `prepare` decides what is on disk before it. Acknowledged: the secret it returned. */
function secretOperation(name: string, prepare: (dir: string) => Promise<void>): CrashWalkOperation<string> {
  return {
    name,
    prepare,
    open: async (dir) => dir,
    close: async () => undefined,
    run: async (dir, acked) => {
      acked.add(`${SECRET_PREFIX}${await loadOrCreateJwtSecret(dir)}`);
    },
    check: async (dir, acked) => {
      const secret = await loadSecret(dir);
      const given = [...acked].find((label) => label.startsWith(SECRET_PREFIX))?.slice(SECRET_PREFIX.length);
      if (given !== undefined && secret !== given) throw new Error('the secret handed out is not the one kept');
      noTemporaryFiles(dir);
      if ((await loadSecret(dir)) !== secret) throw new Error('the secret changed at the next start');
    },
  };
}

const PREVIOUS_VERSION_SECRET = 'p'.repeat(86);
const firstStart = secretOperation('jwt secret: first start', async (dir) => {
  mkdirSync(dir, { recursive: true });
});
const reseal = secretOperation('jwt secret: add checksum', async (dir) => {
  mkdirSync(path.join(dir, 'auth'), { recursive: true, mode: 0o700 });
  writeFileSync(path.join(dir, 'auth', 'jwt-secret'), `${PREVIOUS_VERSION_SECRET}\n`, { mode: 0o600 });
});

const FAR = 4_000_000_000_000;
const family = (userId: string): FamilyRecord => ({ userId, tokenVersion: 0, createdAt: 1 });
const token = (familyId: string): TokenRecord => ({ familyId, expiresAt: FAR });
const STEPS = ['sign in', 'rotate', 'sign out'];
/** What the records hold after each step, as "token:family" (sorted): a crash may leave any from the last acked on. */
const STATES = [['t0:f0'], ['t0:f0', 't1:f1'], ['t0:f0', 't2:f1'], ['t2:f1']];

const refreshCommits: CrashWalkOperation<FileRefreshRecords> = {
  name: 'refresh sessions: commits',
  prepare: async (dir) => {
    const records = new FileRefreshRecords(dir);
    await records.load();
    await records.commit([
      { kind: 'family', id: 'f0', value: family('u0') },
      { kind: 'token', hash: 't0', value: token('f0') },
    ]);
  },
  open: async (dir) => {
    const records = new FileRefreshRecords(dir);
    await records.load();
    return records;
  },
  close: async () => undefined,
  run: async (records, acked) => {
    await records.commit([
      { kind: 'family', id: 'f1', value: family('u1'), expect: 'absent' },
      { kind: 'token', hash: 't1', value: token('f1'), expect: 'absent' },
    ]);
    acked.add(STEPS[0]);
    await records.commit([
      { kind: 'token', hash: 't1', value: null },
      { kind: 'token', hash: 't2', value: token('f1'), expect: 'absent' },
    ]);
    acked.add(STEPS[1]);
    await records.commit([
      { kind: 'token', hash: 't0', value: null },
      { kind: 'family', id: 'f0', value: null },
    ]);
    acked.add(STEPS[2]);
  },
  check: async (dir, acked) => {
    const warnings: string[] = [];
    const records = new FileRefreshRecords(dir, { onWarning: (message) => warnings.push(message) });
    await records.load();
    if (warnings.length > 0) throw new Error(`warned: ${warnings.join('; ')}`);
    const found: string[] = [];
    for (const hash of ['t0', 't1', 't2']) {
      const record = await records.token(hash);
      if (record !== undefined) found.push(`${hash}:${record.value.familyId}`);
    }
    const done = STEPS.filter((step) => acked.has(step)).length;
    if (!STATES.slice(done).some((state) => JSON.stringify(state) === JSON.stringify(found)))
      throw new Error(`sessions ${JSON.stringify(found)} after ${done} acknowledged commits`);
    noTemporaryFiles(dir);
    // the next commit and start work
    await records.commit([
      { kind: 'family', id: 'f3', value: family('u3') },
      { kind: 'token', hash: 't3', value: token('f3') },
    ]);
    const again = new FileRefreshRecords(dir);
    await again.load();
    if ((await again.token('t3')) === undefined) throw new Error('the commit after the restart is gone');
  },
};

describe('crash at every step: token files (issue 28, item 1)', () => {
  const cases = [firstStart, reseal, refreshCommits].flatMap((operation) =>
    MODES.map((mode) => ({ operation, name: operation.name, ...mode })),
  );
  it.each(cases)(
    '$name, $mode: should start with the old or the new content after a crash at any file operation',
    async ({ operation, mode, powerCut }) => {
      const result = await walkCrashPoints<unknown>(operation as CrashWalkOperation<unknown>, {
        stride: STRIDE,
        powerCut,
      });
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
