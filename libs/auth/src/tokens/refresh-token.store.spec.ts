import { ErrorKind } from '@vectorstore/common';
import { promises as fs } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { REFRESH_REUSE_GRACE_MS, RefreshSession, RefreshTokenStore } from './refresh-token.store';

const session: RefreshSession = { userId: 'user-1', tokenVersion: 0 };
const accept = async (s: RefreshSession): Promise<RefreshSession> => s;
/** The answer is the successor itself, so a test sees which token a rotation handed out. */
const successor = (_: RefreshSession, next: string): string => next;
const unauthenticated = expect.objectContaining({ kind: ErrorKind.Unauthenticated });

describe(RefreshTokenStore.name, () => {
  let dataDir: string;
  let now: number;
  let store: RefreshTokenStore;

  beforeEach(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'refresh-store-'));
    now = 1_000_000;
    store = new RefreshTokenStore(dataDir, 60, { now: () => now });
    await store.load();
  });

  afterEach(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  describe('issue', () => {
    it('should return 256-bit opaque tokens and store only digests, owner-only', async () => {
      const token = await store.issue(session);
      expect(Buffer.from(token, 'base64url')).toHaveLength(32);
      const file = path.join(dataDir, 'auth', 'refresh-tokens.json');
      expect(await fs.readFile(file, 'utf8')).not.toContain(token);
      expect((await fs.stat(file)).mode & 0o777).toBe(0o600);
    });
  });

  describe('rotate', () => {
    it('should exchange a token for a new one exactly once', async () => {
      const first = await store.issue(session);
      const second = await store.rotate(first, accept, successor);
      expect(second).not.toBe(first);
      await expect(store.rotate(second, accept, successor)).resolves.toBeDefined();
    });

    it('should revoke the whole family when a used token is presented again after the reuse grace', async () => {
      const first = await store.issue(session);
      const second = await store.rotate(first, accept, successor);
      now += REFRESH_REUSE_GRACE_MS;
      await expect(store.rotate(first, accept, successor)).rejects.toEqual(unauthenticated);
      await expect(store.rotate(second, accept, successor)).rejects.toEqual(unauthenticated);
    });

    it('should hand a used token presented again within the grace the successor of its first use', async () => {
      const first = await store.issue(session);
      const second = await store.rotate(first, accept, successor);
      now += REFRESH_REUSE_GRACE_MS - 1;
      await expect(store.rotate(first, accept, successor)).resolves.toBe(second);
      // Still one chain: the successor rotates on as usual, and logging out with it ends the family.
      const third = await store.rotate(second, accept, successor);
      await store.revokeFamilyOf(third);
      await expect(store.rotate(first, accept, successor)).rejects.toEqual(unauthenticated);
    });

    it('should run the check again on a reuse within the grace, and revoke when it refuses', async () => {
      const first = await store.issue(session);
      const second = await store.rotate(first, accept, successor);
      const refuse = async (): Promise<RefreshSession> => {
        throw new Error('deactivated');
      };
      await expect(store.rotate(first, refuse, successor)).rejects.toThrow('deactivated');
      await expect(store.rotate(second, accept, successor)).rejects.toEqual(unauthenticated);
    });

    it('should not extend the grace by reuse: it counts from the first use', async () => {
      const first = await store.issue(session);
      await store.rotate(first, accept, successor);
      now += REFRESH_REUSE_GRACE_MS / 2;
      await store.rotate(first, accept, successor);
      now += REFRESH_REUSE_GRACE_MS / 2;
      await expect(store.rotate(first, accept, successor)).rejects.toEqual(unauthenticated);
    });

    it('should give concurrent rotations of one token a single successor (tabs restoring at once)', async () => {
      const token = await store.issue(session);
      let minted = 0;
      const count = (_: RefreshSession, next: string): string => {
        minted += 1;
        return next;
      };
      const results = await Promise.all(Array.from({ length: 10 }, () => store.rotate(token, accept, count)));
      expect(new Set(results).size).toBe(1);
      expect(minted).toBe(1);
    });

    it('should hand back the whole first answer, not only the token', async () => {
      const token = await store.issue(session);
      const pair = (_: RefreshSession, next: string) => ({ refresh: next, access: `access-${Math.random()}` });
      const first = await store.rotate(token, accept, pair);
      await expect(store.rotate(token, accept, pair)).resolves.toEqual(first);
    });

    it('should keep the sealed answer only during the grace, and never in the clear', async () => {
      const token = await store.issue(session);
      const next = await store.rotate(token, accept, successor);
      const file = path.join(dataDir, 'auth', 'refresh-tokens.json');
      const during = await fs.readFile(file, 'utf8');
      expect(during).not.toContain(next);
      expect(during).toContain('"successor"');
      now += REFRESH_REUSE_GRACE_MS;
      await store.issue(session); // any write drops what the grace no longer needs
      expect(await fs.readFile(file, 'utf8')).not.toContain('"successor"');
    });

    it('should give the same successor after a restart within the grace', async () => {
      const token = await store.issue(session);
      const next = await store.rotate(token, accept, successor);
      const reopened = new RefreshTokenStore(dataDir, 60, { now: () => now });
      await reopened.load();
      await expect(reopened.rotate(token, accept, successor)).resolves.toBe(next);
    });

    it('should refuse, without revoking, a reuse whose sealed answer does not open', async () => {
      const token = await store.issue(session);
      const next = await store.rotate(token, accept, successor);
      const file = path.join(dataDir, 'auth', 'refresh-tokens.json');
      const data = JSON.parse(await fs.readFile(file, 'utf8')) as {
        tokens: Record<string, { successor?: string }>;
        checksum?: string;
      };
      for (const record of Object.values(data.tokens)) {
        if (record.successor) record.successor = record.successor.replace(/^./, (c) => (c === 'A' ? 'B' : 'A'));
      }
      // Without its checksum the file is read as written (a changed file with one is dropped whole at load).
      delete data.checksum;
      await fs.writeFile(file, JSON.stringify(data));
      const reopened = new RefreshTokenStore(dataDir, 60, { now: () => now });
      await reopened.load();
      await expect(reopened.rotate(token, accept, successor)).rejects.toEqual(unauthenticated);
      await expect(reopened.rotate(next, accept, successor)).resolves.toBeDefined();
    });

    it('should hand a reuse the newest pair of the chain when its successor has been used too (tabs moving on)', async () => {
      const a = await store.issue(session);
      const b = await store.rotate(a, accept, successor); // tab 1: A -> B
      now += 1000;
      const c = await store.rotate(b, accept, successor); // tab 3, with B: B -> C
      now += 1000;
      await expect(store.rotate(a, accept, successor)).resolves.toBe(c); // tab 2's late request with A
      now += 30_000; // past every grace, within the 60 s lifetime
      await expect(store.rotate(c, accept, successor)).resolves.toBeDefined();
    });

    it('should drop a seal from the file once its grace is over, with no other write', async () => {
      const quick = new RefreshTokenStore(dataDir, 60, { reuseGraceMs: 50 });
      await quick.load();
      const token = await quick.issue(session);
      await quick.rotate(token, accept, successor);
      const file = path.join(dataDir, 'auth', 'refresh-tokens.json');
      expect(await fs.readFile(file, 'utf8')).toContain('"successor"');
      await new Promise((resolve) => setTimeout(resolve, 400));
      expect(await fs.readFile(file, 'utf8')).not.toContain('"successor"');
    });

    it('should drop seals past their grace, and malformed ones, when loading', async () => {
      const token = await store.issue(session);
      await store.rotate(token, accept, successor);
      const file = path.join(dataDir, 'auth', 'refresh-tokens.json');
      const data = JSON.parse(await fs.readFile(file, 'utf8')) as { tokens: Record<string, { successor?: unknown }> };
      const other = await store.issue(session);
      await store.rotate(other, accept, successor);
      const again = JSON.parse(await fs.readFile(file, 'utf8')) as { tokens: Record<string, { successor?: unknown }> };
      for (const record of Object.values(again.tokens)) if (record.successor) record.successor = 42;
      await fs.writeFile(file, JSON.stringify(again));
      const reopened = new RefreshTokenStore(dataDir, 60, { now: () => now });
      await reopened.load();
      // A malformed seal is a refusal (401), never a crash.
      await expect(reopened.rotate(other, accept, successor)).rejects.toEqual(unauthenticated);
      expect(Object.keys(data.tokens).length).toBeGreaterThan(0);
      now += REFRESH_REUSE_GRACE_MS;
      const later = new RefreshTokenStore(dataDir, 60, { now: () => now });
      await later.load();
      await later.issue(session);
      expect(await fs.readFile(file, 'utf8')).not.toContain('"successor"');
    });

    it('should leave the token unused when its rotation could not be written', async () => {
      const token = await store.issue(session);
      const file = path.join(dataDir, 'auth', 'refresh-tokens.json');
      // A folder where the file's temporary copy would go makes the atomic write fail.
      const spoiled = path.join(dataDir, 'auth');
      await rm(spoiled, { recursive: true, force: true });
      await fs.writeFile(spoiled, 'not a folder');
      await expect(store.rotate(token, accept, successor)).rejects.toBeDefined();
      await rm(spoiled, { force: true });
      await fs.mkdir(spoiled, { recursive: true });
      const next = await store.rotate(token, accept, successor);
      expect(typeof next).toBe('string');
      expect(await fs.readFile(file, 'utf8')).toContain('"usedAt"');
    });

    it('should revoke on any reuse when the grace is 0 (strict rotation)', async () => {
      const strict = new RefreshTokenStore(dataDir, 60, { now: () => now, reuseGraceMs: 0 });
      const token = await strict.issue(session);
      const results = await Promise.allSettled(
        Array.from({ length: 3 }, () => strict.rotate(token, accept, successor)),
      );
      expect(results.map((result) => result.status)).toEqual(['fulfilled', 'rejected', 'rejected']);
      const next = (results[0] as PromiseFulfilledResult<string>).value;
      await expect(strict.rotate(next, accept, successor)).rejects.toEqual(unauthenticated);
    });

    it('should refuse an expired token', async () => {
      const token = await store.issue(session);
      now += 60_000;
      await expect(store.rotate(token, accept, successor)).rejects.toEqual(unauthenticated);
    });

    it('should refuse unknown tokens', async () => {
      await expect(store.rotate('unknown', accept, successor)).rejects.toEqual(unauthenticated);
    });

    it('should revoke the family when the check refuses', async () => {
      const token = await store.issue(session);
      const refuse = async (): Promise<RefreshSession> => {
        throw new Error('deactivated');
      };
      await expect(store.rotate(token, refuse, successor)).rejects.toThrow('deactivated');
      await expect(store.rotate(token, accept, successor)).rejects.toEqual(unauthenticated);
    });
  });

  describe('revokeFamilyOf', () => {
    it('should end the session of a token and all its successors', async () => {
      const first = await store.issue(session);
      const second = await store.rotate(first, accept, successor);
      await store.revokeFamilyOf(first);
      await expect(store.rotate(second, accept, successor)).rejects.toEqual(unauthenticated);
    });

    it('should ignore unknown tokens', async () => {
      await expect(store.revokeFamilyOf('unknown')).resolves.toBeUndefined();
    });
  });

  describe('load', () => {
    it('should bring back sessions, rotations and revocations after a restart', async () => {
      const live = await store.issue(session);
      const used = await store.issue(session);
      await store.rotate(used, accept, successor);
      const reopened = new RefreshTokenStore(dataDir, 60, { now: () => now });
      await reopened.load();
      await expect(reopened.rotate(live, accept, successor)).resolves.toBeDefined();
      now += REFRESH_REUSE_GRACE_MS;
      await expect(reopened.rotate(used, accept, successor)).rejects.toEqual(unauthenticated);
    });

    it('should start empty, with a warning, from an unreadable file', async () => {
      await fs.writeFile(path.join(dataDir, 'auth', 'refresh-tokens.json'), '{broken');
      const warnings: string[] = [];
      const reopened = new RefreshTokenStore(dataDir, 60, {
        now: () => now,
        onWarning: (message) => warnings.push(message),
      });
      await reopened.load();
      expect(warnings).toHaveLength(1);
    });
  });
});
