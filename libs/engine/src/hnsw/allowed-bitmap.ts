// Filters reach WASM as a bitmap over slots (bit s of byte s >> 3).

/** Slots allowed by a filter: a bitmap (bit i of byte i >> 3 = slot i) or a predicate. */
export type AllowedSlots = Uint8Array | ((slot: number) => boolean);

const POPCOUNT8 = Uint8Array.from({ length: 256 }, (_, i) => {
  let c = 0;
  for (let x = i; x; x >>= 1) c += x & 1;
  return c;
});

/** Writes the bitmap for slots 0..n-1 at u8[base..]; bits past n are cleared. Returns how many are allowed. */
export function writeAllowedBitmap(u8: Uint8Array, base: number, n: number, allowed: AllowedSlots): number {
  const bytes = Math.ceil(n / 8);
  if (allowed instanceof Uint8Array) {
    u8.fill(0, base, base + bytes);
    u8.set(allowed.subarray(0, bytes), base);
    if (n % 8 !== 0 && allowed.length >= bytes) u8[base + bytes - 1] &= (1 << (n % 8)) - 1;
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
  let count = 0;
  for (let i = 0; i < bytes; i++) count += POPCOUNT8[u8[base + i]];
  return count;
}
