import * as zlib from 'node:zlib';
import { crc32c, crc32WithTable, CRC32_IEEE_POLYNOMIAL, makeCrc32Table } from './crc32c';

const ascii = (text: string): Uint8Array => new TextEncoder().encode(text);

describe('crc32c', () => {
  it('should match the published CRC-32C check values', () => {
    expect(crc32c(ascii('123456789'))).toBe(0xe3069283);
    expect(crc32c(new Uint8Array(32))).toBe(0x8a9136aa);
    expect(crc32c(new Uint8Array(32).fill(0xff))).toBe(0x62a8ab43);
    expect(crc32c(new Uint8Array(0))).toBe(0);
  });

  it('should give the same result when the data is checksummed in pieces', () => {
    const data = ascii('the quick brown fox jumps over the lazy dog');

    expect(crc32c(data, crc32c(data, 0, 0, 10), 10)).toBe(crc32c(data));
  });

  it('should checksum only the requested range', () => {
    const data = ascii('xx123456789yy');

    expect(crc32c(data, 0, 2, 11)).toBe(0xe3069283);
  });
});

describe(makeCrc32Table.name, () => {
  const zlibCrc32 = (zlib as unknown as { crc32?: (data: Uint8Array) => number }).crc32;

  it('should build the IEEE table (standard check value; zlib.crc32 agrees where Node has it)', () => {
    const table = makeCrc32Table(CRC32_IEEE_POLYNOMIAL);
    const data = Uint8Array.from({ length: 1000 }, (_, i) => (i * 31 + 7) & 0xff);

    expect(crc32WithTable(table, ascii('123456789'))).toBe(0xcbf43926);
    expect(crc32WithTable(table, ascii('The quick brown fox jumps over the lazy dog'))).toBe(0x414fa339);
    // Node 22+ ships zlib.crc32; Node 20 does not.
    if (zlibCrc32) expect(crc32WithTable(table, data)).toBe(zlibCrc32(data));
  });
});
