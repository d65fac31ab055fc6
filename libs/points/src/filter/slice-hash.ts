import { PointId } from '../model/point-id.model';

const MASK = (1n << 64n) - 1n;

function rotl(x: bigint, bits: bigint): bigint {
  return ((x << bits) | (x >> (64n - bits))) & MASK;
}

/** SipHash-2-4 of `bytes` with the 128-bit key (k0, k1). */
export function sipHash24(bytes: Uint8Array, k0 = 0n, k1 = 0n): bigint {
  let v0 = 0x736f6d6570736575n ^ k0;
  let v1 = 0x646f72616e646f6dn ^ k1;
  let v2 = 0x6c7967656e657261n ^ k0;
  let v3 = 0x7465646279746573n ^ k1;
  const round = (): void => {
    v0 = (v0 + v1) & MASK;
    v1 = rotl(v1, 13n) ^ v0;
    v0 = rotl(v0, 32n);
    v2 = (v2 + v3) & MASK;
    v3 = rotl(v3, 16n) ^ v2;
    v0 = (v0 + v3) & MASK;
    v3 = rotl(v3, 21n) ^ v0;
    v2 = (v2 + v1) & MASK;
    v1 = rotl(v1, 17n) ^ v2;
    v2 = rotl(v2, 32n);
  };
  const whole = bytes.length - (bytes.length % 8);
  for (let i = 0; i < whole; i += 8) {
    let m = 0n;
    for (let j = 7; j >= 0; j--) m = (m << 8n) | BigInt(bytes[i + j]);
    v3 ^= m;
    round();
    round();
    v0 ^= m;
  }
  let last = BigInt(bytes.length & 0xff) << 56n;
  for (let j = bytes.length - whole - 1; j >= 0; j--) last |= BigInt(bytes[whole + j]) << BigInt(8 * j);
  v3 ^= last;
  round();
  round();
  v0 ^= last;
  v2 ^= 0xffn;
  for (let i = 0; i < 4; i++) round();
  return (v0 ^ v1 ^ v2 ^ v3) & MASK;
}

/**
 * Qdrant's slice hash of a point id (a public contract of the `slice` condition): SipHash-2-4 with a
 * zero key over 8 little-endian bytes for a numeric id, the 16 RFC 4122 bytes for a UUID.
 */
export function slicePointIdHash(id: PointId): bigint {
  const bytes = new Uint8Array(typeof id === 'bigint' ? 8 : 16);
  if (typeof id === 'bigint') {
    new DataView(bytes.buffer).setBigUint64(0, id, true);
  } else {
    const hex = id.replace(/-/g, '');
    for (let i = 0; i < 16; i++) bytes[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  }
  return sipHash24(bytes);
}

/** Whether point `id` is in slice `index` of `total`. */
export function inSlice(id: PointId, total: number, index: number): boolean {
  return slicePointIdHash(id) % BigInt(total) === BigInt(index);
}
