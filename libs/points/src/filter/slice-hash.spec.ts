import { inSlice, sipHash24, slicePointIdHash } from './slice-hash';

describe('sipHash24', () => {
  // The reference vectors of the SipHash paper (key 00..0f).
  const k0 = 0x0706050403020100n;
  const k1 = 0x0f0e0d0c0b0a0908n;
  const message = (n: number) => Uint8Array.from({ length: n }, (_, i) => i);

  it('should match the reference vectors', () => {
    expect(sipHash24(message(0), k0, k1)).toBe(0x726fdb47dd0e0e31n);
    expect(sipHash24(message(1), k0, k1)).toBe(0x74f839c593dc67fdn);
    expect(sipHash24(message(8), k0, k1)).toBe(0x93f5f5799a932462n);
    expect(sipHash24(message(15), k0, k1)).toBe(0xa129ca6149be45e5n);
  });
});

describe('slicePointIdHash', () => {
  it("should match Qdrant's frozen contract", () => {
    expect(slicePointIdHash(0n)).toBe(0xe849e8bb6ffe2567n);
    expect(slicePointIdHash(42n)).toBe(0x0fc2553f07619dd3n);
    expect(slicePointIdHash('550e8400-e29b-41d4-a716-446655440000')).toBe(0xf5d0ca21ba34d504n);
  });

  it('should put each id in exactly one slice of a total', () => {
    for (let id = 0n; id < 200n; id++) {
      for (const total of [1, 2, 5, 10]) {
        const hits = Array.from({ length: total }, (_, index) => inSlice(id, total, index)).filter(Boolean);
        expect(hits).toHaveLength(1);
      }
    }
  });
});
