import { accessSummary, accountFieldOf, grantable, shortTime } from './accounts';

describe('accounts', () => {
  describe(accountFieldOf.name, () => {
    it('should place validation messages at the field they name', () => {
      expect(accountFieldOf('Validation error in body: [email: must be a valid email address]')).toBe('email');
      expect(accountFieldOf('Validation error in body: [password: must be at least 12 characters]')).toBe('password');
      expect(accountFieldOf('Validation error in body: [full_name: must be at most 200 characters]')).toBe('full_name');
      expect(accountFieldOf('Validation error in body: [role: must be one of admin, reader]')).toBe('role');
      expect(accountFieldOf('Validation error in body: [collections.0.access: must be one of r, rw]')).toBe(
        'collections',
      );
    });

    it('should place the server rules at their field', () => {
      expect(accountFieldOf('User ann@example.com already exists')).toBe('email');
      expect(accountFieldOf('Password must be 12 to 1024 characters long')).toBe('password');
      expect(accountFieldOf('Bad request: an admin has global manage access; collection grants are for readers')).toBe(
        'collections',
      );
      expect(accountFieldOf('Bad request: collection a is granted twice')).toBe('collections');
    });

    it('should leave other messages to the form', () => {
      expect(
        accountFieldOf(
          'Failed precondition: admin@example.com is the last active admin; make another user admin first',
        ),
      ).toBeUndefined();
      expect(accountFieldOf('Not found: User x does not exist')).toBeUndefined();
    });
  });

  describe(accessSummary.name, () => {
    it('should say what a user without grants may reach', () => {
      expect(accessSummary({ role: 'admin' })).toBe('every collection (manage)');
      expect(accessSummary({ role: 'reader' })).toBe('every collection (read)');
      expect(accessSummary({ role: 'reader', collections: [] })).toBe('every collection (read)');
      expect(accessSummary({ role: 'reader', collections: [{ collection: 'a', access: 'r' }] })).toBeUndefined();
    });
  });

  describe(grantable.name, () => {
    it('should offer the collections not granted yet', () => {
      expect(grantable(['a', 'b', 'c'], [{ collection: 'b', access: 'rw' }])).toEqual(['a', 'c']);
      expect(grantable([], [])).toEqual([]);
    });
  });

  describe(shortTime.name, () => {
    it('should shorten an ISO time and keep anything else', () => {
      expect(shortTime('2026-11-28T17:46:34.123Z')).toBe('2026-11-28 17:46 UTC');
      expect(shortTime('yesterday')).toBe('yesterday');
    });
  });
});
