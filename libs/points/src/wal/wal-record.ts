import { crc32c } from './crc32c';

/**
 * On-disk frame of one WAL record (little endian):
 *
 *   [0, 4)   crc32c over bytes [4, 16 + length)
 *   [4, 8)   length of data in bytes (u32)
 *   [8, 16)  opNum (u64; JS numbers keep it exact up to 2^53)
 *   [16, …)  data
 *
 * An all-zero header marks the end of the records in a segment: preallocated segments are zero-filled and a real
 * record never has opNum 0. The opNum inside the checksum lets recovery reject a stale or misplaced record even
 * when its checksum is intact.
 */
export const RECORD_HEADER_BYTES = 16;
/** Largest data length the u32 length field can hold. */
export const MAX_RECORD_DATA_BYTES = 0xffffffff;

/** One record read back from the log. */
export interface WalRecord {
  opNum: number;
  data: Uint8Array;
}

/** Frames `data` with a zeroed header; `sealFrame` fills in the op number and checksum once the op is known. */
export function allocateFrame(data: Uint8Array): Buffer {
  const frame = Buffer.allocUnsafe(RECORD_HEADER_BYTES + data.length);
  frame.fill(0, 0, RECORD_HEADER_BYTES);
  frame.writeUInt32LE(data.length, 4);
  frame.set(data, RECORD_HEADER_BYTES);
  return frame;
}

/** Writes `opNum` and the checksum into a frame made by `allocateFrame`. */
export function sealFrame(frame: Buffer, opNum: number): void {
  writeOpNum(frame, 8, opNum);
  frame.writeUInt32LE(crc32c(frame, 0, 4, frame.length), 0);
}

/** Frames and seals in one go (tests, tools). */
export function encodeRecord(opNum: number, data: Uint8Array): Buffer {
  const frame = allocateFrame(data);
  sealFrame(frame, opNum);
  return frame;
}

/** What sits at one offset of a segment. */
export type FrameRead =
  | { kind: 'record'; opNum: number; dataStart: number; dataEnd: number; next: number }
  | { kind: 'end' }
  | { kind: 'bad'; reason: string };

/** Decodes the frame at `offset`, accepting it only when it is whole, its checksum matches and it carries `expectedOpNum`. */
export function readFrameAt(bytes: Uint8Array, offset: number, expectedOpNum: number): FrameRead {
  const remaining = bytes.length - offset;
  if (remaining <= 0) return { kind: 'end' };
  if (remaining < RECORD_HEADER_BYTES) {
    return isZero(bytes, offset, bytes.length)
      ? { kind: 'end' }
      : { kind: 'bad', reason: `partial header at offset ${offset}` };
  }
  if (isZero(bytes, offset, offset + RECORD_HEADER_BYTES)) return { kind: 'end' };
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const length = view.getUint32(offset + 4, true);
  if (length > remaining - RECORD_HEADER_BYTES)
    return { kind: 'bad', reason: `record at offset ${offset} runs past the end of the segment` };
  const dataEnd = offset + RECORD_HEADER_BYTES + length;
  if (crc32c(bytes, 0, offset + 4, dataEnd) !== view.getUint32(offset, true))
    return { kind: 'bad', reason: `checksum mismatch at offset ${offset}` };
  const opNum = view.getUint32(offset + 8, true) + view.getUint32(offset + 12, true) * 0x1_0000_0000;
  if (opNum !== expectedOpNum)
    return { kind: 'bad', reason: `expected op ${expectedOpNum} at offset ${offset}, found ${opNum}` };
  return { kind: 'record', opNum, dataStart: offset + RECORD_HEADER_BYTES, dataEnd, next: dataEnd };
}

/** Result of validating one segment's bytes from the start. */
export interface SegmentScan {
  /** Number of valid records, starting at the segment's first op number. */
  records: number;
  /** Byte length of the valid prefix. */
  validBytes: number;
  /** Why scanning stopped early; undefined when the records ended cleanly (EOF or zero padding). */
  problem?: string;
  /** Span from the end of the valid prefix to the last non-zero byte (a torn or corrupt tail); 0 when clean. */
  garbageBytes: number;
}

/** Validates a segment's records in order and measures what follows the last good one. */
export function scanSegment(bytes: Uint8Array, firstOpNum: number): SegmentScan {
  let offset = 0;
  let records = 0;
  for (;;) {
    const read = readFrameAt(bytes, offset, firstOpNum + records);
    if (read.kind === 'record') {
      records++;
      offset = read.next;
      continue;
    }
    const garbageBytes = lastNonZero(bytes, offset) - offset;
    // A zero header followed by non-zero bytes is a torn write whose header never reached the disk.
    const problem =
      read.kind === 'bad'
        ? read.reason
        : garbageBytes > 0
          ? `non-zero bytes after the end marker at offset ${offset}`
          : undefined;
    return { records, validBytes: offset, problem, garbageBytes };
  }
}

/** Yields the records of one segment's valid prefix (`bytes` already trimmed to it), copying their data. */
export function* decodeRecords(bytes: Uint8Array, firstOpNum: number): Generator<WalRecord> {
  let offset = 0;
  let opNum = firstOpNum;
  for (;;) {
    const read = readFrameAt(bytes, offset, opNum);
    if (read.kind === 'end') return;
    if (read.kind === 'bad') throw new Error(`WAL segment ${firstOpNum} changed under a reader: ${read.reason}`);
    // A copy (Buffer#slice would be a view), so a kept record does not pin the whole segment in memory.
    yield { opNum: read.opNum, data: new Uint8Array(bytes.subarray(read.dataStart, read.dataEnd)) };
    offset = read.next;
    opNum++;
  }
}

function writeOpNum(buffer: Buffer, offset: number, opNum: number): void {
  buffer.writeUInt32LE(opNum % 0x1_0000_0000, offset);
  buffer.writeUInt32LE(Math.floor(opNum / 0x1_0000_0000), offset + 4);
}

function isZero(bytes: Uint8Array, start: number, end: number): boolean {
  for (let i = start; i < end; i++) if (bytes[i] !== 0) return false;
  return true;
}

/** Index one past the last non-zero byte at or after `from` (or `from` when the rest is zeros). */
function lastNonZero(bytes: Uint8Array, from: number): number {
  for (let i = bytes.length - 1; i >= from; i--) if (bytes[i] !== 0) return i + 1;
  return from;
}
