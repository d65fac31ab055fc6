import { KeyedMutex } from '@vectorstore/common';
import { readFileIfExists, writeFileAtomic, removeStaleTemporaryFiles } from '@vectorstore/persistence';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import * as path from 'node:path';
import { AuthErrors } from '../auth.errors';
import { AUTH_DIR, ensureAuthDir } from '../users/user.store';

const REFRESH_FILE = 'refresh-tokens.json';
const FORMAT_VERSION = 1;
/** 256 random bits. */
const TOKEN_BYTES = 32;
/**
 * How long a just-rotated refresh token may be presented again, in ms (Auth0's "reuse interval"). Browser tabs share
 * one refresh cookie; where they cannot serialise their refreshes (no Web Locks outside a secure context, e.g. plain
 * HTTP to a LAN host) several tabs restoring at once present the same token. Within the grace each such request gets
 * its own successor in the same family; after it, reuse means theft and revokes the family. The cost: a thief who
 * replays a token within 10 s of its legitimate use gets a session too, which is then ended along with the victim's
 * on the next reuse after the grace or by logout (docs/auth.md, "Reuse grace").
 */
export const REFRESH_REUSE_GRACE_MS = 10_000;

/** A login session: every refresh token descending from one login shares the family. */
interface FamilyRecord {
  userId: string;
  tokenVersion: number;
  createdAt: number;
  revokedAt?: number;
}

/** One refresh token, known only by its SHA-256. */
interface TokenRecord {
  familyId: string;
  expiresAt: number;
  usedAt?: number;
}

interface RefreshFile {
  version: number;
  families: Record<string, FamilyRecord>;
  tokens: Record<string, TokenRecord>;
}

export interface RefreshSession {
  userId: string;
  tokenVersion: number;
}

/**
 * Opaque refresh tokens, stored only as SHA-256 digests in `<dataDir>/auth/refresh-tokens.json`.
 * Each use rotates the token; presenting a used token again, after a short grace for concurrent browser tabs,
 * revokes the whole family (RFC 6819 5.2.2.3). All work on a family is serialised; each change is on disk before
 * its caller gets an answer.
 */
export class RefreshTokenStore {
  private readonly filePath: string;
  private families = new Map<string, FamilyRecord>();
  private tokens = new Map<string, TokenRecord>();
  private readonly familyMutex = new KeyedMutex();
  private readonly writer = new KeyedMutex();
  private pendingWrite: Promise<void> | undefined;

  constructor(
    private readonly dataDir: string,
    private readonly ttlSeconds: number,
    private readonly now: () => number = Date.now,
    private readonly onWarning: (message: string) => void = () => undefined,
  ) {
    this.filePath = path.join(dataDir, AUTH_DIR, REFRESH_FILE);
  }

  /** Loads saved sessions; an unreadable file is dropped with a warning (everyone logs in again). */
  async load(): Promise<void> {
    await ensureAuthDir(path.join(this.dataDir, AUTH_DIR));
    await removeStaleTemporaryFiles(path.dirname(this.filePath), path.basename(this.filePath));
    const text = await readFileIfExists(this.filePath);
    if (text === undefined) return;
    try {
      const data = JSON.parse(text) as RefreshFile;
      if (data.version !== FORMAT_VERSION || typeof data.families !== 'object' || typeof data.tokens !== 'object') {
        throw new Error(`not format version ${FORMAT_VERSION}`);
      }
      this.families = new Map(Object.entries(data.families));
      this.tokens = new Map(Object.entries(data.tokens));
    } catch (error) {
      this.onWarning(
        `discarding unreadable ${this.filePath}: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }

  /** Starts a new family (a login) and returns its first token. */
  async issue(session: RefreshSession): Promise<string> {
    const familyId = randomUUID();
    this.families.set(familyId, { userId: session.userId, tokenVersion: session.tokenVersion, createdAt: this.now() });
    const token = this.addToken(familyId);
    await this.persist();
    return token;
  }

  /**
   * Exchanges `token` for its successor. `check` sees the session first (the user may have been
   * deactivated or had a password reset) and throws to refuse; a refusal revokes the family.
   * A rotated token presented again within {@link REFRESH_REUSE_GRACE_MS} of its first use gets another successor
   * in the same family; later, such reuse revokes the family.
   */
  async rotate(
    token: string,
    check: (session: RefreshSession) => Promise<RefreshSession>,
  ): Promise<{ token: string; session: RefreshSession }> {
    const hash = digest(token);
    const familyId = this.tokens.get(hash)?.familyId;
    if (familyId === undefined) throw AuthErrors.invalidRefreshToken();
    return this.familyMutex.run(familyId, async () => {
      const record = this.tokens.get(hash);
      const family = this.families.get(familyId);
      if (!record || !family || family.revokedAt !== undefined || record.expiresAt <= this.now()) {
        throw AuthErrors.invalidRefreshToken();
      }
      if (!this.usable(record)) {
        await this.revoke(familyId);
        throw AuthErrors.invalidRefreshToken();
      }
      let session: RefreshSession;
      try {
        session = await check({ userId: family.userId, tokenVersion: family.tokenVersion });
      } catch (error) {
        await this.revoke(familyId);
        throw error;
      }
      // Re-read after the await: a logout may have revoked the family meanwhile.
      if (family.revokedAt !== undefined || !this.usable(record)) throw AuthErrors.invalidRefreshToken();
      // The first use starts the grace; a reuse within it does not extend it.
      record.usedAt ??= this.now();
      const next = this.addToken(familyId);
      await this.persist();
      return { token: next, session };
    });
  }

  /** Unused, or used so recently that presenting it again is taken for a concurrent tab, not for theft. */
  private usable(record: TokenRecord): boolean {
    return record.usedAt === undefined || this.now() - record.usedAt < REFRESH_REUSE_GRACE_MS;
  }

  /** Revokes the family `token` belongs to (logout). Unknown tokens are ignored. */
  async revokeFamilyOf(token: string): Promise<void> {
    const familyId = this.tokens.get(digest(token))?.familyId;
    if (familyId === undefined) return;
    await this.familyMutex.run(familyId, () => this.revoke(familyId));
  }

  private async revoke(familyId: string): Promise<void> {
    const family = this.families.get(familyId);
    if (!family || family.revokedAt !== undefined) return;
    family.revokedAt = this.now();
    await this.persist();
  }

  private addToken(familyId: string): string {
    const token = randomBytes(TOKEN_BYTES).toString('base64url');
    this.tokens.set(digest(token), { familyId, expiresAt: this.now() + this.ttlSeconds * 1000 });
    return token;
  }

  /**
   * Writes the current state. Writes are serialised; callers arriving while one runs share the
   * next write, which includes their change.
   */
  private persist(): Promise<void> {
    this.pendingWrite ??= this.writer.run('file', async () => {
      this.pendingWrite = undefined;
      await writeFileAtomic(this.filePath, this.snapshot());
    });
    return this.pendingWrite;
  }

  /** Serialises live state; expired tokens and families without live tokens are dropped. */
  private snapshot(): string {
    const now = this.now();
    const liveFamilies = new Set<string>();
    for (const [hash, record] of this.tokens) {
      if (record.expiresAt <= now) this.tokens.delete(hash);
      else liveFamilies.add(record.familyId);
    }
    for (const familyId of this.families.keys()) {
      if (!liveFamilies.has(familyId)) this.families.delete(familyId);
    }
    const data: RefreshFile = {
      version: FORMAT_VERSION,
      families: Object.fromEntries(this.families),
      tokens: Object.fromEntries(this.tokens),
    };
    return JSON.stringify(data);
  }
}

function digest(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('base64url');
}
