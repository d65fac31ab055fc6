import { DomainError } from '@vectorstore/common';
import { randomBytes, randomUUID } from 'node:crypto';
import { CollectionGrant, isCollectionAccessMode, isRole, Role } from '../access/access.model';
import { MAX_PASSWORD_LENGTH, PasswordHasher } from '../passwords/password-hasher';
import { isValidEmail, normalizeEmail } from './email';
import { PublicUser, toPublicUser, UserRecord } from './user.model';
import type { UserStore } from './user-store';

/** What an administrator may change of a user (the users API). */
export interface UserChanges {
  role?: Role;
  isActive?: boolean;
  password?: string;
  fullName?: string | null;
  /** The user's collection grants, replaced; empty: back to the role's global access. */
  collections?: CollectionGrant[];
}

/** Passwords an administrator sets (CLI, first admin) must be at least this long. */
export const MIN_ADMIN_SET_PASSWORD_LENGTH = 12;

export interface NewUser {
  email: string;
  password: string;
  role: Role;
  fullName?: string | null;
  /** Read or read-write on named collections instead of the role's global access (readers only). */
  collections?: CollectionGrant[];
}

/** User management for the CLI and the first-admin bootstrap; every change is one locked write. */
export class UserAdminService {
  constructor(
    private readonly store: UserStore,
    private readonly hasher: PasswordHasher,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async add(input: NewUser): Promise<PublicUser> {
    const email = checkEmail(input.email);
    checkRole(input.role);
    const collections = checkGrants(input.collections ?? [], input.role);
    const passwordHash = await this.hasher.hash(checkPassword(input.password));
    return this.store.update((users) => {
      if (users.some((user) => user.email === email)) throw DomainError.alreadyExists(`User ${email} already exists`);
      const created = this.newRecord(email, passwordHash, input.role, input.fullName ?? null);
      if (collections.length > 0) created.collections = collections;
      users.push(created);
      return toPublicUser(created);
    });
  }

  /** Gives `email` read (`r`) or read-write (`rw`) on `collection` (the CLI's `grant`), keeping its other grants. */
  grant(email: string, grant: CollectionGrant): Promise<PublicUser> {
    return this.change(email, (user) => {
      const others = (user.collections ?? []).filter((existing) => existing.collection !== grant.collection);
      user.collections = checkGrants([...others, grant], user.role);
    });
  }

  /** Takes `collection` off `email`'s grants; without grants left the user has its role's global access again. */
  revoke(email: string, collection: string): Promise<PublicUser> {
    return this.change(email, (user) => {
      const left = (user.collections ?? []).filter((existing) => existing.collection !== collection);
      if (left.length > 0) user.collections = left;
      else delete user.collections;
    });
  }

  /** Creates the first admin only when no user exists yet; returns undefined otherwise. */
  async addFirstAdmin(email: string, password: string): Promise<PublicUser | undefined> {
    const normalized = checkEmail(email);
    const passwordHash = await this.hasher.hash(checkPassword(password));
    return this.store.update((users) => {
      if (users.length > 0) return undefined;
      const created = this.newRecord(normalized, passwordHash, 'admin', null);
      users.push(created);
      return toPublicUser(created);
    });
  }

  /** An admin has global manage access: making a user admin drops its collection grants. */
  setRole(email: string, role: Role): Promise<PublicUser> {
    checkRole(role);
    return this.change(email, (user, users) => {
      keepAnActiveAdmin(users, user, role === 'admin' && user.isActive);
      user.role = role;
      if (role === 'admin') delete user.collections;
    });
  }

  /** Deactivating also ends every session the user has. */
  setActive(email: string, isActive: boolean): Promise<PublicUser> {
    return this.change(email, (user, users) => {
      keepAnActiveAdmin(users, user, user.role === 'admin' && isActive);
      if (user.isActive && !isActive) user.tokenVersion += 1;
      user.isActive = isActive;
    });
  }

  /** A new password ends every session the user has. */
  async resetPassword(email: string, password: string): Promise<PublicUser> {
    const passwordHash = await this.hasher.hash(checkPassword(password));
    return this.change(email, (user) => {
      user.passwordHash = passwordHash;
      user.tokenVersion += 1;
    });
  }

  /**
   * Changes one user found by id (the users API): any of role, active, password, full name. A new password or a
   * deactivation ends the user's sessions. The last active admin cannot be demoted or deactivated: nobody could
   * manage users any more.
   */
  async updateById(id: string, changes: UserChanges): Promise<PublicUser> {
    if (changes.role !== undefined) checkRole(changes.role);
    // Anything but a boolean (a null from a transport) would count as unchanged in the last-admin guard below and
    // as inactive everywhere else.
    if (changes.isActive !== undefined && typeof changes.isActive !== 'boolean')
      throw DomainError.invalidArgument('Bad request: is_active must be true or false');
    if (changes.collections !== undefined) checkGrants(changes.collections, changes.role ?? 'reader');
    const passwordHash =
      changes.password === undefined ? undefined : await this.hasher.hash(checkPassword(changes.password));
    return this.store.update((users) => {
      const user = users.find((candidate) => candidate.id === id);
      if (!user) throw DomainError.notFound(`Not found: User ${id} doesn't exist`);
      keepAnActiveAdmin(users, user, (changes.role ?? user.role) === 'admin' && (changes.isActive ?? user.isActive));
      if (changes.role !== undefined) {
        user.role = changes.role;
        if (changes.role === 'admin') delete user.collections;
      }
      if (changes.collections !== undefined) {
        const grants = checkGrants(changes.collections, user.role);
        if (grants.length > 0) user.collections = grants;
        else delete user.collections;
      }
      if (changes.fullName !== undefined) user.fullName = changes.fullName;
      if (changes.isActive !== undefined) {
        if (user.isActive && !changes.isActive) user.tokenVersion += 1;
        user.isActive = changes.isActive;
      }
      if (passwordHash !== undefined) {
        user.passwordHash = passwordHash;
        user.tokenVersion += 1;
      }
      user.updatedAt = this.now().toISOString();
      return toPublicUser(user);
    });
  }

  async list(): Promise<PublicUser[]> {
    return (await this.store.list()).map(toPublicUser).sort((a, b) => a.created_at.localeCompare(b.created_at));
  }

  private change(email: string, apply: (user: UserRecord, users: UserRecord[]) => void): Promise<PublicUser> {
    const normalized = normalizeEmail(email);
    return this.store.update((users) => {
      const user = users.find((candidate) => candidate.email === normalized);
      if (!user) throw DomainError.notFound(`User ${normalized} doesn't exist`);
      apply(user, users);
      user.updatedAt = this.now().toISOString();
      return toPublicUser(user);
    });
  }

  private newRecord(email: string, passwordHash: string, role: Role, fullName: string | null): UserRecord {
    const now = this.now().toISOString();
    return {
      id: randomUUID(),
      email,
      fullName,
      role,
      isActive: true,
      passwordHash,
      tokenVersion: 0,
      createdAt: now,
      updatedAt: now,
    };
  }
}

/**
 * The last active admin cannot be demoted or deactivated, by the users API or the CLI: nobody could manage users
 * any more. `stillAdmin`: whether `user` is an active admin after the change.
 */
function keepAnActiveAdmin(users: readonly UserRecord[], user: UserRecord, stillAdmin: boolean): void {
  if (
    user.role === 'admin' &&
    user.isActive &&
    !stillAdmin &&
    !users.some((other) => other !== user && other.role === 'admin' && other.isActive)
  )
    throw DomainError.failedPrecondition(
      `Failed precondition: ${user.email} is the last active admin; make another user admin first`,
    );
}

/** A strong password for the generated first admin: 24 random bytes, base64url (192 bits). */
export function generatePassword(): string {
  return randomBytes(24).toString('base64url');
}

function checkEmail(email: string): string {
  const normalized = normalizeEmail(email);
  if (!isValidEmail(normalized)) throw DomainError.invalidArgument(`Invalid email address: ${JSON.stringify(email)}`);
  return normalized;
}

function checkRole(role: unknown): void {
  if (!isRole(role)) throw DomainError.invalidArgument(`Invalid role ${JSON.stringify(role)}: must be admin or reader`);
}

/** Grants are for readers (an admin can do everything), one per collection, each `r` or `rw`. */
function checkGrants(grants: readonly CollectionGrant[], role: Role): CollectionGrant[] {
  if (!Array.isArray(grants))
    throw DomainError.invalidArgument('Bad request: collection grants must be a list of {collection, access}');
  if (grants.length === 0) return [];
  if (role === 'admin')
    throw DomainError.invalidArgument(
      'Bad request: an admin has global manage access; collection grants are for readers',
    );
  const seen = new Set<string>();
  return grants.map((grant) => {
    if (typeof grant.collection !== 'string' || grant.collection.trim() === '')
      throw DomainError.invalidArgument('Bad request: a collection grant names no collection');
    if (!isCollectionAccessMode(grant.access))
      throw DomainError.invalidArgument(
        `Bad request: access to collection ${grant.collection} must be r or rw, not ${JSON.stringify(grant.access)}`,
      );
    if (seen.has(grant.collection))
      throw DomainError.invalidArgument(`Bad request: collection ${grant.collection} is granted twice`);
    seen.add(grant.collection);
    return { collection: grant.collection, access: grant.access };
  });
}

function checkPassword(password: string): string {
  if (typeof password !== 'string') throw DomainError.invalidArgument('Password must be a string');
  if (password.length < MIN_ADMIN_SET_PASSWORD_LENGTH || password.length > MAX_PASSWORD_LENGTH) {
    throw DomainError.invalidArgument(
      `Password must be ${MIN_ADMIN_SET_PASSWORD_LENGTH} to ${MAX_PASSWORD_LENGTH} characters long`,
    );
  }
  return password;
}
