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

    it('should match nothing when no key is configured', () => {
      expect(new ApiKeyVerifier().match('')).toBeUndefined();
      expect(new ApiKeyVerifier().match('anything')).toBeUndefined();
    });

    it('should give manage when both keys are equal', () => {
      expect(new ApiKeyVerifier('same-key-0123456789', 'same-key-0123456789').match('same-key-0123456789')).toBe('m');
    });
  });
});
