import { promises as fs } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { formatSecretFile, loadOrCreateJwtSecret } from './jwt-secret';

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

  describe('a damaged file', () => {
    let filePath: string;
    let first: string;
    const warnings: string[] = [];
    const load = () => loadOrCreateJwtSecret(dataDir, undefined, { onWarning: (message) => warnings.push(message) });

    beforeEach(async () => {
      filePath = path.join(dataDir, 'auth', 'jwt-secret');
      warnings.length = 0;
      first = await load();
    });

    it('should keep the secret after a checksum, and read it back with no warning', async () => {
      expect(await fs.readFile(filePath, 'utf8')).toBe(formatSecretFile(first));
      expect(await fs.readFile(filePath, 'utf8')).toMatch(/^crc32:[0-9a-f]{8}\n/);
      expect(await load()).toBe(first);
      expect(warnings).toEqual([]);
    });

    it.each([
      [
        'a flipped byte in the secret',
        (text: string) => text.slice(0, 20) + flip(text[20]) + text.slice(21),
        /checksum mismatch/,
      ],
      [
        'a flipped byte in the checksum',
        (text: string) => flip(text[0]) + text.slice(1),
        /first line is not the crc32/,
      ],
      ['a torn write (the first half)', (text: string) => text.slice(0, text.length >> 1), /checksum mismatch/],
      ['a torn write (within the checksum)', (text: string) => text.slice(0, 9), /shorter than 32|1 lines/],
      ['an empty file', () => '', /empty/],
    ])(
      'should never sign with %s: a new secret, a one-line warning naming the file, the old one kept aside',
      async (_, damage, reason) => {
        const text = await fs.readFile(filePath, 'utf8');
        await fs.writeFile(filePath, damage(text));

        const next = await load();
        expect(next).not.toBe(first);
        expect(next.length).toBeGreaterThanOrEqual(64);
        expect(warnings).toHaveLength(1);
        expect(warnings[0]).toContain(`${filePath} is damaged: `);
        expect(warnings[0]).toMatch(reason);
        expect(warnings[0]).toMatch(/new secret .* jwt-secret\.damaged/);
        expect(warnings[0]).not.toContain('\n');
        expect(await fs.readFile(`${filePath}.damaged`, 'utf8')).toBe(damage(text));
        expect(await load()).toBe(next);
        expect(warnings).toHaveLength(1);
      },
    );

    it('should read a file of the previous version (the secret alone) and add its checksum', async () => {
      const old = 'o'.repeat(86);
      await fs.writeFile(filePath, `${old}\n`);
      expect(await load()).toBe(old);
      expect(await fs.readFile(filePath, 'utf8')).toBe(formatSecretFile(old));
      expect(await load()).toBe(old);
      expect(warnings).toEqual([]);
    });
  });
});

/** `char` with its lowest bit flipped. */
function flip(char: string): string {
  return String.fromCharCode(char.charCodeAt(0) ^ 1);
}
