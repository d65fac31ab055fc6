import { promises as fs } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import * as path from 'node:path';
import { insufficientStorageOf } from '@vectorstore/common';
import { durableFs, fsyncDirectory } from '@vectorstore/persistence';
import { WalError } from './wal.errors';
import { aheadFileName, createAheadFile, ensureDirectory, listWalDir, segmentFileName } from './wal-files';
import { allocateFrame, decodeRecords, MAX_RECORD_DATA_BYTES, sealFrame, WalRecord } from './wal-record';
import { recoverSegments, SegmentState, WalRecovery } from './wal-recovery';

/** The two calls on the append path, injectable so tests can make the disk fail. */
export interface WalIo {
  /** Writes `buffer` at `position`; resolves with the number of bytes written (may be short). */
  write(handle: FileHandle, buffer: Buffer, position: number): Promise<number>;
  /** fdatasync. */
  datasync(handle: FileHandle): Promise<void>;
}

/** The real thing: `FileHandle#write` and `FileHandle#datasync` (through durableFs, where tests inject faults). */
export const NODE_WAL_IO: WalIo = {
  write: async (handle, buffer, position) =>
    (await durableFs.write(handle, buffer, 0, buffer.length, position)).bytesWritten,
  datasync: (handle) => durableFs.datasync(handle),
};

/** Sizing from the collection's `wal_config` (Qdrant's WalConfigDiff). */
export interface WalOptions {
  /** Folder of the segment files, e.g. `<shard>/wal`; created if missing. */
  dir: string;
  /** `wal_capacity_mb` × 1 MiB (Qdrant default 32 MiB): a segment rolls when the next record would exceed it. */
  segmentCapacityBytes: number;
  /** `wal_segments_ahead` (Qdrant default 0): empty segment files kept preallocated so a roll only renames. */
  segmentsAhead: number;
  /** `wal_retain_closed` (Qdrant default 1, minimum 1): closed segments kept even once acknowledged. */
  retainClosed: number;
  /** Test seam for the append path's write and fdatasync. */
  io?: WalIo;
}

interface PendingAppend {
  frame: Buffer;
  resolve: (opNum: number) => void;
  reject: (error: unknown) => void;
}

/**
 * A segmented, checksummed, group-committed write-ahead log (the model is Qdrant's `wal` crate).
 *
 * Records get consecutive op numbers in call order. `append` resolves only after the record's bytes are
 * fdatasynced; appends that arrive while an fsync is in flight are written together with one write and one
 * fdatasync. Segment files are named by their first op number; `ack` deletes closed segments whose records are
 * durable elsewhere. `open` validates everything and cuts the log after the first bad record (see `recovery`).
 */
export class WriteAheadLog {
  private readonly queue: PendingAppend[] = [];
  private readonly spareAhead: string[] = [];
  private openHandle: FileHandle | undefined;
  private nextOpNum: number;
  private nextAheadSequence: number;
  private state: 'open' | 'closing' | 'closed' | 'failed' = 'open';
  private failure: unknown;
  private flushing = false;
  private flushDone: Promise<void> = Promise.resolve();
  private aheadWork: Promise<void> = Promise.resolve();
  private ackWork: Promise<void> = Promise.resolve();

  private constructor(
    private readonly options: Required<WalOptions>,
    private readonly segments: SegmentState[],
    private readonly recoveryReport: WalRecovery,
    aheadSequence: number,
  ) {
    const last = segments[segments.length - 1];
    this.nextOpNum = last ? last.nextOpNum : 1;
    this.nextAheadSequence = aheadSequence;
  }

  /** Opens (creating if needed) the log in `options.dir`, recovering it to its longest valid prefix. */
  static async open(options: WalOptions): Promise<WriteAheadLog> {
    const resolved = validateOptions(options);
    const dir = resolved.dir;
    await ensureDirectory(dir, fsyncDirectory);
    const listing = await listWalDir(dir);
    const { segments, recovery } = await recoverSegments(listing, () => fsyncDirectory(dir));

    // Spare files are never written before they are renamed into segments, so any of the right size is reusable.
    const spare: string[] = [];
    let removed = false;
    for (const file of listing.ahead) {
      const stat = await fs.stat(file.path);
      if (stat.size === resolved.segmentCapacityBytes && spare.length < resolved.segmentsAhead) spare.push(file.path);
      else {
        await durableFs.rm(file.path, { force: true });
        removed = true;
      }
    }
    if (removed) await fsyncDirectory(dir);
    const lastSequence = listing.ahead.length > 0 ? listing.ahead[listing.ahead.length - 1].sequence : 0;

    const wal = new WriteAheadLog(resolved, segments, recovery, lastSequence + 1);
    wal.spareAhead.push(...spare);
    const open = segments[segments.length - 1];
    if (open) wal.openHandle = await durableFs.open(open.path, 'r+');
    wal.refillAhead();
    await wal.aheadWork;
    return wal;
  }

