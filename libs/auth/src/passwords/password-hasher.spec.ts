import { PasswordHasher } from './password-hasher';

describe(PasswordHasher.name, () => {
  const hasher = new PasswordHasher();

  describe('hash', () => {
    it('should produce an argon2id hash with OWASP parameters and a random salt', async () => {
      const first = await hasher.hash('correct horse');
      expect(first).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
      expect(await hasher.hash('correct horse')).not.toBe(first);
    });
  });

  describe('verify', () => {
    it('should accept the password and refuse others', async () => {
      const hash = await hasher.hash('correct horse');
      expect(await hasher.verify(hash, 'correct horse')).toBe(true);
      expect(await hasher.verify(hash, 'correct horse ')).toBe(false);
    });

    it('should answer false, not throw, for an unreadable hash', async () => {
      expect(await hasher.verify('not-a-hash', 'x')).toBe(false);
    });
  });

  describe('verifyDummy', () => {
    it('should always be false', async () => {
      expect(await hasher.verifyDummy('anything')).toBe(false);
    });
  });
});
