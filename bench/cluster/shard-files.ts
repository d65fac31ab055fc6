// A shard's folder on disk, as the cluster benches measure it: its size, and the plain fsync'd `cp -r` of it that a
// transfer, a backup or a resharding is compared with (the ratio column).
import { execFile } from 'node:child_process';
import { closeSync, fsyncSync, lstatSync, mkdtempSync, openSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import type { RunningServer } from '../../test/e2e/support/server-harness';

/** Temporary folders of the plain copies still on disk (removed by removeCopies). */
const scratch = new Set<string>();

export function removeCopies(): void {
  for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
  scratch.clear();
}

/** The peer's collection folder ids (`<dataDir>/collections/*`). */
export function collectionIds(peer: RunningServer): string[] {
  try {
    return readdirSync(path.join(peer.dataDir, 'collections'));
  } catch {
    return [];
  }
}

/** `<dataDir>/collections/<collection id>/shards/<shard id>`: one shard's folder. */
export const shardFolder = (peer: RunningServer, collectionId: string, shardId: number) =>
  path.join(peer.dataDir, 'collections', collectionId, 'shards', String(shardId));

/** Sum of the sizes of every file under `dir` (du --apparent-size --bytes) and their count; 0 when it is gone. */
export function folderSize(dir: string): { bytes: number; files: number } {
  let bytes = 0;
  let files = 0;
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return { bytes: 0, files: 0 };
  }
  for (const entry of entries) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      const inner = folderSize(full);
      bytes += inner.bytes;
      files += inner.files;
    } else if (entry.isFile()) {
      bytes += lstatSync(full).size;
      files++;
    }
  }
  return { bytes, files };
}

/** fsync of every file and folder under `dir`, then of `dir` itself. */
function fsyncTree(dir: string): void {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) fsyncTree(full);
    else if (entry.isFile()) {
      const fd = openSync(full, 'r');
      fsyncSync(fd);
      closeSync(fd);
    }
  }
  const fd = openSync(dir, 'r');
  fsyncSync(fd);
  closeSync(fd);
}

export interface CopyResult {
  /** The median run. */
  seconds: number;
  bytes: number;
  files: number;
  runs: number[];
}

/** `runs` plain copies of `source` (`cp -r` to a temporary folder, then fsync of every copied file): the median. */
export async function plainCopy(source: string, runs = 3): Promise<CopyResult> {
  const { bytes, files } = folderSize(source);
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const dir = mkdtempSync(path.join(tmpdir(), 'vectorstore-bench-copy-'));
    scratch.add(dir);
    try {
      const into = path.join(dir, 'shard');
      const started = performance.now();
      await promisify(execFile)('cp', ['-r', source, into]);
      fsyncTree(into);
      times.push((performance.now() - started) / 1000);
      const copied = folderSize(into);
      if (copied.bytes !== bytes) throw new Error(`plain copy: ${copied.bytes} bytes copied, ${bytes} in the source`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
      scratch.delete(dir);
    }
  }
  const sorted = [...times].sort((a, b) => a - b);
  return { seconds: sorted[Math.floor(sorted.length / 2)], bytes, files, runs: times };
}