  /** What the last `open` found and repaired. */
  get recovery(): WalRecovery {
    return { ...this.recoveryReport };
  }

  /** First op number present, or undefined when the log holds no records. */
  get firstOpNum(): number | undefined {
    const first = this.segments[0];
    return first !== undefined && this.nextOpNum > first.firstOpNum ? first.firstOpNum : undefined;
  }

  /** Last durable op number, or undefined when the log holds no records. */
  get lastOpNum(): number | undefined {
    return this.firstOpNum === undefined ? undefined : this.nextOpNum - 1;
  }

  /**
   * Appends one record and resolves with its op number once it is fdatasynced. Rejects with the I/O error when
   * its write or fsync fails, and with a `WalError` once the log is closed or failed.
   */
  append(data: Uint8Array): Promise<number> {
    if (this.state !== 'open') return Promise.reject(this.refusal());
    if (data.length > MAX_RECORD_DATA_BYTES) {
      return Promise.reject(new RangeError(`WAL record of ${data.length} bytes exceeds ${MAX_RECORD_DATA_BYTES}`));
    }
    return new Promise<number>((resolve, reject) => {
      this.queue.push({ frame: allocateFrame(data), resolve, reject });
      if (!this.flushing) {
        this.flushing = true;
        this.flushDone = this.flushQueue();
      }
    });
  }

  /** Durable records with opNum >= `from`, in order; records appended after the call started are not included. */
  async *readFrom(from: number): AsyncGenerator<WalRecord> {
    const end = this.nextOpNum;
    const snapshot = this.segments.map((segment) => ({ ...segment }));
    for (const segment of snapshot) {
      if (segment.nextOpNum <= from || segment.bytes === 0) continue;
      if (segment.firstOpNum >= end) break;
      const bytes = await readPrefix(segment.path, segment.bytes);
      for (const record of decodeRecords(bytes, segment.firstOpNum)) {
        if (record.opNum >= end) return;
        if (record.opNum >= from) yield record;
      }
    }
  }

  /** The segment file holding op `opNum`, for error messages; undefined when the log no longer holds it. */
  fileOf(opNum: number): string | undefined {
    return this.segments.find((segment) => segment.firstOpNum <= opNum && opNum < segment.nextOpNum)?.path;
  }

  /**
   * Ops up to `opNum` are durable elsewhere, and the log may have lost some of them (a torn or corrupt record
   * cut at `open` after its op was flushed): the next record gets at least `opNum + 1`, so an op number is
   * never handed out twice. When the log would have reused one, it starts a new segment named `opNum + 1`
   * (the name keeps the number across restarts, as for any empty segment) and deletes the older ones, whose
   * ops are all at most `opNum`. Call it before appending.
   */
  async continueAfter(opNum: number): Promise<void> {
    if (opNum < this.nextOpNum) return;
    if (this.state !== 'open') throw this.refusal();
    await this.flushDone;
    this.nextOpNum = opNum + 1;
    try {
      await this.roll();
    } catch (error) {
      this.fail(error, []);
      throw error;
    }
    // A crash before these deletions leaves a gap in front of the new segment, which `open` removes the same way.
    const obsolete = this.segments.splice(0, this.segments.length - 1);
    for (const segment of obsolete) await durableFs.rm(segment.path, { force: true });
    if (obsolete.length > 0) await fsyncDirectory(this.options.dir);
  }

  /**
   * Everything up to `opNum` is durable elsewhere: deletes the oldest closed segments whose records are all
   * <= `opNum`, keeping at least `retainClosed` closed segments. The open segment is never deleted.
   */
  ack(opNum: number): Promise<void> {
    this.ackWork = this.ackWork.then(() => this.deleteAcknowledged(opNum));
    return this.ackWork;
  }

  /** Waits for queued appends to finish, then closes the files. Later appends reject with a `WalError`. */
  async close(): Promise<void> {
    if (this.state === 'closed') return;
    if (this.state === 'open') this.state = 'closing';
    await this.flushDone;
    await this.aheadWork;
    await this.ackWork.catch(() => undefined);
    if (this.state === 'closing') this.state = 'closed';
    const handle = this.openHandle;
    this.openHandle = undefined;
    await handle?.close();
  }

  /** Segment files holding records (open + closed), their used bytes, and the spare files waiting ahead. */
  stats(): { segments: number; bytes: number; aheadSegments: number } {
    const bytes = this.segments.reduce((sum, segment) => sum + segment.bytes, 0);
    return { segments: this.segments.length, bytes, aheadSegments: this.spareAhead.length };
  }

