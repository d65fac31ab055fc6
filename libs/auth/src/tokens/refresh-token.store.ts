import { KeyedMutex } from '@vectorstore/common';
import { createCipheriv, createDecipheriv, createHash, createHmac, randomBytes, randomUUID } from 'node:crypto';
import { AuthErrors } from '../auth.errors';
import { FileRefreshRecords } from './file-refresh-records';
import { RefreshRecords, TokenRecord } from './refresh-records';

/** 256 random bits. */
const TOKEN_BYTES = 32;
/** Attempts of one rotation or revocation when another peer changes the same records meanwhile. */
const MAX_ATTEMPTS = 5;
/**
 * Default of VECTORSTORE_REFRESH_REUSE_GRACE, in ms (Auth0's "reuse interval"). Browser tabs share one refresh
 * cookie; where they cannot serialise their refreshes (no Web Locks outside a secure context, e.g. plain HTTP to a
 * LAN host) several tabs restoring at once present the same token. Within the grace each such request gets the
 * successor the first use got, so the family stays one chain; after it, reuse means theft and revokes the family.
 */
export const REFRESH_REUSE_GRACE_MS = 10_000;

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
 * Opaque refresh tokens, stored only as SHA-256 digests (refresh-records.ts: a file standalone, etcd in a cluster).
 * Each use rotates the token; presenting a used token again within the reuse grace hands back the newest pair of its
 * chain (one chain per family, however many tabs or peers race), and after the grace revokes the whole family
 * (RFC 6819 5.2.2.3). Every change is one guarded commit, stored before its caller gets an answer: of two rotations
 * of one token, here or on two peers, one commits and the other sees the token used and replays its answer.
 */
export class RefreshTokenStore {
  private readonly records: RefreshRecords;
  private readonly reuseGraceMs: number;
  private readonly now: () => number;
  private readonly onWarning: (message: string) => void;
  /** In-process only: fewer conflicts between local rotations of one family (the commit guards do the rest). */
  private readonly familyMutex = new KeyedMutex();
  private readonly sealTimers = new Set<NodeJS.Timeout>();

  /** `records`: where sessions are kept, or a data folder for the standalone file. */
  constructor(
    records: RefreshRecords | string,
    private readonly ttlSeconds: number,
    options: RefreshTokenStoreOptions = {},
  ) {
    this.reuseGraceMs = options.reuseGraceMs ?? REFRESH_REUSE_GRACE_MS;
    this.now = options.now ?? Date.now;
    this.onWarning = options.onWarning ?? (() => undefined);
    this.records =
      typeof records === 'string'
        ? new FileRefreshRecords(records, {
            now: this.now,
            onWarning: this.onWarning,
            sealLifetimeMs: this.reuseGraceMs,
          })
        : records;
  }

  /** Loads saved sessions (an unreadable standalone file is dropped with a warning: everyone logs in again). */
  load(): Promise<void> {
    return this.records.load();
  }

  /** Stops the timers that drop seals after their grace (they never keep a process alive anyway). */
  close(): void {
    for (const timer of this.sealTimers) clearTimeout(timer);
    this.sealTimers.clear();
  }

  /** Starts a new family (a login) and returns its first token. */
  async issue(session: RefreshSession): Promise<string> {
    const familyId = randomUUID();
    const token = newToken();
    const committed = await this.records.commit([
      {
        kind: 'family',
        id: familyId,
        value: { userId: session.userId, tokenVersion: session.tokenVersion, createdAt: this.now() },
        expect: 'absent',
      },
      { kind: 'token', hash: digest(token), value: this.newRecord(familyId), expect: 'absent' },
    ]);
    if (!committed) throw new Error('a new refresh session collided with an existing one');
    return token;
  }

