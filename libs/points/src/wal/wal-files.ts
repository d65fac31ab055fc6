import { durableFs } from '@vectorstore/persistence';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';

/** Digits in a segment file name: enough for any u64 op number, so names sort like the numbers they hold. */
const OP_DIGITS = 20;
const SEGMENT_NAME = /^(\d{20})\.wal$/;
const AHEAD_NAME = /^ahead-(\d+)\.wal$/;

/** `00000000000000000042.wal` holds the records from op 42 on. */
export function segmentFileName(firstOpNum: number): string {
  return `${String(firstOpNum).padStart(OP_DIGITS, '0')}.wal`;
}

/** A preallocated, still anonymous segment; renamed to `segmentFileName` when the log rolls onto it. */
export function aheadFileName(sequence: number): string {
  return `ahead-${sequence}.wal`;
}

/** What a WAL directory holds, each list sorted. */
export interface WalDirListing {
  segments: Array<{ firstOpNum: number; path: string }>;
  ahead: Array<{ sequence: number; path: string }>;
}

/** Lists segment and ahead files; anything else in the folder is left alone. */
export async function listWalDir(dir: string): Promise<WalDirListing> {
  const names = await fs.readdir(dir);
  const segments: WalDirListing['segments'] = [];
  const ahead: WalDirListing['ahead'] = [];
  for (const name of names) {
    const segment = SEGMENT_NAME.exec(name);
    if (segment) {
      const firstOpNum = Number(segment[1]);
      if (Number.isSafeInteger(firstOpNum) && firstOpNum >= 1)
        segments.push({ firstOpNum, path: path.join(dir, name) });
      continue;
    }
    const spare = AHEAD_NAME.exec(name);
    if (spare) ahead.push({ sequence: Number(spare[1]), path: path.join(dir, name) });
  }
  segments.sort((a, b) => a.firstOpNum - b.firstOpNum);
  ahead.sort((a, b) => a.sequence - b.sequence);
  return { segments, ahead };
}

/** Creates a zero-filled file of `bytes` (sparse: ftruncate, since Node has no fallocate). */
export async function createAheadFile(filePath: string, bytes: number): Promise<void> {
  // Owner-only: the log holds vectors and payloads in full.
  const handle = await durableFs.open(filePath, 'wx', 0o600);
  try {
    await durableFs.truncate(handle, bytes);
  } catch (error) {
    await handle.close();
    await durableFs.rm(filePath, { force: true });
    throw error;
  }
  await handle.close();
}

/** Creates `dir` (and parents) and makes the new entries durable. */
export async function ensureDirectory(dir: string, fsyncDirectory: (dir: string) => Promise<void>): Promise<void> {
  const first = await durableFs.mkdir(dir, { recursive: true });
  if (first === undefined) return;
  // Every folder from the first one created down to `dir` is a new entry in its parent.
  for (let current = dir; ; current = path.dirname(current)) {
    await fsyncDirectory(path.dirname(current));
    if (current === first) break;
  }
}
