import { Rng } from '../../../../../test/support/seeded-random';

/**
 * The content the crash writer and the tests expect for an op number: length 1..2048 and bytes from the
 * shared seeded stream, seeded by a hash of the op number, so any torn or misplaced record is detectable.
 */
export function recordFor(opNum: number, maxBytes = 2048): Uint8Array {
  const rng = new Rng(Math.imul(opNum, 0x9e3779b1) ^ 0x5bd1e995);
  const bytes = new Uint8Array(1 + (rng.uint32() % maxBytes));
  for (let i = 0; i < bytes.length; i++) bytes[i] = rng.uint32() & 0xff;
  return bytes;
}
