import { DamagedFileError, hex32 } from '@vectorstore/common';
import { promises as fs } from 'node:fs';
import { crc32 } from 'node:zlib';

/**
 * What a segment file held when it was written: its size and CRC-32 (zlib's, native: about 0.2 s per GB on one
 * core here, see docs/storage.md). The shard's manifest records one for every file it lists; opening the shard
 * checks each before reading anything from it.
 */
export interface FileChecksum {
  /** File name inside the shard's `segments/` folder. */
  file: string;
  bytes: number;
  /** 8 hex digits. */
  crc32: string;
}

/** Files are checked in reads of this size, so a large vector file never sits in memory whole. */
const VERIFY_CHUNK_BYTES = 8 << 20;

export function checksumOf(file: string, data: Uint8Array): FileChecksum {
  return { file, bytes: data.byteLength, crc32: hex32(crc32(data)) };
}

/** Checksums a file written in parts, chunk by chunk as the chunks go by. */
export class RunningChecksum {
  private crc = 0;
  private length = 0;

  constructor(private readonly file: string) {}

  /** Counts `chunk` in and hands it back. */
  add(chunk: Uint8Array): Uint8Array {
    this.crc = crc32(chunk, this.crc);
    this.length += chunk.byteLength;
    return chunk;
  }

  result(): FileChecksum {
    return { file: this.file, bytes: this.length, crc32: hex32(this.crc) };
  }
}

/** How {@link checksumFile} reads: the chunk size, and a hook after each chunk (to pace, or to stop by throwing). */
export interface ChecksumReadOptions {
  chunkBytes?: number;
  afterChunk?: (bytes: number) => Promise<void>;
}

/** The checksum of the file at `filePath` as it is now, read in chunks (`name`: what to record as its file). */
export async function checksumFile(
  filePath: string,
  name: string,
  { chunkBytes = VERIFY_CHUNK_BYTES, afterChunk }: ChecksumReadOptions = {},
): Promise<FileChecksum> {
  const handle = await fs.open(filePath, 'r');
  try {
    const running = new RunningChecksum(name);
    const buffer = Buffer.allocUnsafe(chunkBytes);
    for (;;) {
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, null);
      if (bytesRead === 0) break;
      running.add(buffer.subarray(0, bytesRead));
      await afterChunk?.(bytesRead);
    }
    return running.result();
  } finally {
    await handle.close();
  }
}

/** Throws {@link DamagedFileError} unless `data`, read from `filePath`, is what `expected` records. */
export function verifyBytes(filePath: string, data: Uint8Array, expected: FileChecksum): void {
  compare(filePath, checksumOf(expected.file, data), expected);
}

/** Throws {@link DamagedFileError} unless the file at `filePath` is there and is what `expected` records. */
export async function verifyFile(filePath: string, expected: FileChecksum): Promise<void> {
  let actual: FileChecksum;
  try {
    actual = await checksumFile(filePath, expected.file);
  } catch (error) {
    throw unreadable(filePath, error);
  }
  compare(filePath, actual, expected);
}

/** A file that cannot be read at all (gone, or an I/O error) is damage too, named as such. */
export function unreadable(filePath: string, error: unknown): Error {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return new DamagedFileError(filePath, 'the file is missing');
  if (code === 'EIO') return new DamagedFileError(filePath, 'reading it failed with EIO');
  return error instanceof Error ? error : new Error(String(error));
}

function compare(filePath: string, actual: FileChecksum, expected: FileChecksum): void {
  const damage = mismatch(filePath, actual, expected);
  if (damage) throw damage;
}

/** How the file at `filePath`, read as `actual`, differs from what `expected` records; undefined when it does not. */
export function mismatch(filePath: string, actual: FileChecksum, expected: FileChecksum): DamagedFileError | undefined {
  if (actual.bytes !== expected.bytes)
    return new DamagedFileError(
      filePath,
      `${actual.bytes} bytes where ${expected.bytes} were written (${actual.bytes < expected.bytes ? 'truncated' : 'extended'})`,
    );
  if (actual.crc32 !== expected.crc32)
    return new DamagedFileError(
      filePath,
      `checksum mismatch (crc32 ${expected.crc32} written, ${actual.crc32} read): its bytes changed on disk`,
    );
  return undefined;
}
