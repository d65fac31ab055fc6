import type { Account, CollectionGrant } from '../api/users';
import { fieldOfMessage } from './format';

/**
 * Where the users API's messages belong on a user form: the field a validation message names (`email: …`,
 * `password: …`, `collections.0.access: …`), a taken email (409) at the email, the grant rules (grants are for
 * readers, a collection granted twice) at the grants; else the form as a whole (the 412 of the last active admin).
 */
export function accountFieldOf(
  message: string,
): 'email' | 'password' | 'full_name' | 'role' | 'collections' | undefined {
  return fieldOfMessage(message, {
    email: ['email:', 'already exists'],
    password: ['password:', 'Password '],
    full_name: ['full_name:'],
    role: ['role:'],
    collections: ['collections', 'collection grant', 'granted twice', 'access to collection'],
  }) as ReturnType<typeof accountFieldOf>;
}

/** What a user may reach when it is not a list of grants: an admin everything, a reader without grants every collection. */
export function accessSummary(account: Pick<Account, 'role' | 'collections'>): string | undefined {
  if (account.role === 'admin') return 'every collection (manage)';
  return account.collections && account.collections.length > 0 ? undefined : 'every collection (read)';
}

/** The collections a grant could still name: those listed and not granted yet, in order. */
export function grantable(collections: readonly string[], grants: readonly CollectionGrant[]): string[] {
  const granted = new Set(grants.map((grant) => grant.collection));
  return collections.filter((name) => !granted.has(name));
}

/** `2026-11-28T17:46:34.123Z` as `2026-11-28 17:46 UTC`; anything else as it came. */
export function shortTime(iso: string): string {
  return /^\d{4}-\d\d-\d\dT\d\d:\d\d/.test(iso) && iso.endsWith('Z')
    ? `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`
    : iso;
}
