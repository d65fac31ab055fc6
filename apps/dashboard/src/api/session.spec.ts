import { refreshDelayMs, secondsLeft } from './session';

function jwtWith(claims: Record<string, unknown>): string {
  const part = (value: unknown): string => btoa(JSON.stringify(value)).replace(/=+$/, '');
  return `${part({ alg: 'HS256' })}.${part(claims)}.signature`;
}

describe('session', () => {
  describe(secondsLeft.name, () => {
    it('should read the seconds until exp', () => {
      expect(secondsLeft(jwtWith({ exp: 1000 }), 100_000)).toBe(900);
    });

    it('should answer 0 for anything that is not a JWT with exp', () => {
      expect(secondsLeft('nope')).toBe(0);
      expect(secondsLeft(jwtWith({ sub: 'x' }))).toBe(0);
    });
  });

  describe(refreshDelayMs.name, () => {
    it('should renew a minute before a 15-minute token expires', () => {
      expect(refreshDelayMs(900)).toBe(840_000);
    });

    it('should renew short tokens at four fifths of their life, and never sooner than in a second', () => {
      expect(refreshDelayMs(10)).toBe(8000);
      expect(refreshDelayMs(0)).toBe(1000);
      expect(refreshDelayMs(-5)).toBe(1000);
    });
  });
});
