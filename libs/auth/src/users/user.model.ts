import type { CollectionGrant, Role } from '../access/access.model';

/** A stored user. `passwordHash` is an argon2id PHC string and never leaves the library. */
export interface UserRecord {
  id: string;
  /** Normalised (trimmed, lower case); unique. */
  email: string;
  fullName: string | null;
  role: Role;
  /**
   * Read or read-write on named collections (Qdrant's per-collection access); when present and non-empty it is
   * all the user may do, instead of the role's global access (such a user is a `reader`).
   */
  collections?: CollectionGrant[];
  isActive: boolean;
  passwordHash: string;
  /**
   * Bumped when a password is reset or the user is deactivated; tokens carry the version they
   * were issued under, so older access and refresh tokens stop working.
   */
  tokenVersion: number;
  createdAt: string;
  updatedAt: string;
}

/** The user as the API shows it (`UserPublic`): never a hash. */
export interface PublicUser {
  id: string;
  email: string;
  full_name: string | null;
  role: Role;
  /** Only for users with collection grants. */
  collections?: CollectionGrant[];
  is_active: boolean;
  created_at: string;
}

export function toPublicUser(user: UserRecord): PublicUser {
  return {
    id: user.id,
    email: user.email,
    full_name: user.fullName,
    role: user.role,
    ...(user.collections && user.collections.length > 0
      ? { collections: user.collections.map((grant) => ({ ...grant })) }
      : {}),
    is_active: user.isActive,
    created_at: user.createdAt,
  };
}
