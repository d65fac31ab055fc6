import { promises as fs } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { loadOrCreateJwtSecret } from './jwt-secret';

describe('loadOrCreateJwtSecret', () => {
  let dataDir: string;

  beforeEach(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'jwt-secret-'));
  });

  afterEach(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  it('should use the configured secret and write nothing', async () => {
    const configured = 'c'.repeat(32);
    expect(await loadOrCreateJwtSecret(dataDir, configured)).toBe(configured);
    await expect(fs.access(path.join(dataDir, 'auth', 'jwt-secret'))).rejects.toThrow();
  });

  it('should refuse a short configured secret', async () => {
    await expect(loadOrCreateJwtSecret(dataDir, 'short')).rejects.toThrow(/at least 32/);
  });

  it('should generate a strong secret once, keep it owner-only and reuse it', async () => {
    const first = await loadOrCreateJwtSecret(dataDir);
    expect(first.length).toBeGreaterThanOrEqual(64);
    expect((await fs.stat(path.join(dataDir, 'auth', 'jwt-secret'))).mode & 0o777).toBe(0o600);
    expect(await loadOrCreateJwtSecret(dataDir)).toBe(first);
    expect(await loadOrCreateJwtSecret(await mkdtemp(path.join(tmpdir(), 'jwt-secret-')))).not.toBe(first);
  });
});
