import { checkSealedJson, DamagedFileError, describeSealCheck, sealJson } from '@vectorstore/common';
import { durableFs, readFileIfExists, writeFileAtomic, removeStaleTemporaryFiles } from '@vectorstore/persistence';
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
/** The same content as users.json, written just before it: what a damaged users.json is recovered from. */
const USERS_COPY_FILE = 'users.copy.json';
const USERS_FORMAT_VERSION = 1;

/**
 * Users in `<dataDir>/auth/users.json`, with a checksum of its content and an identical `users.copy.json` written
 * just before it; a damaged users.json is read from the copy (see docs/storage.md, "Checksums"). Writers (the server's first-admin bootstrap and the user
 * CLI, possibly at the same time) take a cross-process lock, re-read the file, change it and
 * replace it atomically. Readers keep a cache and re-read the file whenever its identity
 * (inode, size, change times) differs, so the server sees CLI changes on the next request.
 */
export class FileUserStore implements UserStore {
  readonly dir: string;
  readonly filePath: string;
  private readonly copyPath: string;
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
    this.copyPath = path.join(this.dir, USERS_COPY_FILE);
    this.lockPath = `${this.filePath}.lock`;
  }

  /** Creates the folder if needed and loads the file; an unreadable file is an error here. */
  async load(): Promise<void> {
    await ensureAuthDir(this.dir);
    await FileLock.with(this.lockPath, async () => {
      await removeStaleTemporaryFiles(path.dirname(this.filePath), path.basename(this.filePath));
      await removeStaleTemporaryFiles(path.dirname(this.copyPath), path.basename(this.copyPath));
    });
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
      const users = await this.readUsers();
      const result = mutate(users);
      const text = `${JSON.stringify(sealJson({ version: USERS_FORMAT_VERSION, users }, stringify), null, 2)}\n`;
      // The copy first: it is never older than users.json, so recovering from it loses no finished change.
      await writeFileAtomic(this.copyPath, text);
      await writeFileAtomic(this.filePath, text);
      this.signature = await fileSignature(this.filePath);
      this.index(users);
      return result;
    });
  }

  /** After an import into a cluster: the file is renamed `users.standalone.json` and no longer read. */
  async retire(): Promise<void> {
    await durableFs.rm(this.copyPath, { force: true });
    await durableFs
      .rename(this.filePath, path.join(this.dir, 'users.standalone.json'))
      .catch((error: NodeJS.ErrnoException) => {
        if (error.code !== 'ENOENT') throw error;
      });
    await durableFs.syncDirectory(this.dir);
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
      const users = await this.readUsers();
      this.index(users);
      this.signature = signature;
    } catch (error) {
      if (strict) throw error;
      // Keep serving the last good copy rather than locking everyone out over a bad manual edit.
      this.onWarning(`ignoring unreadable ${this.filePath}: ${error instanceof Error ? error.message : String(error)}`);
      this.signature = signature;
    }
  }

  /**
   * The users in users.json, or in its copy when users.json is damaged or missing while the copy is there (a crash
   * during the first write); none when neither exists. Throws {@link DamagedFileError} when neither is intact.
   */
  private async readUsers(): Promise<UserRecord[]> {
    const main = await readUsersFile(this.filePath);
    if (Array.isArray(main)) return main;
    const copy = await readUsersFile(this.copyPath);
    if (main === undefined && copy === undefined) return [];
    if (Array.isArray(copy)) {
      this.onWarning(
        `${main === undefined ? `${this.filePath} is missing` : main.message}; the users were read from ${this.copyPath}`,
      );
      return copy;
    }
    const damage = main ?? copy!;
    throw damage.withAdvice(
      `${copy === undefined ? `there is no ${USERS_COPY_FILE} beside it` : `${this.copyPath} is damaged too`}; ` +
        'put back users.json from a backup (or remove it: the next start creates a first admin again)',
    );
  }

  private index(users: readonly UserRecord[]): void {
    this.byId = new Map(users.map((user) => [user.id, user]));
    this.byEmail = new Map(users.map((user) => [user.email, user]));
  }
}

/** Makes `<dataDir>/auth` with owner-only permissions (and tightens it if it already exists). */
export async function ensureAuthDir(dir: string): Promise<void> {
  await durableFs.mkdir(dir, { recursive: true, mode: 0o700 });
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

/** JSON of the users file's content, compact: what its checksum covers. */
function stringify(value: unknown): string {
  return JSON.stringify(value);
}

/**
 * The users in `filePath`; undefined when it does not exist; a {@link DamagedFileError} when it does not parse,
 * fails its checksum or holds no users file. A file without a checksum (written before them) is read as it is.
 */
async function readUsersFile(filePath: string): Promise<UserRecord[] | DamagedFileError | undefined> {
  const text = await readFileIfExists(filePath);
  if (text === undefined) return undefined;
  let data: unknown;
  try {
    data = JSON.parse(text) as unknown;
  } catch (error) {
    return new DamagedFileError(filePath, `not valid JSON (${(error as Error).message})`);
  }
  const check = checkSealedJson(data, stringify);
  if (check.state === 'mismatch' || check.state === 'malformed')
    return new DamagedFileError(filePath, describeSealCheck(check));
  if (!isObject(data) || data.version !== USERS_FORMAT_VERSION || !Array.isArray(data.users)) {
    return new DamagedFileError(filePath, `not a users file of format version ${USERS_FORMAT_VERSION}`);
  }
  const users: UserRecord[] = [];
  for (const [index, entry] of (data.users as unknown[]).entries()) {
    if (!isUserRecord(entry)) return new DamagedFileError(filePath, `user #${index} is malformed`);
    users.push({ ...entry });
  }
  return users;
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
