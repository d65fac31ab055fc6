import { Arena } from './arena';
import { instantiateEngine } from './loader';
import { H } from './layout';

describe(Arena.name, () => {
  describe('resize', () => {
    it('should keep region contents, zero new bytes and publish addresses when regions move', () => {
      const arena = new Arena(instantiateEngine());
      arena.resize({ QUERY: 64, L0: 128, UPPER: 64 });
      arena.views.u8.fill(7, arena.offset('L0'), arena.offset('L0') + 128);
      arena.views.u8.fill(9, arena.offset('UPPER'), arena.offset('UPPER') + 64);
      const before = arena.views.u8.buffer;
      arena.resize({ QUERY: 64 * 1024 * 1024, L0: 256 }); // forces memory growth and moves
      expect(arena.views.u8.buffer).not.toBe(before);
      const l0 = arena.offset('L0');
      expect(arena.get(H.L0)).toBe(l0);
      expect(Array.from(arena.views.u8.subarray(l0, l0 + 128)).every((b) => b === 7)).toBe(true);
      expect(Array.from(arena.views.u8.subarray(l0 + 128, l0 + 256)).every((b) => b === 0)).toBe(true);
      const up = arena.offset('UPPER');
      expect(Array.from(arena.views.u8.subarray(up, up + 64)).every((b) => b === 9)).toBe(true);
    });

    it('should never shrink a region', () => {
      const arena = new Arena(instantiateEngine());
      arena.resize({ VEC: 1024 });
      arena.resize({ VEC: 64 });
      expect(arena.size('VEC')).toBe(1024);
    });
  });
});
