/** Reflected polynomial of CRC-32C (Castagnoli), the checksum iSCSI, ext4 and most WALs use. */
export const CRC32C_POLYNOMIAL = 0x82f63b78;
/** Reflected polynomial of CRC-32 (IEEE 802.3, zlib); kept so tests can check the table builder against zlib. */
export const CRC32_IEEE_POLYNOMIAL = 0xedb88320;

/** Builds the 256-entry byte table for a reflected CRC-32 polynomial. */
export function makeCrc32Table(polynomial: number): Uint32Array {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ polynomial : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
}

/** Table-driven reflected CRC-32 over `bytes[start, end)`, continuing from `crc` (0 for a fresh checksum). */
export function crc32WithTable(table: Uint32Array, bytes: Uint8Array, crc = 0, start = 0, end = bytes.length): number {
  let c = ~crc;
  for (let i = start; i < end; i++) c = table[(c ^ bytes[i]) & 0xff] ^ (c >>> 8);
  return ~c >>> 0;
}

const CRC32C_TABLE = makeCrc32Table(CRC32C_POLYNOMIAL);

/** CRC-32C of `bytes[start, end)`; pass a previous result as `crc` to checksum data in pieces. */
export function crc32c(bytes: Uint8Array, crc = 0, start = 0, end = bytes.length): number {
  return crc32WithTable(CRC32C_TABLE, bytes, crc, start, end);
}
