import { SlotMap } from './slot-map';

const bits = (...slots: number[]): Uint8Array => {
  const bitmap = new Uint8Array(4);
  for (const slot of slots) bitmap[slot >> 3] |= 1 << (slot & 7);
  return bitmap;
};
const withBitmap = (bitmap: Uint8Array) =>
  Object.assign((slot: number) => (bitmap[slot >> 3] & (1 << (slot & 7))) !== 0, { bitmap });
const allowedSlots = (allowed: unknown, n: number): number[] =>
  Array.from({ length: n }, (_, s) => s).filter((s) =>
    allowed instanceof Uint8Array ? (allowed[s >> 3] & (1 << (s & 7))) !== 0 : (allowed as (s: number) => boolean)(s),
  );

describe(SlotMap.name, () => {
  it('should hand a point bitmap over as it is while point and engine slots coincide', () => {
    const map = new SlotMap();
    for (let slot = 0; slot < 10; slot++) map.link(slot, slot);
    const bitmap = bits(1, 4, 9);
    expect(map.engineFilter(withBitmap(bitmap))).toBe(bitmap);
    expect(SlotMap.from(map.toJSON()).engineFilter(withBitmap(bitmap))).toBe(bitmap);
  });

  it('should translate any point bitmap as the slot-by-slot mapping does', () => {
    const map = new SlotMap();
    let state = 7;
    const random = () => (state = (state * 1103515245 + 12345) % 2147483648) / 2147483648;
    const pointSlots = Array.from({ length: 300 }, (_, i) => i).filter(() => random() < 0.8);
    pointSlots.forEach((pointSlot, i) => map.link(pointSlot, (i * 7) % pointSlots.length));
    const bitmap = new Uint8Array(40);
    for (let slot = 0; slot < 320; slot++) if (random() < 0.3) bitmap[slot >> 3] |= 1 << (slot & 7);
    const passes = (slot: number) => (bitmap[slot >> 3] & (1 << (slot & 7))) !== 0;
    const expected = Array.from({ length: 300 }, (_, e) => e).filter((e) => {
      const p = map.pointSlot(e);
      return p >= 0 && passes(p);
    });
    expect(allowedSlots(map.engineFilter(withBitmap(bitmap)), 300)).toEqual(expected);
  });

  it('should translate a point bitmap to engine slots once they differ', () => {
    const map = new SlotMap();
    map.link(0, 0);
    map.link(5, 1);
    map.link(7, 2);
    const filter = map.engineFilter(withBitmap(bits(0, 7)));
    expect(allowedSlots(filter, 8)).toEqual([0, 2]);
    expect(allowedSlots(SlotMap.from(map.toJSON()).engineFilter(withBitmap(bits(5))), 8)).toEqual([1]);
    expect(
      allowedSlots(
        map.engineFilter((slot) => slot === 5),
        8,
      ),
    ).toEqual([1]);
  });
});
