import { ErrorKind } from '@vectorstore/common';
import { promises as fs } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { REFRESH_REUSE_GRACE_MS, RefreshSession, RefreshTokenStore } from './refresh-token.store';

const session: RefreshSession = { userId: 'user-1', tokenVersion: 0 };
const accept = async (s: RefreshSession): Promise<RefreshSession> => s;
const unauthenticated = expect.objectContaining({ kind: ErrorKind.Unauthenticated });

describe(RefreshTokenStore.name, () => {
  let dataDir: string;
  let now: number;
  let store: RefreshTokenStore;

  beforeEach(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'refresh-store-'));
    now = 1_000_000;
    store = new RefreshTokenStore(dataDir, 60, () => now);
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
      const { token: second, session: seen } = await store.rotate(first, accept);
      expect(second).not.toBe(first);
      expect(seen).toEqual(session);
      await expect(store.rotate(second, accept)).resolves.toBeDefined();
    });

    it('should revoke the whole family when a used token is presented again after the reuse grace', async () => {
      const first = await store.issue(session);
      const { token: second } = await store.rotate(first, accept);
      now += REFRESH_REUSE_GRACE_MS;
      await expect(store.rotate(first, accept)).rejects.toEqual(unauthenticated);
      await expect(store.rotate(second, accept)).rejects.toEqual(unauthenticated);
    });

    it('should give a used token presented again within the grace a new successor in the same family', async () => {
      const first = await store.issue(session);
      const { token: second } = await store.rotate(first, accept);
      now += REFRESH_REUSE_GRACE_MS - 1;
      const { token: third } = await store.rotate(first, accept);
      expect(new Set([first, second, third]).size).toBe(3);
      // Both successors live, in one family: logging out with one ends the other.
      const { token: fourth } = await store.rotate(second, accept);
      await store.revokeFamilyOf(third);
      await expect(store.rotate(fourth, accept)).rejects.toEqual(unauthenticated);
    });

    it('should not extend the grace by reuse: it counts from the first use', async () => {
      const first = await store.issue(session);
      await store.rotate(first, accept);
      now += REFRESH_REUSE_GRACE_MS / 2;
      await store.rotate(first, accept);
      now += REFRESH_REUSE_GRACE_MS / 2;
      await expect(store.rotate(first, accept)).rejects.toEqual(unauthenticated);
    });

    it('should give each of concurrent rotations of one token its own successor (tabs restoring at once)', async () => {
      const token = await store.issue(session);
      const results = await Promise.all(Array.from({ length: 10 }, () => store.rotate(token, accept)));
      expect(new Set(results.map((result) => result.token)).size).toBe(10);
    });

    it('should refuse an expired token', async () => {
      const token = await store.issue(session);
      now += 60_000;
      await expect(store.rotate(token, accept)).rejects.toEqual(unauthenticated);
    });

    it('should refuse unknown tokens', async () => {
      await expect(store.rotate('unknown', accept)).rejects.toEqual(unauthenticated);
    });

    it('should revoke the family when the check refuses', async () => {
      const token = await store.issue(session);
      const refuse = async (): Promise<RefreshSession> => {
        throw new Error('deactivated');
      };
      await expect(store.rotate(token, refuse)).rejects.toThrow('deactivated');
      await expect(store.rotate(token, accept)).rejects.toEqual(unauthenticated);
    });
  });

  describe('revokeFamilyOf', () => {
    it('should end the session of a token and all its successors', async () => {
      const first = await store.issue(session);
      const { token: second } = await store.rotate(first, accept);
      await store.revokeFamilyOf(first);
      await expect(store.rotate(second, accept)).rejects.toEqual(unauthenticated);
    });

    it('should ignore unknown tokens', async () => {
      await expect(store.revokeFamilyOf('unknown')).resolves.toBeUndefined();
    });
  });

  describe('load', () => {
    it('should bring back sessions, rotations and revocations after a restart', async () => {
      const live = await store.issue(session);
      const used = await store.issue(session);
      await store.rotate(used, accept);
      const reopened = new RefreshTokenStore(dataDir, 60, () => now);
      await reopened.load();
      await expect(reopened.rotate(live, accept)).resolves.toBeDefined();
      now += REFRESH_REUSE_GRACE_MS;
      await expect(reopened.rotate(used, accept)).rejects.toEqual(unauthenticated);
    });

    it('should start empty, with a warning, from an unreadable file', async () => {
      await fs.writeFile(path.join(dataDir, 'auth', 'refresh-tokens.json'), '{broken');
      const warnings: string[] = [];
      const reopened = new RefreshTokenStore(
        dataDir,
        60,
        () => now,
        (message) => warnings.push(message),
      );
      await reopened.load();
      expect(warnings).toHaveLength(1);
    });
  });
});
