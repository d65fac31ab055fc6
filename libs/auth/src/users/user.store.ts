import { readFileIfExists, writeFileAtomic, removeStaleTemporaryFiles } from '@vectorstore/persistence';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { isRole } from '../access/access.model';
import { FileLock } from '../files/file-lock';
import { normalizeEmail } from './email';
import { UserRecord } from './user.model';
import type { UserStore } from './user-store';

/** Sub-folder of the data folder holding every auth file (owner-only). */
export const AUTH_DIR = 'auth';
const USERS_FILE = 'users.json';
const USERS_FORMAT_VERSION = 1;

/**
 * Users in `<dataDir>/auth/users.json`. Writers (the server's first-admin bootstrap and the user
 * CLI, possibly at the same time) take a cross-process lock, re-read the file, change it and
 * replace it atomically. Readers keep a cache and re-read the file whenever its identity
 * (inode, size, change times) differs, so the server sees CLI changes on the next request.
 */
export class FileUserStore implements UserStore {
  readonly dir: string;
  readonly filePath: string;
  private readonly lockPath: string;
  private byId = new Map<string, UserRecord>();
  private byEmail = new Map<string, UserRecord>();
  private signature: string | undefined;
  private refreshing: Promise<void> | undefined;

  constructor(
    dataDir: string,
    private readonly onWarning: (message: string) => void = () => undefined,
  ) {
    this.dir = path.join(dataDir, AUTH_DIR);
    this.filePath = path.join(this.dir, USERS_FILE);
    this.lockPath = `${this.filePath}.lock`;
  }

  /** Creates the folder if needed and loads the file; an unreadable file is an error here. */
  async load(): Promise<void> {
    await ensureAuthDir(this.dir);
    await FileLock.with(this.lockPath, () =>
      removeStaleTemporaryFiles(path.dirname(this.filePath), path.basename(this.filePath)),
    );
    await this.reload(true);
  }

  async findByEmail(email: string): Promise<UserRecord | undefined> {
    await this.refresh();
    return this.byEmail.get(normalizeEmail(email));
  }

  async findById(id: string): Promise<UserRecord | undefined> {
    await this.refresh();
    return this.byId.get(id);
  }

  async list(): Promise<UserRecord[]> {
    await this.refresh();
    return [...this.byId.values()];
  }

  /**
   * Read-modify-write under the cross-process lock. `mutate` gets a fresh copy of the users as
   * on disk and may change, add or remove entries; when it throws, nothing is written.
   */
  async update<T>(mutate: (users: UserRecord[]) => T): Promise<T> {
    await ensureAuthDir(this.dir);
    return FileLock.with(this.lockPath, async () => {
      const users = parseUsers(await readFileIfExists(this.filePath), this.filePath);
      const result = mutate(users);
      await writeFileAtomic(this.filePath, `${JSON.stringify({ version: USERS_FORMAT_VERSION, users }, null, 2)}\n`);
      this.signature = await fileSignature(this.filePath);
      this.index(users);
      return result;
    });
  }

  /** After an import into a cluster: the file is renamed `users.standalone.json` and no longer read. */
  async retire(): Promise<void> {
    await fs
      .rename(this.filePath, path.join(this.dir, 'users.standalone.json'))
      .catch((error: NodeJS.ErrnoException) => {
        if (error.code !== 'ENOENT') throw error;
      });
  }

  private refresh(): Promise<void> {
    // One stat at a time however many requests ask.
    this.refreshing ??= this.reload(false).finally(() => {
      this.refreshing = undefined;
    });
    return this.refreshing;
  }

  private async reload(strict: boolean): Promise<void> {
    const signature = await fileSignature(this.filePath);
    if (signature === this.signature) return;
    try {
      const users = parseUsers(await readFileIfExists(this.filePath), this.filePath);
      this.index(users);
      this.signature = signature;
    } catch (error) {
      if (strict) throw error;
      // Keep serving the last good copy rather than locking everyone out over a bad manual edit.
      this.onWarning(`ignoring unreadable ${this.filePath}: ${error instanceof Error ? error.message : String(error)}`);
      this.signature = signature;
    }
  }

  private index(users: readonly UserRecord[]): void {
    this.byId = new Map(users.map((user) => [user.id, user]));
    this.byEmail = new Map(users.map((user) => [user.email, user]));
  }
}

/** Makes `<dataDir>/auth` with owner-only permissions (and tightens it if it already exists). */
export async function ensureAuthDir(dir: string): Promise<void> {
  await fs.mkdir(dir, { recursive: true, mode: 0o700 });
  await fs.chmod(dir, 0o700);
}

async function fileSignature(filePath: string): Promise<string> {
  try {
    const stat = await fs.stat(filePath, { bigint: true });
    return `${stat.ino}:${stat.size}:${stat.mtimeNs}:${stat.ctimeNs}`;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 'absent';
    throw error;
  }
}

function parseUsers(text: string | undefined, filePath: string): UserRecord[] {
  if (text === undefined) return [];
  const data = JSON.parse(text) as unknown;
  if (!isObject(data) || data.version !== USERS_FORMAT_VERSION || !Array.isArray(data.users)) {
    throw new Error(`${filePath}: not a users file of format version ${USERS_FORMAT_VERSION}`);
  }
  return data.users.map((entry: unknown, index: number) => {
    if (!isUserRecord(entry)) throw new Error(`${filePath}: user #${index} is malformed`);
    return { ...entry };
  });
}

function isUserRecord(value: unknown): value is UserRecord {
  return (
    isObject(value) &&
    typeof value.id === 'string' &&
    typeof value.email === 'string' &&
    (value.fullName === null || typeof value.fullName === 'string') &&
    isRole(value.role) &&
    typeof value.isActive === 'boolean' &&
    typeof value.passwordHash === 'string' &&
    Number.isInteger(value.tokenVersion) &&
    typeof value.createdAt === 'string' &&
    typeof value.updatedAt === 'string'
  );
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
