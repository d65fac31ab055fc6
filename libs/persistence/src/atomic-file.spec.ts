import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fsyncDirectory, readFileIfExists, removeStaleTemporaryFiles, writeFileAtomic } from './atomic-file';

describe('atomic-file', () => {
  let dir: string;

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vs-atomic-'));
  });

  afterEach(() => {
    fs.rmSync(dir, { recursive: true, force: true });
  });

  describe('writeFileAtomic', () => {
    it('should create the file with the given content', async () => {
      const file = path.join(dir, 'a.json');

      await writeFileAtomic(file, '{"a":1}');

      expect(fs.readFileSync(file, 'utf8')).toBe('{"a":1}');
    });

    it('should replace existing content entirely', async () => {
      const file = path.join(dir, 'a.json');
      fs.writeFileSync(file, 'a much longer original content');

      await writeFileAtomic(file, 'short');

      expect(fs.readFileSync(file, 'utf8')).toBe('short');
    });

    it('should write binary data', async () => {
      const file = path.join(dir, 'b.bin');

      await writeFileAtomic(file, new Uint8Array([0, 255, 7]));

      expect([...fs.readFileSync(file)]).toEqual([0, 255, 7]);
    });

    it('should write an iterable of chunks one after the other', async () => {
      const file = path.join(dir, 'parts.bin');
      await writeFileAtomic(
        file,
        (function* () {
          yield Uint8Array.from([1, 2]);
          yield new Uint8Array(0);
          yield Uint8Array.from([3]);
        })(),
      );
      expect([...fs.readFileSync(file)]).toEqual([1, 2, 3]);
    });

    it('should leave no temporary files behind', async () => {
      const file = path.join(dir, 'a.json');

      await writeFileAtomic(file, 'one');
      await writeFileAtomic(file, 'two');

      expect(fs.readdirSync(dir)).toEqual(['a.json']);
    });

    it('should create the file with mode 0o600 by default', async () => {
      const file = path.join(dir, 'secret.json');

      await writeFileAtomic(file, 'x');

      expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    });

    it('should give a replaced file mode 0o600 even if the old one was world-readable', async () => {
      const file = path.join(dir, 'secret.json');
      fs.writeFileSync(file, 'old', { mode: 0o644 });
      fs.chmodSync(file, 0o644);

      await writeFileAtomic(file, 'new');

      expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    });

    it('should fail and leave no temporary file when the target cannot be replaced', async () => {
      const target = path.join(dir, 'taken');
      fs.mkdirSync(target);
      fs.writeFileSync(path.join(target, 'inside'), 'x');

      await expect(writeFileAtomic(target, 'data')).rejects.toThrow();

      expect(fs.readdirSync(dir)).toEqual(['taken']);
    });

    it('should leave no temporary file when writing the content fails (a full disk)', async () => {
      // data the write cannot take stands in for ENOSPC: the failure comes after the temp file exists
      await expect(writeFileAtomic(path.join(dir, 'a.bin'), 42 as unknown as string)).rejects.toThrow();

      expect(fs.readdirSync(dir)).toEqual([]);
    });

    it('should fail when the folder does not exist', async () => {
      await expect(writeFileAtomic(path.join(dir, 'missing', 'a.json'), 'x')).rejects.toMatchObject({ code: 'ENOENT' });
    });
  });

  describe('readFileIfExists', () => {
    it('should return undefined for a missing file', async () => {
      await expect(readFileIfExists(path.join(dir, 'nope'))).resolves.toBeUndefined();
    });

    it('should return the content as UTF-8 text', async () => {
      const file = path.join(dir, 'x.txt');
      fs.writeFileSync(file, 'héllo ☃');

      await expect(readFileIfExists(file)).resolves.toBe('héllo ☃');
    });

    it('should rethrow errors other than a missing file', async () => {
      await expect(readFileIfExists(dir)).rejects.toMatchObject({ code: 'EISDIR' });
    });
  });

  describe('removeStaleTemporaryFiles', () => {
    it('should remove dot-prefixed .tmp leftovers only', async () => {
      for (const name of [
        '.x.tmp',
        '.catalog.json.123.abc.tmp',
        'catalog.json',
        'x.tmp',
        '.hidden',
        '.x.tmpl',
        'data.tmp.bak',
      ]) {
        fs.writeFileSync(path.join(dir, name), 'x');
      }

      await removeStaleTemporaryFiles(dir);

      expect(fs.readdirSync(dir).sort()).toEqual(['.hidden', '.x.tmpl', 'catalog.json', 'data.tmp.bak', 'x.tmp']);
    });

    it('should remove only the leftovers of one file when asked to', async () => {
      for (const name of ['.users.json.1.a.tmp', '.refresh-tokens.json.1.b.tmp', 'users.json'])
        fs.writeFileSync(path.join(dir, name), 'x');

      await removeStaleTemporaryFiles(dir, 'users.json');

      expect(fs.readdirSync(dir).sort()).toEqual(['.refresh-tokens.json.1.b.tmp', 'users.json']);
    });

    it('should succeed for a missing folder', async () => {
      await expect(removeStaleTemporaryFiles(path.join(dir, 'missing'))).resolves.toBeUndefined();
    });
  });

  describe('fsyncDirectory', () => {
    it('should succeed for an existing folder', async () => {
      await expect(fsyncDirectory(dir)).resolves.toBeUndefined();
    });

    it('should fail for a missing folder', async () => {
      await expect(fsyncDirectory(path.join(dir, 'missing'))).rejects.toMatchObject({ code: 'ENOENT' });
    });
  });
});
