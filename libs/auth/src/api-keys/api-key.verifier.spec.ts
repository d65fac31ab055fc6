import { ApiKeyVerifier } from './api-key.verifier';

describe(ApiKeyVerifier.name, () => {
  const verifier = new ApiKeyVerifier('manage-key-0123456789', 'read-key-0123456789');

  describe('match', () => {
    it('should grant m for the API key and r for the read-only key', () => {
      expect(verifier.match('manage-key-0123456789')).toBe('m');
      expect(verifier.match('read-key-0123456789')).toBe('r');
    });

    it('should refuse anything else, prefixes and extensions included', () => {
      for (const candidate of [
        '',
        'manage-key',
        'manage-key-01234567890',
        'MANAGE-KEY-0123456789',
        'x'.repeat(10_000),
      ]) {
        expect(verifier.match(candidate)).toBeUndefined();
      }
    });

    it('should verify a key once and remember only configured keys', () => {
      const fresh = new ApiKeyVerifier('manage-key-0123456789', 'read-key-0123456789');
      const hmac = jest.spyOn(fresh as unknown as { digest(value: string): Buffer }, 'digest');
      expect(fresh.match('manage-key-0123456789')).toBe('m');
      expect(fresh.match('manage-key-0123456789')).toBe('m');
      expect(hmac).toHaveBeenCalledTimes(1);
      for (let i = 0; i < 3; i++) expect(fresh.match(`wrong-${i}`)).toBeUndefined();
      expect(fresh.match('wrong-0')).toBeUndefined();
      // Every refused candidate is checked again in constant time; none is remembered.
      expect(hmac).toHaveBeenCalledTimes(5);
    });

    it('should match nothing when no key is configured', () => {
      expect(new ApiKeyVerifier().match('')).toBeUndefined();
      expect(new ApiKeyVerifier().match('anything')).toBeUndefined();
    });

    it('should give manage when both keys are equal', () => {
      expect(new ApiKeyVerifier('same-key-0123456789', 'same-key-0123456789').match('same-key-0123456789')).toBe('m');
    });
  });
});
