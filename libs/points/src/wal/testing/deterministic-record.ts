/**
 * The content the crash writer and the tests expect for an op number: length 1..2048 and bytes from a
 * xorshift32 stream seeded by the op number, so any torn or misplaced record is detectable.
 */
export function recordFor(opNum: number, maxBytes = 2048): Uint8Array {
  let state = (Math.imul(opNum, 0x9e3779b1) ^ 0x5bd1e995) >>> 0 || 1;
  const next = (): number => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    state >>>= 0;
    return state;
  };
  const bytes = new Uint8Array(1 + (next() % maxBytes));
  for (let i = 0; i < bytes.length; i++) bytes[i] = next() & 0xff;
  return bytes;
}
