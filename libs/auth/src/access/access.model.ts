/**
 * Qdrant's global access levels as they appear in the JWT `access` claim: `r` reads, `m` manages
 * (reads and writes). Per-collection entries (`[{collection, access}]`) can be added later
 * without changing the claim's name.
 */
export type AccessLevel = 'r' | 'm';

/** What an operation needs: `read` is satisfied by `r` or `m`, `manage` only by `m`. */
export type RequiredAccess = 'read' | 'manage';

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
  | { kind: 'user'; userId: string; email: string; access: AccessLevel; tokenId: string }
  | { kind: 'api-key'; access: AccessLevel };
