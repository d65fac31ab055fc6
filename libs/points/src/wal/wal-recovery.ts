import { durableFs } from '@vectorstore/persistence';
import { promises as fs } from 'node:fs';
import { WalDirListing } from './wal-files';
import { scanSegment } from './wal-record';

/** In-memory view of one segment file: records [firstOpNum, nextOpNum) in bytes [0, bytes). */
export interface SegmentState {
  firstOpNum: number;
  nextOpNum: number;
  bytes: number;
  path: string;
}

/** What `WriteAheadLog.open` found and repaired. */
export interface WalRecovery {
  /** True when every segment ended cleanly and nothing was dropped. */
  clean: boolean;
  /** First problem met (torn tail, checksum mismatch, discontinuity), for logs. */
  problem?: string;
  /** First op number of the segment the problem was found in. */
  problemSegment?: number;
  /** Bytes discarded, not counting zero padding: the torn tail of that segment plus every later segment. */
  droppedBytes: number;
  /** Segment files deleted because they followed the first bad record or could not be chained. */
  droppedSegments: number;
  /** Older segments deleted because a gap separated them from the newest run (an interrupted `ack`). */
  staleSegments: number;
}

/**
 * Validates every segment oldest first and repairs the folder so that it holds one contiguous run of valid
 * records: a segment with a bad record is cut at that record and every later segment is deleted; older segments
 * that a gap separates from the newest run (a crash in the middle of `ack`'s deletions) are deleted too.
 */
export async function recoverSegments(
  listing: WalDirListing,
  fsyncDirectory: () => Promise<void>,
): Promise<{ segments: SegmentState[]; recovery: WalRecovery }> {
  const recovery: WalRecovery = { clean: true, droppedBytes: 0, droppedSegments: 0, staleSegments: 0 };
  const kept: SegmentState[] = [];
  const toDelete: string[] = [];
  const files = listing.segments;
  for (let i = 0; i < files.length; i++) {
    const { firstOpNum, path } = files[i];
    const previous = kept[kept.length - 1];
    if (previous && previous.nextOpNum < firstOpNum) {
      // A gap: `ack` deletes oldest first, so the run before the gap was acknowledged and is obsolete.
      note(recovery, `gap between op ${previous.nextOpNum - 1} and segment ${firstOpNum}`, previous.firstOpNum);
      recovery.staleSegments += kept.length;
      toDelete.push(...kept.splice(0).map((segment) => segment.path));
    } else if (previous && previous.nextOpNum > firstOpNum) {
      note(recovery, `segment ${firstOpNum} overlaps ops ending at ${previous.nextOpNum - 1}`, firstOpNum);
      await dropFrom(files.slice(i), recovery, toDelete);
      break;
    }
    const bytes = await fs.readFile(path);
    const scan = scanSegment(bytes, firstOpNum);
    kept.push({ firstOpNum, nextOpNum: firstOpNum + scan.records, bytes: scan.validBytes, path });
    if (scan.problem === undefined) continue;
    note(recovery, scan.problem, firstOpNum);
    recovery.droppedBytes += scan.garbageBytes;
    await cutSegment(path, scan.validBytes);
    await dropFrom(files.slice(i + 1), recovery, toDelete);
    break;
  }
  for (const path of toDelete) await durableFs.rm(path, { force: true });
  if (toDelete.length > 0) await fsyncDirectory();
  return { segments: kept, recovery };
}

function note(recovery: WalRecovery, problem: string, segment: number): void {
  recovery.clean = false;
  if (recovery.problem !== undefined) return;
  recovery.problem = problem;
  recovery.problemSegment = segment;
}

async function dropFrom(files: Array<{ path: string }>, recovery: WalRecovery, toDelete: string[]): Promise<void> {
  for (const { path } of files) {
    recovery.droppedSegments++;
    recovery.droppedBytes += nonZeroLength(await fs.readFile(path));
    toDelete.push(path);
  }
}

/** Cuts a segment at its last good record and makes the cut durable before anything is appended after it. */
async function cutSegment(path: string, validBytes: number): Promise<void> {
  const handle = await durableFs.open(path, 'r+');
  try {
    await durableFs.truncate(handle, validBytes);
    await durableFs.sync(handle);
  } finally {
    await handle.close();
  }
}

/** Length without the zero padding of a preallocated file. */
function nonZeroLength(bytes: Uint8Array): number {
  for (let i = bytes.length - 1; i >= 0; i--) if (bytes[i] !== 0) return i + 1;
  return 0;
}
