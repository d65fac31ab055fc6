import { DamagedFileError } from '@vectorstore/common';
import { CrashWalkOperation, walkCrashPoints } from '@vectorstore/persistence';
import { promises as fs, readdirSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { loadOrCreatePeerId } from './node-identity';

const STRIDE = Math.max(1, Number(process.env.CRASH_WALK_STRIDE ?? 1));
/** Above 2^53: read as a double it would come back changed. */
const PREVIOUS_VERSION_ID = '18446744073709551557';

describe('loadOrCreatePeerId', () => {
  let dataDir: string;
  let filePath: string;

  beforeEach(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'node-identity-'));
    filePath = path.join(dataDir, 'node.json');
  });

  afterEach(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  it('should make a peer id once, keep it with a checksum and read it back', async () => {
    const id = await loadOrCreatePeerId(dataDir);
    expect(BigInt(id)).toBeGreaterThan(0n);
    const stored = await fs.readFile(filePath, 'utf8');
    expect(stored).toContain(`"peerId": ${id}`);
    expect(stored).toMatch(/"checksum": "crc32:[0-9a-f]{8}"/);
    expect(await loadOrCreatePeerId(dataDir)).toBe(id);
  });

  it('should read a node.json of the previous version (no checksum) exactly and add its checksum', async () => {
    await fs.writeFile(
      filePath,
      `{\n  "peerId": ${PREVIOUS_VERSION_ID},\n  "createdAt": "2026-01-01T00:00:00.000Z"\n}`,
    );
    expect(await loadOrCreatePeerId(dataDir)).toBe(PREVIOUS_VERSION_ID);
    expect(await fs.readFile(filePath, 'utf8')).toMatch(/"createdAt": "2026-01-01T00:00:00.000Z",\n {2}"checksum"/);
    expect(await loadOrCreatePeerId(dataDir)).toBe(PREVIOUS_VERSION_ID);
  });

  it.each([
    [
      'a flipped byte in the peer id',
      // its last digit, so the JSON stays valid
      (text: string) => text.replace(/(\d),\n/, (_, d: string) => `${Number(d) ^ 1},\n`),
      /checksum mismatch/,
    ],
    ['a torn write', (text: string) => text.slice(0, text.length >> 1), /not valid JSON/],
    ['an empty file', () => '', /not valid JSON/],
    ['no peer id', () => '{"createdAt": "2026-01-01T00:00:00.000Z"}', /peerId is missing/],
  ])(
    'should refuse to start on a node.json with %s, in one line naming it and what to do',
    async (_, damage, reason) => {
      await loadOrCreatePeerId(dataDir);
      const damaged = damage(await fs.readFile(filePath, 'utf8'));
      await fs.writeFile(filePath, damaged);

      const load = loadOrCreatePeerId(dataDir);
      await expect(load).rejects.toBeInstanceOf(DamagedFileError);
      const error = (await load.catch((e: unknown) => e)) as DamagedFileError;
      expect(error.message).toContain(`${filePath} is damaged: `);
      expect(error.message).toMatch(reason);
      expect(error.message).toMatch(/put node\.json back from a backup.*removing it is harmless/);
      expect(error.message).not.toContain('\n');
      // nothing was replaced: the operator decides
      expect(await fs.readFile(filePath, 'utf8')).toBe(damaged);
    },
  );
});

/*
 * Crash at every step (issue 28, item 1) of node.json's writes: made at a first start, and rewritten with its
 * checksum from the previous version's file; a start on the folder as a crash left it reads the same id it handed
 * out (or makes one when none was), never a damaged file.
 */
const ID_PREFIX = 'peer ';
function nodeFileOperation(name: string, prepare: (dir: string) => Promise<void>): CrashWalkOperation<string> {
  return {
    name,
    prepare,
    open: async (dir) => dir,
    close: async () => undefined,
    run: async (dir, acked) => {
      acked.add(`${ID_PREFIX}${await loadOrCreatePeerId(dir)}`);
    },
    check: async (dir, acked) => {
      const id = await loadOrCreatePeerId(dir);
      const given = [...acked].find((label) => label.startsWith(ID_PREFIX))?.slice(ID_PREFIX.length);
      if (given !== undefined && id !== given) throw new Error(`peer id ${id}, but ${given} was handed out`);
      const left = readdirSync(dir).filter((entry) => entry.endsWith('.tmp'));
      if (left.length > 0) throw new Error(`left after the start: ${left.join(', ')}`);
      if ((await loadOrCreatePeerId(dir)) !== id) throw new Error('the peer id changed at the next start');
    },
  };
}

describe('crash at every step: node.json (issue 28, item 1)', () => {
  const operations = [
    nodeFileOperation('node.json: first start', async (dir) => void (await fs.mkdir(dir, { recursive: true }))),
    nodeFileOperation('node.json: add checksum', async (dir) => {
      await fs.mkdir(dir, { recursive: true });
      writeFileSync(path.join(dir, 'node.json'), `{"peerId": ${PREVIOUS_VERSION_ID}, "createdAt": "2026-01-01"}`);
    }),
  ];
  it.each(
    operations.flatMap((operation) => [
      { operation, name: operation.name, mode: 'kill -9', powerCut: false },
      { operation, name: operation.name, mode: 'power cut', powerCut: true },
    ]),
  )(
    '$name, $mode: should start with the id handed out after a crash at any file operation',
    async ({ operation, mode, powerCut }) => {
      const result = await walkCrashPoints(operation, { stride: STRIDE, powerCut });
      process.stdout.write(
        `crash at every step:\n  ${result.name.padEnd(28)} ${mode.padEnd(10)} ${String(result.points).padStart(4)} ` +
          `injection points, ${result.walked} walked\n`,
      );
      expect(result.points).toBeGreaterThan(0);
      expect(result.failures).toEqual([]);
    },
    60_000,
  );
});