  /**
   * Exchanges `token` for its successor: `mint` turns the session and the new refresh token into the answer (e.g.
   * a token pair). `check` sees the session first (the user may have been deactivated or had a password reset) and
   * throws to refuse; a refusal revokes the family.
   *
   * A used token presented again within the reuse grace gets an answer already given (after `check` passes again),
   * never a second successor: concurrent refreshes of one token yield one successor. After the grace, such reuse
   * revokes the family. The answer must be JSON.
   */
  async rotate<T>(
    token: string,
    check: (session: RefreshSession) => Promise<RefreshSession>,
    mint: (session: RefreshSession, successor: string) => T,
  ): Promise<T> {
    const hash = digest(token);
    const first = await this.records.token(hash);
    if (first === undefined) throw AuthErrors.invalidRefreshToken();
    const familyId = first.value.familyId;
    return this.familyMutex.run(familyId, async () => {
      for (let attempt = 1; ; attempt++) {
        const record = await this.records.token(hash);
        const family = await this.records.family(familyId);
        if (!record || !family || family.value.revokedAt !== undefined || record.value.expiresAt <= this.now()) {
          throw AuthErrors.invalidRefreshToken();
        }
        if (record.value.usedAt !== undefined && !this.withinGrace(record.value.usedAt)) {
          await this.revoke(familyId);
          throw AuthErrors.invalidRefreshToken();
        }
        let session: RefreshSession;
        try {
          session = await check({ userId: family.value.userId, tokenVersion: family.value.tokenVersion });
        } catch (error) {
          await this.revoke(familyId);
          throw error;
        }
        if (record.value.usedAt !== undefined) return this.replay<T>(token, record.value);
        const successor = newToken();
        const answer = mint(session, successor);
        const used: TokenRecord = { ...record.value, usedAt: this.now() };
        if (this.reuseGraceMs > 0)
          used.successor = sealSuccessor(token, hash, JSON.stringify({ next: successor, answer } satisfies Sealed<T>));
        // One commit: the token used (as read, and its family not revoked since), and its successor. Not stored, not
        // answered: a token whose rotation failed stays unused.
        const committed = await this.records.commit([
          { kind: 'family', id: familyId, value: family.value, expect: family.version },
          { kind: 'token', hash, value: used, expect: record.version },
          { kind: 'token', hash: digest(successor), value: this.newRecord(familyId), expect: 'absent' },
        ]);
        if (committed) {
          if (used.successor !== undefined) this.dropSealLater(hash);
          return answer;
        }
        // Another rotation or a logout came first: look again (a used token then replays that rotation's answer).
        if (attempt >= MAX_ATTEMPTS) throw AuthErrors.invalidRefreshToken();
      }
    });
  }

  /**
   * The newest answer of the chain a used token started, for a reuse within the grace: its first use's answer,
   * or, when that successor has been used too (another tab moved on), that one's, and so on. Handing back a used
   * successor would make the next refresh look like theft. Nothing is minted, so the family stays one chain.
   * Without a sealed answer (the grace ran out during `check`, the token was used while the grace was 0, or a seal
   * does not open) the reuse is refused but does not revoke: it is no sign of theft, and minting anew would fork.
   */
  private async replay<T>(token: string, record: TokenRecord): Promise<T> {
    let current: { token: string; record: TokenRecord | undefined } = { token, record };
    let answer: T | undefined;
    for (let steps = 0; current.record?.usedAt !== undefined; steps++) {
      const { usedAt, successor } = current.record;
      if (steps > 1000 || !this.withinGrace(usedAt) || typeof successor !== 'string') break;
      const text = openSuccessor(current.token, digest(current.token), successor);
      if (text === undefined) break;
      const sealed = JSON.parse(text) as Sealed<T>;
      answer = sealed.answer;
      current = { token: sealed.next, record: (await this.records.token(digest(sealed.next)))?.value };
    }
    // The chain must end at an unused token: a used one without an open seal has no answer to give.
    if (answer === undefined || current.record === undefined || current.record.usedAt !== undefined)
      throw AuthErrors.invalidRefreshToken();
    return answer;
  }

  /**
   * Removes a token's seal once its grace is over, so that no seal outlives it in the store (a copy of the data
   * folder, or of etcd, plus an old used token must not open a live successor). The standalone file also drops
   * seals past the grace at every write and at load; a cluster's leader sweeps those a stopped peer left.
   */
  private dropSealLater(hash: string): void {
    const timer = setTimeout(() => {
      this.sealTimers.delete(timer);
      void this.dropSeal(hash).catch((error: unknown) =>
        this.onWarning(
          `dropping a used refresh seal failed: ${error instanceof Error ? error.message : String(error)}`,
        ),
      );
    }, this.reuseGraceMs + 50);
    timer.unref();
    this.sealTimers.add(timer);
  }

  private async dropSeal(hash: string): Promise<void> {
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      const record = await this.records.token(hash);
      if (!record || record.value.successor === undefined) return;
      const { successor: _, ...without } = record.value;
      if (await this.records.commit([{ kind: 'token', hash, value: without, expect: record.version }])) return;
    }
  }

  private withinGrace(usedAt: number): boolean {
    return this.now() - usedAt < this.reuseGraceMs;
  }

  /** Revokes the family `token` belongs to (logout). Unknown tokens are ignored. */
  async revokeFamilyOf(token: string): Promise<void> {
    const familyId = (await this.records.token(digest(token)))?.value.familyId;
    if (familyId === undefined) return;
    await this.familyMutex.run(familyId, () => this.revoke(familyId));
  }

  private async revoke(familyId: string): Promise<void> {
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      const family = await this.records.family(familyId);
      if (!family || family.value.revokedAt !== undefined) return;
      const revoked = { ...family.value, revokedAt: this.now() };
      if (await this.records.commit([{ kind: 'family', id: familyId, value: revoked, expect: family.version }])) return;
    }
    throw new Error(`the refresh session ${familyId} kept changing; it could not be revoked`);
  }

  private newRecord(familyId: string): TokenRecord {
    return { familyId, expiresAt: this.now() + this.ttlSeconds * 1000 };
  }
}

function newToken(): string {
  return randomBytes(TOKEN_BYTES).toString('base64url');
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