  private async flushQueue(): Promise<void> {
    try {
      while (this.queue.length > 0 && (this.state === 'open' || this.state === 'closing')) await this.flushBatch();
    } finally {
      this.flushing = false;
    }
  }

  /** Writes as many queued records as fit in the open segment with one write and one fdatasync. */
  private async flushBatch(): Promise<void> {
    const capacity = this.options.segmentCapacityBytes;
    let segment = this.segments[this.segments.length - 1];
    if (segment === undefined || (segment.bytes > 0 && segment.bytes + this.queue[0].frame.length > capacity)) {
      try {
        segment = await this.roll();
      } catch (error) {
        if (isNoSpace(error)) {
          // A full disk refused the new file, its rename or the folder's fsync: nothing in our view changed (the
          // open segment stays as it was), so the waiting appends are refused and the next one rolls again; a file
          // left half made is taken over by that roll (same name) or by the next `open`.
          for (const pending of this.queue.splice(0)) pending.reject(error);
          return;
        }
        // Whatever half of the roll happened, the folder no longer matches our view of it: stop here and let
        // the next `open` sort it out. The waiting appends get the I/O error itself.
        this.fail(error, this.queue.splice(0));
        return;
      }
    }
    const handle = this.openHandle as FileHandle;

    // A record never straddles segments; one larger than the capacity goes alone into an empty segment.
    let count = 0;
    let total = 0;
    while (count < this.queue.length) {
      const size = this.queue[count].frame.length;
      if (count > 0 && segment.bytes + total + size > capacity) break;
      total += size;
      count++;
    }
    const batch = this.queue.splice(0, count);
    const firstOpNum = this.nextOpNum;
    batch.forEach((pending, i) => sealFrame(pending.frame, firstOpNum + i));
    const buffer =
      batch.length === 1
        ? batch[0].frame
        : Buffer.concat(
            batch.map((pending) => pending.frame),
            total,
          );

    try {
      await this.writeAll(handle, buffer, segment.bytes);
    } catch (error) {
      await this.undoWrite(handle, segment, batch, error);
      return;
    }
    try {
      await this.options.io.datasync(handle);
    } catch (error) {
      if (isNoSpace(error)) {
        // A full disk (delayed allocation) refused the batch's blocks. Everything before it was fsynced by an
        // earlier batch, so cutting the batch off leaves only bytes already durable: the log stays usable.
        await this.undoWrite(handle, segment, batch, error);
        return;
      }
      // After a failed fsync the kernel may have dropped the dirty pages and cleared the error ("fsyncgate"):
      // a retry could succeed without the data on disk, so nothing written from here on can be trusted.
      this.fail(error, batch);
      return;
    }
    segment.bytes += total;
    segment.nextOpNum += count;
    this.nextOpNum += count;
    batch.forEach((pending, i) => pending.resolve(firstOpNum + i));
  }

  private async writeAll(handle: FileHandle, buffer: Buffer, position: number): Promise<void> {
    for (let done = 0; done < buffer.length;) {
      const written = await this.options.io.write(handle, done === 0 ? buffer : buffer.subarray(done), position + done);
      if (written <= 0) throw new Error(`WAL write made no progress at offset ${position + done}`);
      done += written;
    }
  }

  /**
   * A write failed before any fsync (ENOSPC is the usual case), or a full disk failed its fsync: cut off whatever
   * part of the batch reached the file so those records cannot resurface, make the cut durable, and keep the log
   * usable. If the cut fails the log is failed. If only its fsync fails on a full disk, the log stays usable: the
   * next batch is written from the cut and its fsync makes the cut durable too (until then a crash may bring the
   * refused batch back, whole, as it may any write not acknowledged).
   */
  private async undoWrite(
    handle: FileHandle,
    segment: SegmentState,
    batch: PendingAppend[],
    error: unknown,
  ): Promise<void> {
    try {
      await durableFs.truncate(handle, segment.bytes);
    } catch {
      this.fail(error, batch);
      return;
    }
    try {
      await this.options.io.datasync(handle);
    } catch (syncError) {
      if (!isNoSpace(syncError)) {
        this.fail(error, batch);
        return;
      }
    }
    for (const pending of batch) pending.reject(error);
  }

