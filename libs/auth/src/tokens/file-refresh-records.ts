import { checkSealedJson, DamagedFileError, describeSealCheck, KeyedMutex, sealJson } from '@vectorstore/common';
import { readFileIfExists, removeStaleTemporaryFiles, writeFileAtomic } from '@vectorstore/persistence';
import * as path from 'node:path';
import { AUTH_DIR, ensureAuthDir } from '../users/user.store';
import { FamilyRecord, RefreshRecords, RefreshWrite, TokenRecord, Versioned } from './refresh-records';

const REFRESH_FILE = 'refresh-tokens.json';
const FORMAT_VERSION = 1;

interface RefreshFile {
  version: number;
  families: Record<string, FamilyRecord>;
  tokens: Record<string, TokenRecord>;
}

export interface FileRefreshRecordsOptions {
  now?: () => number;
  onWarning?: (message: string) => void;
  /** Seals older than this (from their token's first use) are not kept on disk. */
  sealLifetimeMs?: number;
}

/**
 * Refresh sessions of a standalone server in `<dataDir>/auth/refresh-tokens.json` (digests only, mode 0600), with
 * a checksum of its content: a damaged file is dropped at start with a warning (everyone signs in again). The
 * records live in memory; every commit is on disk before it is answered, and a commit whose write fails changes
 * nothing. Writes are serialised; commits arriving while one is written share the next write. Versions count
 * changes per record since the process started.
 */
export class FileRefreshRecords implements RefreshRecords {
  private readonly filePath: string;
  private readonly now: () => number;
  private readonly onWarning: (message: string) => void;
  private readonly sealLifetimeMs: number;
  private families = new Map<string, Versioned<FamilyRecord>>();
  private tokens = new Map<string, Versioned<TokenRecord>>();
  private nextVersion = 1;
  private readonly writer = new KeyedMutex();
  private pendingWrite: Promise<void> | undefined;

  constructor(
    private readonly dataDir: string,
    options: FileRefreshRecordsOptions = {},
  ) {
    this.filePath = path.join(dataDir, AUTH_DIR, REFRESH_FILE);
    this.now = options.now ?? Date.now;
    this.onWarning = options.onWarning ?? (() => undefined);
    this.sealLifetimeMs = options.sealLifetimeMs ?? 0;
  }

  /**
   * Loads saved sessions. A damaged file (it does not parse, fails its checksum or is not this format) is dropped with
   * a one-line warning naming it, and the server starts: the sessions are only a convenience, everyone signs in
   * again. A file written before checksums is read as it is.
   */
  async load(): Promise<void> {
    await ensureAuthDir(path.join(this.dataDir, AUTH_DIR));
    await removeStaleTemporaryFiles(path.dirname(this.filePath), path.basename(this.filePath));
    const text = await readFileIfExists(this.filePath);
    if (text === undefined) return;
    try {
      const data = parseRefreshFile(text);
      // A session record that changed on disk (an expiry, a family) must not be honoured: drop them all instead.
      const check = checkSealedJson(data, (value) => JSON.stringify(value));
      if (check.state === 'mismatch' || check.state === 'malformed') throw new Error(describeSealCheck(check));
      if (data.version !== FORMAT_VERSION || !isObject(data.families) || !isObject(data.tokens)) {
        throw new Error(`not format version ${FORMAT_VERSION}`);
      }
      this.families = new Map(Object.entries(data.families).map(([id, value]) => [id, this.versioned(value)]));
      this.tokens = new Map(Object.entries(data.tokens).map(([hash, value]) => [hash, this.versioned(value)]));
      // Seals past their lifetime (the server stopped before they were dropped) go now; so do malformed ones.
      for (const { value } of this.tokens.values()) {
        if (value.successor !== undefined && (typeof value.successor !== 'string' || !this.sealAlive(value)))
          delete value.successor;
      }
    } catch (error) {
      this.families = new Map();
      this.tokens = new Map();
      const reason = error instanceof Error ? error.message : String(error);
      this.onWarning(
        new DamagedFileError(this.filePath, reason, {
          advice: 'its sessions were dropped: everyone signs in again (the next sign-in rewrites the file)',
        }).message,
      );
    }
  }

  async token(hash: string): Promise<Versioned<TokenRecord> | undefined> {
    const found = this.tokens.get(hash);
    return found && { value: { ...found.value }, version: found.version };
  }

  async family(id: string): Promise<Versioned<FamilyRecord> | undefined> {
    const found = this.families.get(id);
    return found && { value: { ...found.value }, version: found.version };
  }

  async commit(writes: readonly RefreshWrite[]): Promise<boolean> {
    for (const write of writes) {
      const current = write.kind === 'token' ? this.tokens.get(write.hash) : this.families.get(write.id);
      if (
        write.expect === 'absent'
          ? current !== undefined
          : write.expect !== undefined && current?.version !== write.expect
      )
        return false;
    }
    // Applied in memory at once (no other commit can come in between), undone if the file cannot be written.
    const undo: Array<() => void> = [];
    for (const write of writes) {
      if (write.kind === 'token') undo.push(this.put(this.tokens, write.hash, write.value));
      else undo.push(this.put(this.families, write.id, write.value));
    }
    try {
      await this.persist();
    } catch (error) {
      for (const step of undo.reverse()) step();
      throw error;
    }
    return true;
  }

  private put<T>(map: Map<string, Versioned<T>>, key: string, value: T | null): () => void {
    const before = map.get(key);
    if (value === null) map.delete(key);
    else map.set(key, this.versioned({ ...value }));
    return () => {
      if (before === undefined) map.delete(key);
      else map.set(key, before);
    };
  }

  private versioned<T>(value: T): Versioned<T> {
    return { value, version: this.nextVersion++ };
  }

  private sealAlive(token: TokenRecord): boolean {
    return this.now() - (token.usedAt ?? 0) < this.sealLifetimeMs;
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
   * Serialises live state; expired tokens, families without live tokens and seals past their lifetime are dropped
   * (from memory too).
   */
  private snapshot(): string {
    const now = this.now();
    const liveFamilies = new Set<string>();
    for (const [hash, { value }] of this.tokens) {
      if (value.expiresAt <= now) {
        this.tokens.delete(hash);
        continue;
      }
      liveFamilies.add(value.familyId);
      if (value.successor !== undefined && !this.sealAlive(value)) delete value.successor;
    }
    for (const familyId of this.families.keys()) {
      if (!liveFamilies.has(familyId)) this.families.delete(familyId);
    }
    const data: RefreshFile = {
      version: FORMAT_VERSION,
      families: Object.fromEntries([...this.families].map(([id, { value }]) => [id, value])),
      tokens: Object.fromEntries([...this.tokens].map(([hash, { value }]) => [hash, value])),
    };
    return JSON.stringify(sealJson(data, (value) => JSON.stringify(value)));
  }
}

function parseRefreshFile(text: string): RefreshFile {
  try {
    return JSON.parse(text) as RefreshFile;
  } catch (error) {
    throw new Error(`not valid JSON (${(error as Error).message})`);
  }
}

function isObject(value: unknown): value is object {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
