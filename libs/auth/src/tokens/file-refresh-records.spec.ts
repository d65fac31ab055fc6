import { promises as fs } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { FileRefreshRecords } from './file-refresh-records';

const FAR = 4_000_000_000_000;

describe(FileRefreshRecords.name, () => {
  let dataDir: string;
  let filePath: string;
  let warnings: string[];
  const open = async (): Promise<FileRefreshRecords> => {
    const records = new FileRefreshRecords(dataDir, { onWarning: (message) => warnings.push(message) });
    await records.load();
    return records;
  };

  beforeEach(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'refresh-records-'));
    filePath = path.join(dataDir, 'auth', 'refresh-tokens.json');
    warnings = [];
    const records = await open();
    await records.commit([
      { kind: 'family', id: 'family-1', value: { userId: 'user-1', tokenVersion: 0, createdAt: 1 } },
      { kind: 'token', hash: 'hash-1', value: { familyId: 'family-1', expiresAt: FAR } },
    ]);
  });

  afterEach(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  describe('load', () => {
    it('should bring the sessions back from a file sealed with its checksum, with no warning', async () => {
      expect((JSON.parse(await fs.readFile(filePath, 'utf8')) as { checksum: string }).checksum).toMatch(
        /^crc32:[0-9a-f]{8}$/,
      );
      const records = await open();
      expect((await records.token('hash-1'))?.value).toEqual({ familyId: 'family-1', expiresAt: FAR });
      expect(warnings).toEqual([]);
    });

    it.each([
      ['a changed expiry', (text: string) => text.replace(String(FAR), String(FAR + 1)), /checksum mismatch/],
      ['a flipped byte', (text: string) => text.replace('user-1', 'user-0'), /checksum mismatch/],
      ['a torn write', (text: string) => text.slice(0, text.length >> 1), /not valid JSON/],
      ['an empty file', () => '', /not valid JSON/],
    ])(
      'should drop every session of a file with %s, warning once on one line naming the file, and start',
      async (_, damage, reason) => {
        await fs.writeFile(filePath, damage(await fs.readFile(filePath, 'utf8')));
        const records = await open();

        expect(await records.token('hash-1')).toBeUndefined();
        expect(await records.family('family-1')).toBeUndefined();
        expect(warnings).toHaveLength(1);
        expect(warnings[0]).toContain(`${filePath} is damaged: `);
        expect(warnings[0]).toMatch(reason);
        expect(warnings[0]).toMatch(/everyone signs in again/);
        expect(warnings[0]).not.toContain('\n');
        // the next commit writes an intact file
        await records.commit([{ kind: 'token', hash: 'hash-2', value: { familyId: 'family-1', expiresAt: FAR } }]);
        await records.commit([
          { kind: 'family', id: 'family-1', value: { userId: 'u', tokenVersion: 0, createdAt: 1 } },
        ]);
        const again = await open();
        expect(await again.token('hash-2')).toBeDefined();
        expect(warnings).toHaveLength(1);
      },
    );

    it('should read a file written before checksums as it is', async () => {
      const { checksum: _, ...unsealed } = JSON.parse(await fs.readFile(filePath, 'utf8')) as Record<string, unknown>;
      await fs.writeFile(filePath, JSON.stringify(unsealed));
      const records = await open();
      expect(await records.token('hash-1')).toBeDefined();
      expect(warnings).toEqual([]);
    });
  });
});
