import { readFileIfExists, writeFileAtomic } from '@vectorstore/persistence';
import { promises as fs } from 'node:fs';
import { randomBytes } from 'node:crypto';
import * as path from 'node:path';
import { AUTH_DIR, ensureAuthDir } from '../users/user.store';

const SECRET_FILE = 'jwt-secret';
/** HS256 wants a key at least as long as its output: 256 bits. */
export const MIN_JWT_SECRET_LENGTH = 32;

/**
 * The HMAC secret for access tokens: `VECTORSTORE_JWT_SECRET` when set, else the one kept in
 * `<dataDir>/auth/jwt-secret` (owner-only), generated with 512 random bits on first start.
 * There is no default secret in code.
 */
export async function loadOrCreateJwtSecret(dataDir: string, configured?: string): Promise<string> {
  if (configured !== undefined) {
    if (configured.length < MIN_JWT_SECRET_LENGTH) {
      throw new Error(`VECTORSTORE_JWT_SECRET must be at least ${MIN_JWT_SECRET_LENGTH} characters`);
    }
    return configured;
  }
  const dir = path.join(dataDir, AUTH_DIR);
  const filePath = path.join(dir, SECRET_FILE);
  await ensureAuthDir(dir);
  const existing = (await readFileIfExists(filePath))?.trim();
  if (existing !== undefined && existing !== '') {
    if (existing.length < MIN_JWT_SECRET_LENGTH)
      throw new Error(`${filePath} holds a secret shorter than ${MIN_JWT_SECRET_LENGTH} characters`);
    await fs.chmod(filePath, 0o600);
    return existing;
  }
  const secret = randomBytes(64).toString('base64url');
  await writeFileAtomic(filePath, `${secret}\n`, 0o600);
  return secret;
}