  /** Starts a new segment at `nextOpNum`: a spare file renamed into place, or a new file; then fsyncs the folder. */
  private async roll(): Promise<SegmentState> {
    const dir = this.options.dir;
    const segmentPath = path.join(dir, segmentFileName(this.nextOpNum));
    const spare = this.spareAhead.shift();
    let handle: FileHandle;
    if (spare !== undefined) {
      await durableFs.rename(spare, segmentPath).catch((error: unknown) => {
        this.spareAhead.unshift(spare); // still there, for the next roll
        throw error;
      });
      handle = await durableFs.open(segmentPath, 'r+');
    } else {
      handle = await durableFs.open(segmentPath, 'w+', 0o600);
    }
    try {
      // Records acknowledged in this file are only reachable after a crash if its name is durable.
      await fsyncDirectory(dir);
    } catch (error) {
      await handle.close().catch(() => undefined);
      throw error;
    }
    const previousHandle = this.openHandle;
    const previous = this.segments[this.segments.length - 1];
    const segment: SegmentState = {
      firstOpNum: this.nextOpNum,
      nextOpNum: this.nextOpNum,
      bytes: 0,
      path: segmentPath,
    };
    this.segments.push(segment);
    this.openHandle = handle;
    if (previousHandle !== undefined && previous !== undefined) {
      // Dropping the preallocated zeros of the closed segment only saves space; its records are already durable.
      await durableFs.truncate(previousHandle, previous.bytes).catch(() => undefined);
      await previousHandle.close().catch(() => undefined);
    }
    this.refillAhead();
    return segment;
  }

  /** Tops the spare files up to `segmentsAhead` in the background. */
  private refillAhead(): void {
    this.aheadWork = this.aheadWork.then(async () => {
      while (
        this.spareAhead.length < this.options.segmentsAhead &&
        this.state !== 'closed' &&
        this.state !== 'failed'
      ) {
        const sparePath = path.join(this.options.dir, aheadFileName(this.nextAheadSequence++));
        try {
          await createAheadFile(sparePath, this.options.segmentCapacityBytes);
        } catch {
          // Spares are an optimisation: without one the next roll creates its segment file itself and reports
          // any disk error through the appends that needed it.
          return;
        }
        this.spareAhead.push(sparePath);
      }
    });
  }

  private async deleteAcknowledged(opNum: number): Promise<void> {
    const closed = this.segments.length - 1;
    let count = 0;
    while (count < closed - this.options.retainClosed && this.segments[count].nextOpNum - 1 <= opNum) count++;
    if (count === 0) return;
    // Oldest first, so a crash midway leaves a gap that recovery recognises as acknowledged history.
    const obsolete = this.segments.splice(0, count);
    for (const segment of obsolete) await durableFs.rm(segment.path, { force: true });
    await fsyncDirectory(this.options.dir);
  }

  /** Marks the log failed: the in-flight batch gets the I/O error, everything queued or later a `WalError`. */
  private fail(error: unknown, inFlight: PendingAppend[]): void {
    this.state = 'failed';
    this.failure = error;
    for (const pending of inFlight) pending.reject(error);
    const refusal = this.refusal();
    for (const pending of this.queue.splice(0)) pending.reject(refusal);
  }

  private refusal(): WalError {
    if (this.state === 'failed') {
      const detail = this.failure instanceof Error ? this.failure.message : String(this.failure);
      return new WalError('failed', `WAL in ${this.options.dir} failed and must be reopened: ${detail}`, {
        cause: this.failure,
      });
    }
    return new WalError('closed', `WAL in ${this.options.dir} is closed`);
  }
}

function validateOptions(options: WalOptions): Required<WalOptions> {
  const { dir, segmentCapacityBytes, segmentsAhead, retainClosed } = options;
  if (!Number.isSafeInteger(segmentCapacityBytes) || segmentCapacityBytes < 1) {
    throw new RangeError(`segmentCapacityBytes must be a positive integer, got ${segmentCapacityBytes}`);
  }
  if (!Number.isSafeInteger(segmentsAhead) || segmentsAhead < 0) {
    throw new RangeError(`segmentsAhead must be a non-negative integer, got ${segmentsAhead}`);
  }
  if (!Number.isSafeInteger(retainClosed) || retainClosed < 1) {
    throw new RangeError(`retainClosed must be an integer >= 1, got ${retainClosed}`);
  }
  return { dir: path.resolve(dir), segmentCapacityBytes, segmentsAhead, retainClosed, io: options.io ?? NODE_WAL_IO };
}

async function readPrefix(filePath: string, bytes: number): Promise<Buffer> {
  const handle = await fs.open(filePath, 'r');
  try {
    const buffer = Buffer.alloc(bytes);
    for (let done = 0; done < bytes;) {
      const { bytesRead } = await handle.read(buffer, done, bytes - done, done);
      if (bytesRead === 0) throw new Error(`WAL segment ${filePath} is shorter than its ${bytes} durable bytes`);
      done += bytesRead;
    }
    return buffer;
  } finally {
    await handle.close();
  }
}

/** A full disk or quota (ENOSPC, EDQUOT, however wrapped): the transports' own classification (507). */
function isNoSpace(error: unknown): boolean {
  return insufficientStorageOf(error) !== undefined;
}
