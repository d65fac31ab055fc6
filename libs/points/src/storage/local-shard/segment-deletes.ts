import { deserialize, serialize } from 'node:v8';
import { Segment } from '../segment';

/**
 * The delete file of an immutable segment: its delete bitmap and version. Such a segment only
 * changes by deletes, so a flush writes these instead of the whole body again.
 */
export function encodeSegmentDeletes(segment: Segment): Uint8Array {
  const bitmap = new Uint8Array(Math.ceil(segment.size / 8));
  for (let slot = 0; slot < segment.size; slot++) if (segment.isDeleted(slot)) bitmap[slot >> 3] |= 1 << (slot & 7);
  return serialize({ version: segment.version, bitmap });
}

/** Deletes what a delete file marks deleted, at its version. */
export function applySegmentDeletes(segment: Segment, bytes: Uint8Array): void {
  if (bytes.length === 0) return;
  const { version, bitmap } = deserialize(bytes) as { version: number; bitmap: Uint8Array };
  for (let slot = 0; slot < segment.size; slot++) {
    if (bitmap[slot >> 3] & (1 << (slot & 7))) segment.delete(version, slot);
  }
  segment.raiseVersion(version);
}
