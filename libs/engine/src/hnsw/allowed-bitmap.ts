// Filters reach WASM as a bitmap over slots (bit s of byte s >> 3).

/** Slots allowed by a filter: a bitmap (bit i of byte i >> 3 = slot i) or a predicate. */
export type AllowedSlots = Uint8Array | ((slot: number) => boolean);

/** Set bits of a 32-bit word (SWAR popcount). */
function popcount32(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return Math.imul((x + (x >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24;
}

/** Set bits of u8[from..to), a 32-bit word at a time where the bytes are 4-aligned. */
export function countBits(u8: Uint8Array, from: number, to: number): number {
  let count = 0;
  let i = from;
  while (i < to && ((u8.byteOffset + i) & 3) !== 0) count += popcount32(u8[i++]);
  const words = (to - i) >> 2;
  if (words > 0) {
    const u32 = new Uint32Array(u8.buffer, u8.byteOffset + i, words);
    for (let w = 0; w < words; w++) count += popcount32(u32[w]);
    i += words << 2;
  }
  while (i < to) count += popcount32(u8[i++]);
  return count;
}

/** Writes the bitmap for slots 0..n-1 at u8[base..]; bits past n are cleared. Returns how many are allowed. */
export function writeAllowedBitmap(u8: Uint8Array, base: number, n: number, allowed: AllowedSlots): number {
  const bytes = Math.ceil(n / 8);
  if (allowed instanceof Uint8Array) {
    // typed-array copies (memcpy) and a word-wise count: a few µs for 100k slots
    const copied = Math.min(bytes, allowed.length);
    u8.set(copied === allowed.length ? allowed : allowed.subarray(0, copied), base);
    if (copied < bytes) u8.fill(0, base + copied, base + bytes);
    else if (n % 8 !== 0) u8[base + bytes - 1] &= (1 << (n % 8)) - 1;
  } else {
    for (let i = 0; i < bytes; i++) {
      let b = 0;
      for (let j = 0; j < 8; j++) {
        const s = i * 8 + j;
        if (s < n && allowed(s)) b |= 1 << j;
      }
      u8[base + i] = b;
    }
  }
  return countBits(u8, base, base + bytes);
}
