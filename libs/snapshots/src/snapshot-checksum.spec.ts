import { DomainError, ErrorKind } from '@vectorstore/common';
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  checkChecksumParam,
  formatChecksumFile,
  normalizeChecksum,
  parseChecksumFile,
  readSidecarChecksum,
  sha256OfFile,
} from './snapshot-checksum';
import { domainErrorOf, makeTempDir, pseudoRandomBytes, removeTempDir, sha256 } from './testing/snapshot-fixtures';

const HEX = 'a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6e7f8a9b0c1d2e3f4a5b6c7d8e9f00102';

describe('snapshot checksum', () => {
  let dir: string;

  beforeEach(() => (dir = makeTempDir('vs-snap-checksum-')));
  afterEach(() => removeTempDir(dir));

  it("should write sha256sum's format and read it back", () => {
    expect(formatChecksumFile(HEX, 'c-1-2024-07-22-08-31-55.snapshot')).toBe(
      `${HEX}  c-1-2024-07-22-08-31-55.snapshot\n`,
    );
    expect(parseChecksumFile(formatChecksumFile(HEX, 'x.snapshot'), 'x.snapshot.sha256')).toBe(HEX);
  });

  it("should also read sha256sum's binary mark and a bare digest (as in Qdrant's .checksum files), in any case", () => {
    expect(parseChecksumFile(`${HEX} *x.snapshot\n`, 'f')).toBe(HEX);
    expect(parseChecksumFile(HEX.toUpperCase(), 'f')).toBe(HEX);
  });

  it.each([[''], ['abc  x.snapshot'], [`${HEX}\n${HEX}  y\n`], [`${HEX}x  name`]])(
    'should refuse the sidecar content %j',
    (text) => {
      expect(() => parseChecksumFile(text, 'x.snapshot.sha256')).toThrow(
        'Bad request: invalid snapshot archive: checksum file x.snapshot.sha256 is not in sha256sum format',
      );
    },
  );

  it('should read a sidecar, or nothing when there is none', async () => {
    const archive = path.join(dir, 'x.snapshot');
    await expect(readSidecarChecksum(archive)).resolves.toBeUndefined();

    fs.writeFileSync(`${archive}.sha256`, formatChecksumFile(HEX, 'x.snapshot'));
    await expect(readSidecarChecksum(archive)).resolves.toBe(HEX);
  });

  it('should refuse a sidecar that is a folder or a large file', async () => {
    const archive = path.join(dir, 'x.snapshot');
    fs.mkdirSync(`${archive}.sha256`);

    const error = await domainErrorOf(readSidecarChecksum(archive));

    expect(error.message).toContain('is not a small regular file');
  });

  it('should lowercase a client checksum and refuse one that is not 64 hex digits', () => {
    expect(normalizeChecksum(HEX.toUpperCase())).toBe(HEX);
    expect(() => normalizeChecksum(`${HEX}0`)).toThrow(expect.objectContaining({ kind: ErrorKind.InvalidArgument }));
  });

  it('should hash a file in chunks', async () => {
    const data = pseudoRandomBytes(3 * 1024 * 1024 + 17);
    fs.writeFileSync(path.join(dir, 'f'), data);

    await expect(sha256OfFile(path.join(dir, 'f'))).resolves.toEqual({ sha256: sha256(data), size: data.length });
  });
});

describe('checkChecksumParam', () => {
  it('should accept no checksum and 64 hex digits in either case', () => {
    expect(() => checkChecksumParam(undefined)).not.toThrow();
    expect(() => checkChecksumParam('A'.repeat(64))).not.toThrow();
  });

  it("should refuse a wrong length or a non-hex digit with 422 naming Qdrant's rule", () => {
    for (const bad of ['abc', 'g'.repeat(64)]) {
      let caught: unknown;
      try {
        checkChecksumParam(bad);
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(DomainError);
      expect((caught as DomainError).message).toContain('checksum: invalid_sha256_hash');
      expect((caught as DomainError).validationLocation).toBe('query');
    }
  });
});
