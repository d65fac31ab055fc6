// Bitmaps over slots (bit s of byte s >> 3), as the engine takes them: word-wise operations on typed arrays.

const LITTLE_ENDIAN = new Uint8Array(Uint32Array.of(1).buffer)[0] === 1;

/**
 * Sets the bits of `slots` (each below bitmap.length * 8). Ascending slots (payload-index postings) are
 * gathered into 32-bit words, one write per word: about twice as fast as a byte write per slot.
 */
export function setSlotBits(bitmap: Uint8Array, slots: ArrayLike<number>): void {
  const n = slots.length;
  if (n === 0) return;
  if (!LITTLE_ENDIAN || (bitmap.byteOffset & 3) !== 0) {
    for (let i = 0; i < n; i++) bitmap[slots[i] >> 3] |= 1 << (slots[i] & 7);
    return;
  }
  const whole = bitmap.length >> 2;
  const words = new Int32Array(bitmap.buffer, bitmap.byteOffset, whole);
  let word = slots[0] >>> 5;
  let bits = 0;
  for (let i = 0; i < n; i++) {
    const slot = slots[i];
    if (slot >>> 5 !== word) {
      flush(bitmap, words, whole, word, bits);
      word = slot >>> 5;
      bits = 0;
    }
    bits |= 1 << (slot & 31);
  }
  flush(bitmap, words, whole, word, bits);
}

/** ORs 32 bits into word w: into the Int32Array view, or byte by byte in the bitmap's tail past it. */
function flush(bitmap: Uint8Array, words: Int32Array, whole: number, w: number, bits: number): void {
  if (w < whole) words[w] |= bits;
  else for (let b = 0; b < 4; b++) if (4 * w + b < bitmap.length) bitmap[4 * w + b] |= (bits >>> (8 * b)) & 0xff;
}

/** bitmap &= ~clear over their common bytes, four bytes at a time where both are 4-aligned. */
export function clearBitsOf(bitmap: Uint8Array, clear: Uint8Array): void {
  const n = Math.min(bitmap.length, clear.length);
  let i = 0;
  if (((bitmap.byteOffset | clear.byteOffset) & 3) === 0) {
    const words = n >> 2;
    const dst = new Int32Array(bitmap.buffer, bitmap.byteOffset, words);
    const src = new Int32Array(clear.buffer, clear.byteOffset, words);
    for (let w = 0; w < words; w++) if (src[w] !== 0) dst[w] &= ~src[w];
    i = words << 2;
  }
  for (; i < n; i++) bitmap[i] &= ~clear[i];
}
