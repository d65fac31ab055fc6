import { DomainError, ErrorKind } from '@vectorstore/common';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { gzipSync } from 'node:zlib';
import { readSnapshot, type ReadSnapshotOptions } from './snapshot-reader';
import {
  domainErrorOf,
  listTree,
  makeTempDir,
  manifestEntry,
  manifestFor,
  pseudoRandomBytes,
  removeTempDir,
  sha256,
  TAR_END,
  tarEntry,
  writeArchive,
} from './testing/snapshot-fixtures';

const CONFIG = { path: 'collection/config.json', data: '{"params":{"vectors":{"size":4}}}' };
const SEGMENT = { path: 'collection/shards/0/segments/1.1.seg', data: 'segment bytes '.repeat(100) };
const FILES = [CONFIG, SEGMENT];

/** The archive a writer would make of FILES, with the given entries in place of the file entries. */
function archiveWith(entries: Buffer[], manifest: unknown = manifestFor(FILES)): Buffer {
  return Buffer.concat([manifestEntry(manifest), ...entries, TAR_END]);
}

const goodEntries = () => FILES.map((file) => tarEntry(file));

describe('readSnapshot', () => {
  let sandbox: string;
  let archivePath: string;
  let work: string;

  beforeEach(() => {
    sandbox = makeTempDir('vs-snap-reader-');
    archivePath = path.join(sandbox, 'in', 'upload.snapshot');
    // deep, so that `../..` from an extraction folder still lands inside the sandbox, where we can look for it
    work = path.join(sandbox, 'a', 'b', 'work');
  });

  afterEach(() => removeTempDir(sandbox));

  const read = (options: Partial<ReadSnapshotOptions> = {}) =>
    readSnapshot(archivePath, { extractParent: work, maxTotalBytes: 1 << 20, ...options });

  /** Reads the archive, expects a refusal, and checks nothing was left or written anywhere but the inputs. */
  async function refusalOf(
    bytes: Buffer,
    options: Partial<ReadSnapshotOptions> = {},
    sidecar = true,
  ): Promise<DomainError> {
    writeArchive(archivePath, bytes, sidecar);
    const before = listTree(sandbox);

    const error = await domainErrorOf(read(options));

    expect(error.kind).toBe(ErrorKind.InvalidArgument);
    // The only change: the (now empty) parent of the extraction folder; the extraction folder itself is gone.
    const after = listTree(sandbox).filter((entry) => !['a/', 'a/b/', 'a/b/work/'].includes(entry));
    expect(after).toEqual(before);
    if (fs.existsSync(work)) expect(fs.readdirSync(work)).toEqual([]);
    return error;
  }

  it('should extract a well-formed archive into a fresh folder inside the parent', async () => {
    writeArchive(archivePath, archiveWith(goodEntries()));

    const result = await read();

    expect(path.dirname(result.dir)).toBe(work);
    expect(path.basename(result.dir)).toMatch(/^extract-/);
    expect(listTree(result.dir)).toEqual([
      'collection/',
      'collection/config.json',
      'collection/shards/',
      'collection/shards/0/',
      'collection/shards/0/segments/',
      'collection/shards/0/segments/1.1.seg',
    ]);
    expect(fs.readFileSync(path.join(result.dir, SEGMENT.path), 'utf8')).toBe(SEGMENT.data);
    expect(result.manifest.files).toHaveLength(2);
    expect(result.sha256).toBe(sha256(fs.readFileSync(archivePath)));
  });

  it('should accept a path given in a pax header, and the checksum in any case', async () => {
    const long = { path: `collection/${'x'.repeat(150)}/é.bin`, data: 'pax' };
    const bytes = archiveWith([tarEntry({ ...long, paxPath: true })], manifestFor([long]));
    writeArchive(archivePath, bytes, false);

    const result = await read({ checksum: sha256(bytes).toUpperCase() });

    expect(fs.readFileSync(path.join(result.dir, long.path), 'utf8')).toBe('pax');
  });

  it('should accept an archive without any checksum only when told to', async () => {
    writeArchive(archivePath, archiveWith(goodEntries()), false);

    const error = await domainErrorOf(read());
    expect(error.message).toBe(
      'Bad request: snapshot upload.snapshot has no checksum: give one or put upload.snapshot.sha256 beside it',
    );
    await expect(read({ requireChecksum: false })).resolves.toMatchObject({ archiveSize: expect.any(Number) });
  });

  describe('refuses, writing nothing outside its folder,', () => {
    const file = (entry: Parameters<typeof tarEntry>[0]) => archiveWith([...goodEntries(), tarEntry(entry)]);

    it('an entry at ../../evil', async () => {
      const error = await refusalOf(file({ path: '../../evil', data: 'pwned' }));

      expect(error.message).toBe(
        'Bad request: invalid snapshot archive: entry "../../evil" path contains a `..` segment',
      );
      // `../../evil` from inside the extraction folder would be <work>/../evil
      expect(fs.existsSync(path.join(work, '..', 'evil'))).toBe(false);
    });

    it('an entry at an absolute path', async () => {
      const target = path.join(sandbox, 'x');
      const error = await refusalOf(file({ path: target, data: 'pwned' }));

      expect(error.message).toBe(`Bad request: invalid snapshot archive: entry "${target}" path is absolute`);
      expect(fs.existsSync(target)).toBe(false);
    });

    it('an entry at /etc/x', async () => {
      const error = await refusalOf(file({ path: '/etc/x', data: 'pwned' }));

      expect(error.message).toBe('Bad request: invalid snapshot archive: entry "/etc/x" path is absolute');
    });

    it('a .. path hidden in a pax header', async () => {
      const error = await refusalOf(file({ path: '../evil', data: 'pwned', paxPath: true }));

      expect(error.message).toBe('Bad request: invalid snapshot archive: entry "../evil" path contains a `..` segment');
    });

    it('a symbolic link', async () => {
      const error = await refusalOf(file({ path: 'collection/link', type: 'SymbolicLink', linkpath: '/etc/passwd' }));

      expect(error.message).toBe(
        'Bad request: invalid snapshot archive: entry "collection/link" is a symbolic link (to "/etc/passwd"); snapshots hold only regular files',
      );
    });

    it('a hard link', async () => {
      const error = await refusalOf(file({ path: 'collection/hard', type: 'Link', linkpath: CONFIG.path }));

      expect(error.message).toBe(
        `Bad request: invalid snapshot archive: entry "collection/hard" is a hard link (to "${CONFIG.path}"); snapshots hold only regular files`,
      );
    });

    it('a FIFO', async () => {
      const error = await refusalOf(file({ path: 'collection/fifo', type: 'FIFO' }));

      expect(error.message).toBe(
        'Bad request: invalid snapshot archive: entry "collection/fifo" is a FIFO; snapshots hold only regular files',
      );
    });

    it('a device', async () => {
      const error = await refusalOf(file({ path: 'collection/null', type: 'CharacterDevice' }));

      expect(error.message).toContain('entry "collection/null" is a device; snapshots hold only regular files');
    });

    it('a directory entry', async () => {
      const error = await refusalOf(file({ path: 'collection/dir', type: 'Directory' }));

      expect(error.message).toContain('entry "collection/dir" is a directory; snapshots hold only regular files');
    });

    it('an entry of a type tar does not know', async () => {
      const entry = tarEntry({ path: 'collection/odd', data: '' });
      entry[156] = 'Z'.charCodeAt(0);
      // keep the header checksum valid so only the type is wrong
      entry.fill(0x20, 148, 156);
      let sum = 0;
      for (let i = 0; i < 512; i++) sum += entry[i];
      entry.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'ascii');

      const error = await refusalOf(archiveWith([...goodEntries(), entry]));

      expect(error.message).toContain('entry "collection/odd" has an unsupported type');
    });

    it('a duplicate entry', async () => {
      const error = await refusalOf(archiveWith([...goodEntries(), tarEntry(CONFIG)]));

      expect(error.message).toBe(
        `Bad request: invalid snapshot archive: entry "${CONFIG.path}" appears twice in the archive`,
      );
    });

    it('a second manifest', async () => {
      const error = await refusalOf(archiveWith([...goodEntries(), manifestEntry(manifestFor(FILES))]));

      expect(error.message).toBe(
        'Bad request: invalid snapshot archive: entry "snapshot.json" appears twice in the archive',
      );
    });

    it('an entry the manifest does not list', async () => {
      const error = await refusalOf(file({ path: 'collection/extra', data: 'x' }));

      expect(error.message).toBe(
        'Bad request: invalid snapshot archive: entry "collection/extra" is not listed in the manifest',
      );
    });

    it('an entry whose size differs from the manifest', async () => {
      const error = await refusalOf(archiveWith([tarEntry({ ...CONFIG, data: `${CONFIG.data} ` }), tarEntry(SEGMENT)]));

      expect(error.message).toBe(
        `Bad request: invalid snapshot archive: entry "${CONFIG.path}" holds 34 bytes but the manifest says 33`,
      );
    });

    it('an entry whose sha256 differs from the manifest', async () => {
      const tampered = CONFIG.data.replace('4', '8');
      const error = await refusalOf(archiveWith([tarEntry({ ...CONFIG, data: tampered }), tarEntry(SEGMENT)]));

      expect(error.message).toBe(
        `Bad request: invalid snapshot archive: entry "${CONFIG.path}" has sha256 ${sha256(tampered)} but the manifest says ${sha256(CONFIG.data)}`,
      );
    });

    it('a file the manifest lists but the archive lacks', async () => {
      const error = await refusalOf(archiveWith([tarEntry(CONFIG)]));

      expect(error.message).toBe(
        `Bad request: invalid snapshot archive: file "${SEGMENT.path}" is listed in the manifest but not in the archive`,
      );
    });

    it('an archive whose sidecar checksum does not match', async () => {
      const bytes = archiveWith(goodEntries());
      writeArchive(archivePath, bytes);
      fs.writeFileSync(`${archivePath}.sha256`, `${'ab'.repeat(32)}  upload.snapshot\n`);
      const before = listTree(sandbox);

      const error = await domainErrorOf(read());

      expect(error.kind).toBe(ErrorKind.InvalidArgument);
      expect(error.message).toBe(`Checksum mismatch: expected ${'ab'.repeat(32)}, actual ${sha256(bytes)}`);
      expect(listTree(sandbox)).toEqual(before);
    });

    it('an archive that does not match the given checksum', async () => {
      const bytes = archiveWith(goodEntries());

      const error = await refusalOf(bytes, { checksum: 'cd'.repeat(32) });

      expect(error.message).toBe(`Checksum mismatch: expected ${'cd'.repeat(32)}, actual ${sha256(bytes)}`);
    });

    it('a given checksum that is not a sha256', async () => {
      const error = await refusalOf(archiveWith(goodEntries()), { checksum: 'xyz' });

      expect(error.message).toBe(
        'Bad request: checksum must be a sha256 digest of 64 hexadecimal characters, got "xyz"',
      );
    });

    it('a sidecar that is not in sha256sum format', async () => {
      writeArchive(archivePath, archiveWith(goodEntries()));
      fs.writeFileSync(`${archivePath}.sha256`, 'not a checksum\n');

      const error = await domainErrorOf(read());

      expect(error.message).toBe(
        `Bad request: invalid snapshot archive: checksum file ${archivePath}.sha256 is not in sha256sum format (<64 hex digits>  <name>)`,
      );
    });

    describe('a truncated archive', () => {
      it('by 1 byte, against its sidecar', async () => {
        const bytes = archiveWith(goodEntries());
        writeArchive(archivePath, bytes);
        const cut = bytes.subarray(0, bytes.length - 1);
        fs.writeFileSync(archivePath, cut);

        const error = await domainErrorOf(read());

        expect(error.message).toBe(`Checksum mismatch: expected ${sha256(bytes)}, actual ${sha256(cut)}`);
      });

      it('by 1 byte, with no checksum to compare', async () => {
        const bytes = archiveWith(goodEntries());

        const error = await refusalOf(bytes.subarray(0, bytes.length - 1), { requireChecksum: false }, false);

        expect(error.message).toBe(
          'Bad request: invalid snapshot archive: the archive is truncated: it ends without the end-of-archive blocks',
        );
      });

      it('by half, with no checksum to compare', async () => {
        const bytes = archiveWith(goodEntries());

        const error = await refusalOf(
          bytes.subarray(0, Math.floor(bytes.length / 2)),
          { requireChecksum: false },
          false,
        );

        expect(error.message).toMatch(
          /^Bad request: invalid snapshot archive: the archive is truncated \(.*Truncated input \(needed \d+ more bytes, only \d+ available\)\)$/,
        );
      });

      it('to nothing', async () => {
        const error = await refusalOf(Buffer.alloc(0), { requireChecksum: false }, false);

        expect(error.message).toBe(
          'Bad request: invalid snapshot archive: the archive is empty or truncated (less than one tar block)',
        );
      });

      it('right after an entry, with the end-of-archive blocks cut off', async () => {
        const bytes = archiveWith(goodEntries());

        const error = await refusalOf(bytes.subarray(0, bytes.length - 1024), { requireChecksum: false }, false);

        expect(error.message).toContain('the archive is truncated: it ends without the end-of-archive blocks');
      });
    });

    it('an archive without a manifest', async () => {
      const error = await refusalOf(Buffer.concat([...goodEntries(), TAR_END]));

      expect(error.message).toBe(
        `Bad request: invalid snapshot archive: the manifest snapshot.json must be the first entry, found "${CONFIG.path}" (File)`,
      );
    });

    it('a manifest that is not the first entry', async () => {
      const bytes = Buffer.concat([tarEntry(CONFIG), manifestEntry(manifestFor(FILES)), tarEntry(SEGMENT), TAR_END]);

      const error = await refusalOf(bytes);

      expect(error.message).toContain(
        'the manifest snapshot.json must be the first entry, found "collection/config.json"',
      );
    });

    it('a manifest of format version 99', async () => {
      const error = await refusalOf(archiveWith(goodEntries(), manifestFor(FILES, { version: 99 })));

      expect(error.message).toBe(
        'Bad request: invalid snapshot archive: snapshot.json: unsupported format version 99; this server reads version 1',
      );
    });

    it('a manifest that is not JSON', async () => {
      const bytes = Buffer.concat([tarEntry({ path: 'snapshot.json', data: '{oops' }), TAR_END]);

      const error = await refusalOf(bytes);

      expect(error.message).toMatch(/^Bad request: invalid snapshot archive: snapshot.json is not valid UTF-8 JSON/);
    });

    it('a manifest over its size limit', async () => {
      const error = await refusalOf(archiveWith(goodEntries()), { maxManifestBytes: 100 });

      expect(error.message).toMatch(/the manifest is \d+ bytes, over the limit of 100$/);
    });

    it('files over the total size limit, before extracting any', async () => {
      const error = await refusalOf(archiveWith(goodEntries()), { maxTotalBytes: 1000 });

      expect(error.message).toBe(
        'Bad request: invalid snapshot archive: the snapshot holds 1433 bytes of files, over the limit of 1000 bytes',
      );
    });

    it('a compressed archive', async () => {
      const noise = { path: 'collection/noise.bin', data: pseudoRandomBytes(4096) };
      const bytes = archiveWith([tarEntry(noise)], manifestFor([noise]));

      const error = await refusalOf(gzipSync(bytes));

      expect(error.message).toBe(
        'Bad request: invalid snapshot archive: not a tar archive (the first block is not a tar header)',
      );
    });

    it('a damaged header in the middle', async () => {
      const bytes = archiveWith(goodEntries());
      const second = tarEntry(CONFIG);
      const offset = manifestEntry(manifestFor(FILES)).length + second.length; // the segment's header
      bytes[offset + 10] ^= 0xff;

      const error = await refusalOf(bytes, { requireChecksum: false }, false);

      expect(error.message).toBe(
        'Bad request: invalid snapshot archive: the archive is damaged (TAR_ENTRY_INVALID: checksum failure)',
      );
    });

    it('a symbolic link given as the archive', async () => {
      writeArchive(path.join(sandbox, 'real.snapshot'), archiveWith(goodEntries()));
      fs.mkdirSync(path.dirname(archivePath), { recursive: true });
      fs.symlinkSync(path.join(sandbox, 'real.snapshot'), archivePath);

      const error = await domainErrorOf(read({ requireChecksum: false }));

      expect(error.message).toBe(`Bad request: invalid snapshot archive: ${archivePath} is a symbolic link`);
    });
  });

  it('should say when the archive does not exist', async () => {
    const error = await domainErrorOf(read());

    expect(error.message).toBe(`Bad request: Snapshot file "${archivePath}" does not exist`);
  });

  it('should ignore bytes after the end-of-archive blocks, as tar does, without buffering them', async () => {
    const bytes = Buffer.concat([archiveWith(goodEntries()), pseudoRandomBytes(8 * 1024 * 1024 + 5)]);
    writeArchive(archivePath, bytes);

    const result = await read();

    expect(result.archiveSize).toBe(bytes.length);
    expect(result.sha256).toBe(sha256(bytes));
    expect(listTree(result.dir).filter((entry) => !entry.endsWith('/'))).toEqual([CONFIG.path, SEGMENT.path]);
  });
});
