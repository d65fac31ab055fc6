import { request } from './http';

/**
 * The users API (`/api/auth/users`, administrators only: the server answers 403 to readers and to users whose access
 * is a list of collection grants). The dashboard checks nothing itself: the server decides (docs/auth.md).
 */

export type Role = 'admin' | 'reader';
/** Read, or read and write, on one collection (Qdrant's per-collection access). */
export type Access = 'r' | 'rw';

export interface CollectionGrant {
  collection: string;
  access: Access;
}

/** A user as `/api/auth/users` shows it; `collections` only for a reader limited to named collections. */
export interface Account {
  id: string;
  email: string;
  full_name: string | null;
  role: Role;
  collections?: CollectionGrant[];
  is_active: boolean;
  created_at: string;
}

export interface NewAccount {
  email: string;
  password: string;
  role: Role;
  full_name: string | null;
  collections?: CollectionGrant[];
}

/** What a `PATCH` may change; `collections` replaces the grants (`[]`: none, the role's global access again). */
export interface AccountChanges {
  role?: Role;
  is_active?: boolean;
  password?: string;
  full_name?: string | null;
  collections?: CollectionGrant[];
}

const USERS = '/api/auth/users';

export async function listAccounts(): Promise<Account[]> {
  return (await request<{ users: Account[] }>('GET', USERS)).users;
}

export function createAccount(account: NewAccount): Promise<Account> {
  return request<Account>('POST', USERS, account);
}

export function updateAccount(id: string, changes: AccountChanges): Promise<Account> {
  return request<Account>('PATCH', `${USERS}/${encodeURIComponent(id)}`, changes);
}

/** The collection names a grant may name: those the server lists to this administrator. */
export async function listCollectionNames(): Promise<string[]> {
  const { collections } = await request<{ collections: { name: string }[] }>('GET', '/collections');
  return collections.map((c) => c.name).sort();
}
