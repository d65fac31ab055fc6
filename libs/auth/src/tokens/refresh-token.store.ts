import { KeyedMutex } from '@vectorstore/common';
import { readFileIfExists, writeFileAtomic, removeStaleTemporaryFiles } from '@vectorstore/persistence';
import { createCipheriv, createDecipheriv, createHash, createHmac, randomBytes, randomUUID } from 'node:crypto';
import * as path from 'node:path';
import { AuthErrors } from '../auth.errors';
import { AUTH_DIR, ensureAuthDir } from '../users/user.store';

const REFRESH_FILE = 'refresh-tokens.json';
const FORMAT_VERSION = 1;
/** 256 random bits. */
const TOKEN_BYTES = 32;
/**
 * Default of VECTORSTORE_REFRESH_REUSE_GRACE, in ms (Auth0's "reuse interval"). Browser tabs share one refresh
 * cookie; where they cannot serialise their refreshes (no Web Locks outside a secure context, e.g. plain HTTP to a
 * LAN host) several tabs restoring at once present the same token. Within the grace each such request gets the
 * successor the first use got, so the family stays one chain; after it, reuse means theft and revokes the family.
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
  /**
   * What the first use answered, sealed with a key only the token itself yields ({@link sealSuccessor}); kept for
   * the reuse grace only, so a reuse within it hands back the same successor instead of forking the family.
   */
  successor?: string;
}

interface RefreshFile {
  version: number;
  families: Record<string, FamilyRecord>;
  tokens: Record<string, TokenRecord>;
}

export interface RefreshTokenStoreOptions {
  /** How long a used token may come back and get its first successor again; 0 = strict rotation. */
  reuseGraceMs?: number;
  now?: () => number;
  onWarning?: (message: string) => void;
}

export interface RefreshSession {
  userId: string;
  tokenVersion: number;
}

/**
 * Opaque refresh tokens, stored only as SHA-256 digests in `<dataDir>/auth/refresh-tokens.json`.
 * Each use rotates the token; presenting a used token again within the reuse grace hands back the successor of its
 * first use (one chain per family, however many tabs race), and after the grace revokes the whole family
 * (RFC 6819 5.2.2.3). All work on a family is serialised; each change is on disk before its caller gets an answer.
 */
