import { Logger } from '@nestjs/common';
import { crc32Checksum, DamagedFileError } from '@vectorstore/common';
import { durableFs, readFileIfExists, removeStaleTemporaryFiles, writeFileAtomic } from '@vectorstore/persistence';
import { promises as fs } from 'node:fs';
import { randomBytes } from 'node:crypto';
import * as path from 'node:path';
import { AUTH_DIR, ensureAuthDir } from '../users/user.store';

const SECRET_FILE = 'jwt-secret';
/** Where a damaged secret file is kept when a new secret replaces it (for whoever looks into why). */
const DAMAGED_FILE = 'jwt-secret.damaged';
/** HS256 wants a key at least as long as its output: 256 bits. */
export const MIN_JWT_SECRET_LENGTH = 32;

export interface JwtSecretOptions {
  /** Where a damaged secret file is reported (default: the Nest logger). */
  onWarning?: (message: string) => void;
}

/**
 * The HMAC secret for access tokens: `VECTORSTORE_JWT_SECRET` when set (always in cluster mode, where every peer
 * must verify the others' tokens; the file is then neither read nor written), else the one kept in
 * `<dataDir>/auth/jwt-secret` (owner-only), generated with 512 random bits on first start. There is no default
 * secret in code.
 *
 * The file is two lines, the CRC-32 of the secret then the secret, so a torn or changed secret is detected instead
 * of signing tokens nobody can verify. A damaged file is replaced by a new secret with a warning and kept as
 * `jwt-secret.damaged`: only this server reads it, and what a new secret costs is the access tokens already out
 * (15 minutes at most; clients refresh, since refresh tokens do not depend on it). A file of the previous version
 * (the secret alone) is read and rewritten with its checksum.
 */
export async function loadOrCreateJwtSecret(
  dataDir: string,
  configured?: string,
  options: JwtSecretOptions = {},
): Promise<string> {
  if (configured !== undefined) {
    if (configured.length < MIN_JWT_SECRET_LENGTH) {
      throw new Error(`VECTORSTORE_JWT_SECRET must be at least ${MIN_JWT_SECRET_LENGTH} characters`);
    }
    return configured;
  }
  const onWarning = options.onWarning ?? ((message: string) => new Logger('JwtSecret').warn(message));
  const dir = path.join(dataDir, AUTH_DIR);
  const filePath = path.join(dir, SECRET_FILE);
  await ensureAuthDir(dir);
  await removeStaleTemporaryFiles(dir, SECRET_FILE);
  const text = await readFileIfExists(filePath);
  if (text !== undefined) {
    const read = parseSecretFile(filePath, text);
    if (!(read instanceof DamagedFileError)) {
      await fs.chmod(filePath, 0o600);
      if (!read.sealed) await writeSecretFile(filePath, read.secret);
      return read.secret;
    }
    onWarning(
      read.withAdvice(
        `a new secret was made and the old file kept as ${DAMAGED_FILE}; access tokens signed before are refused ` +
          '(clients refresh them or sign in again)',
      ).message,
    );
    await durableFs.rename(filePath, path.join(dir, DAMAGED_FILE));
  }
  const secret = randomBytes(64).toString('base64url');
  await writeSecretFile(filePath, secret);
  return secret;
}

/** The file's content: `crc32:<hex of the secret>` on the first line, the secret on the second. */
export function formatSecretFile(secret: string): string {
  return `${crc32Checksum(secret)}\n${secret}\n`;
}

function writeSecretFile(filePath: string, secret: string): Promise<void> {
  return writeFileAtomic(filePath, formatSecretFile(secret), 0o600);
}

/**
 * The secret in `text`; `sealed` false for the previous version's file (the secret alone, on one line). Anything
 * else, including a secret that fails its checksum, is damaged.
 */
function parseSecretFile(filePath: string, text: string): { secret: string; sealed: boolean } | DamagedFileError {
  const lines = text.trim().split('\n');
  if (lines[0] === '') return new DamagedFileError(filePath, 'the file is empty');
  const sealed = lines[0].startsWith('crc32:');
  // The previous version's file was one line; a second one means this version's file with a damaged first line.
  if (!sealed && lines.length > 1)
    return new DamagedFileError(filePath, 'its first line is not the crc32:<8 hex digits> checksum');
  if (sealed) {
    if (lines.length !== 2) return new DamagedFileError(filePath, `${lines.length} lines, not a checksum and a secret`);
    const actual = crc32Checksum(lines[1]);
    if (actual !== lines[0])
      return new DamagedFileError(filePath, `checksum mismatch (${lines[0]} recorded, ${actual} computed)`);
  }
  const secret = sealed ? lines[1] : lines[0];
  if (secret.length < MIN_JWT_SECRET_LENGTH)
    return new DamagedFileError(filePath, `its secret is shorter than ${MIN_JWT_SECRET_LENGTH} characters`);
  return { secret, sealed };
}
