/** Qdrant's global access levels as they appear in the JWT `access` claim: `r` reads, `m` manages (reads and writes). */
export type AccessLevel = 'r' | 'm';

/** Qdrant's access to one collection: `r` reads it, `rw` also writes its points, payload indexes and snapshots. */
export type CollectionAccessMode = 'r' | 'rw';

export interface CollectionGrant {
  collection: string;
  access: CollectionAccessMode;
}

/**
 * What a credential may do, Qdrant's JWT RBAC form (the `access` claim): global (`r`, `m`), or a list of named
 * collections, each read or read-write (then anything global, creating collections included, is refused).
 */
export type Access = AccessLevel | readonly CollectionGrant[];

export function isCollectionAccessMode(value: unknown): value is CollectionAccessMode {
  return value === 'r' || value === 'rw';
}

/** A valid `access` claim: a global level, or a list of grants of distinct collections (non-empty names). */
export function isAccess(value: unknown): value is Access {
  if (isAccessLevel(value)) return true;
  if (!Array.isArray(value)) return false;
  const names = new Set<string>();
  for (const entry of value as unknown[]) {
    if (typeof entry !== 'object' || entry === null) return false;
    const { collection, access, ...rest } = entry as Record<string, unknown>;
    if (typeof collection !== 'string' || collection === '' || !isCollectionAccessMode(access)) return false;
    // Qdrant's deprecated per-collection `payload` (and anything else) makes the claim invalid.
    if (Object.keys(rest).length > 0 || names.has(collection)) return false;
    names.add(collection);
  }
  return true;
}

/** What a user may do now: its collection grants when it has some, else its role's global level. */
export function accessOfUser(user: { role: Role; collections?: readonly CollectionGrant[] }): Access {
  return user.collections && user.collections.length > 0 ? user.collections : accessOfRole(user.role);
}

/**
 * The narrower of two accesses: a token never grants more than its user may do now. Global with global is the
 * weaker level; a list with `m` is the list; a list with `r` is the list read-only; two lists keep the collections
 * in both, each at the weaker mode.
 */
export function narrowerAccess(a: Access, b: Access): Access {
  if (typeof a === 'string' && typeof b === 'string') return weakerAccess(a, b);
  if (typeof a === 'string') return narrowerAccess(b, a);
  if (typeof b === 'string')
    return b === 'm' ? a : a.map((grant) => ({ collection: grant.collection, access: 'r' as const }));
  return a.flatMap((grant) => {
    const other = b.find((candidate) => candidate.collection === grant.collection);
    if (!other) return [];
    return [
      { collection: grant.collection, access: grant.access === 'rw' && other.access === 'rw' ? 'rw' : 'r' } as const,
    ];
  });
}

/** What an operation needs: `read` is satisfied by `r` or `m`, `manage` only by `m`. */
export type RequiredAccess = 'read' | 'manage';

/**
 * What an operation needs, as Qdrant's `AccessRequirements`: `global` operations need a global level (`manage`:
 * `m`); `collection` ones act on the collection the request names (`write`: `rw` or `m`; `extras`: snapshots,
 * indexes, cluster info; `manage`: only `m`); `list` ones are open to every credential, their answer filtered to
 * the granted collections; `any` needs only a verified credential.
 */
export interface AccessRule {
  scope: 'global' | 'collection' | 'list' | 'any';
  write?: boolean;
  manage?: boolean;
  extras?: boolean;
}

/** User roles; `admin` maps to `m`, `reader` to `r`. */
export const ROLES = ['admin', 'reader'] as const;
export type Role = (typeof ROLES)[number];

export function isRole(value: unknown): value is Role {
  return typeof value === 'string' && (ROLES as readonly string[]).includes(value);
}

export function isAccessLevel(value: unknown): value is AccessLevel {
  return value === 'r' || value === 'm';
}

/** The access a role grants. */
export function accessOfRole(role: Role): AccessLevel {
  return role === 'admin' ? 'm' : 'r';
}

/** The weaker of two levels: a token never grants more than its user's current role. */
export function weakerAccess(a: AccessLevel, b: AccessLevel): AccessLevel {
  return a === 'm' && b === 'm' ? 'm' : 'r';
}

export function grants(level: AccessLevel, required: RequiredAccess): boolean {
  return required === 'read' || level === 'm';
}

/** Who is calling, once a credential has been verified. */
export type Principal =
  | { kind: 'user'; userId: string; email: string; access: Access; tokenId: string }
  | { kind: 'api-key'; access: AccessLevel };