export class RefreshTokenStore {
  private readonly filePath: string;
  private readonly reuseGraceMs: number;
  private readonly now: () => number;
  private readonly onWarning: (message: string) => void;
  private families = new Map<string, FamilyRecord>();
  private tokens = new Map<string, TokenRecord>();
  private readonly familyMutex = new KeyedMutex();
  private readonly writer = new KeyedMutex();
  private pendingWrite: Promise<void> | undefined;
  private sealTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly dataDir: string,
    private readonly ttlSeconds: number,
    options: RefreshTokenStoreOptions = {},
  ) {
    this.filePath = path.join(dataDir, AUTH_DIR, REFRESH_FILE);
    this.reuseGraceMs = options.reuseGraceMs ?? REFRESH_REUSE_GRACE_MS;
    this.now = options.now ?? Date.now;
    this.onWarning = options.onWarning ?? (() => undefined);
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
      // Seals past their grace (the server stopped before its timer ran) go now; so do malformed ones.
      for (const record of this.tokens.values()) {
        if (
          record.successor !== undefined &&
          (typeof record.successor !== 'string' || !this.withinGrace(record.usedAt ?? 0))
        )
          delete record.successor;
      }
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
   * Exchanges `token` for its successor: `mint` turns the session and the new refresh token into the answer (e.g.
   * a token pair). `check` sees the session first (the user may have been deactivated or had a password reset) and
   * throws to refuse; a refusal revokes the family.
   *
   * A used token presented again within the reuse grace gets the very answer its first use got (after `check`
   * passes again), never a second successor: concurrent refreshes of one token yield one successor. After the
   * grace, such reuse revokes the family. The answer must be JSON.
   */
  async rotate<T>(
    token: string,
    check: (session: RefreshSession) => Promise<RefreshSession>,
    mint: (session: RefreshSession, successor: string) => T,
  ): Promise<T> {
    const hash = digest(token);
    const familyId = this.tokens.get(hash)?.familyId;
    if (familyId === undefined) throw AuthErrors.invalidRefreshToken();
    return this.familyMutex.run(familyId, async () => {
      const record = this.tokens.get(hash);
      const family = this.families.get(familyId);
      if (!record || !family || family.revokedAt !== undefined || record.expiresAt <= this.now()) {
        throw AuthErrors.invalidRefreshToken();
      }
      if (record.usedAt !== undefined && !this.withinGrace(record.usedAt)) {
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
      // Re-read after the await: a logout may have revoked the family meanwhile, or the grace may have run out.
      if (family.revokedAt !== undefined) throw AuthErrors.invalidRefreshToken();
      if (record.usedAt !== undefined) return this.replay<T>(token, record);
      const successor = this.addToken(familyId);
      const answer = mint(session, successor);
      record.usedAt = this.now();
      if (this.reuseGraceMs > 0) {
        record.successor = sealSuccessor(token, hash, JSON.stringify({ next: successor, answer } satisfies Sealed<T>));
        this.dropSealsLater();
      }
      try {
        await this.persist();
      } catch (error) {
        // Not on disk, so not answered: the token stays unused, and a retry within the grace cannot be handed a
        // successor that a restart would forget.
        delete record.usedAt;
        delete record.successor;
        this.tokens.delete(digest(successor));
        throw error;
      }
      return answer;
    });
  }

  /**
   * The newest answer of the chain a used token started, for a reuse within the grace: its first use's answer,
   * or, when that successor has been used too (another tab moved on), that one's, and so on. Handing back a used
   * successor would make the next refresh look like theft. Nothing is minted, so the family stays one chain.
   * Without a sealed answer (the grace ran out during `check`, the token was used while the grace was 0, or a seal
   * does not open) the reuse is refused but does not revoke: it is no sign of theft, and minting anew would fork.
   */
  private replay<T>(token: string, record: TokenRecord): T {
    let current: { token: string; record: TokenRecord | undefined } = { token, record };
    let answer: T | undefined;
    for (let steps = 0; current.record?.usedAt !== undefined; steps++) {
      const { usedAt, successor } = current.record;
      if (steps > 1000 || !this.withinGrace(usedAt) || typeof successor !== 'string') break;
      const text = openSuccessor(current.token, digest(current.token), successor);
      if (text === undefined) break;
      const sealed = JSON.parse(text) as Sealed<T>;
      answer = sealed.answer;
      current = { token: sealed.next, record: this.tokens.get(digest(sealed.next)) };
    }
    // The chain must end at an unused token: a used one without an open seal has no answer to give.
    if (answer === undefined || current.record === undefined || current.record.usedAt !== undefined)
      throw AuthErrors.invalidRefreshToken();
    return answer;
  }

  /**
   * Writes the state again once the newest seal's grace is over, so that no seal outlives its grace on disk (a copy
   * of the data folder plus an old used token must not open a live successor).
   */
  private dropSealsLater(): void {
    if (this.sealTimer) clearTimeout(this.sealTimer);
    this.sealTimer = setTimeout(() => {
      this.sealTimer = undefined;
      this.persist().catch((error: unknown) =>
        this.onWarning(`dropping used refresh seals failed: ${error instanceof Error ? error.message : String(error)}`),
      );
    }, this.reuseGraceMs + 50);
    this.sealTimer.unref();
  }

  private withinGrace(usedAt: number): boolean {
    return this.now() - usedAt < this.reuseGraceMs;
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

  /**
   * Serialises live state; expired tokens, families without live tokens and sealed answers past the grace are
   * dropped.
   */
  private snapshot(): string {
    const now = this.now();
    const liveFamilies = new Set<string>();
    for (const [hash, record] of this.tokens) {
      if (record.expiresAt <= now) {
        this.tokens.delete(hash);
        continue;
      }
      liveFamilies.add(record.familyId);
      if (record.successor !== undefined && !this.withinGrace(record.usedAt ?? 0)) delete record.successor;
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

const SEAL_LABEL = 'vectorstore refresh successor v1';

/** What a seal holds: the successor token (to follow the chain) and the answer its first use got. */
interface Sealed<T> {
  next: string;
  answer: T;
}

/**
 * The key that seals a token's successor: an HMAC keyed by the token itself, so only whoever presents the used token
 * can open what it got (the file and a cluster store hold its SHA-256 only, from which this key cannot be derived).
 */
function sealKey(token: string): Buffer {
  return createHmac('sha256', Buffer.from(token, 'utf8')).update(SEAL_LABEL).digest();
}

/** AES-256-GCM over the answer, bound to the token's digest; `iv.ciphertext.tag` in base64url. */
function sealSuccessor(token: string, hash: string, text: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', sealKey(token), iv);
  cipher.setAAD(Buffer.from(hash, 'utf8'));
  const body = Buffer.concat([cipher.update(text, 'utf8'), cipher.final()]);
  return [iv, body, cipher.getAuthTag()].map((part) => part.toString('base64url')).join('.');
}

/** The sealed answer, or undefined when it does not open (altered, or sealed for another token). */
function openSuccessor(token: string, hash: string, sealed: string): string | undefined {
  const [iv, body, tag] = sealed.split('.').map((part) => Buffer.from(part, 'base64url'));
  if (iv?.length !== 12 || body === undefined || tag?.length !== 16) return undefined;
  try {
    const decipher = createDecipheriv('aes-256-gcm', sealKey(token), iv);
    decipher.setAAD(Buffer.from(hash, 'utf8'));
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(body), decipher.final()]).toString('utf8');
  } catch {
    return undefined;
  }
}
