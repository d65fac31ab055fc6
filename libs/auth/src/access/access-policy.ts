import { DomainError } from '@vectorstore/common';
import { Access, AccessRule, CollectionGrant } from './access.model';
import { isOperationName, OPERATION_ACCESS } from './operations';

/** What a handler declares, as read from its decorators by a transport's guard. */
export interface HandlerAccessDeclaration {
  isPublic: boolean;
  /** The `@Operation` name, if any. */
  operation?: unknown;
}

export type AccessRequirement = 'public' | AccessRule;

/** A handler without a known operation fails closed: global manage. */
const FAIL_CLOSED: AccessRule = { scope: 'global', manage: true };

/**
 * The one place deciding what a handler needs: public when marked so; otherwise the rule of its
 * operation. A handler without a known operation fails closed: it needs global manage access.
 */
export function requiredAccess(declaration: HandlerAccessDeclaration): AccessRequirement {
  if (declaration.isPublic) return 'public';
  return isOperationName(declaration.operation) ? OPERATION_ACCESS[declaration.operation] : FAIL_CLOSED;
}

/** Whether `rule` needs to know which collections a request names (only with per-collection access). */
export function needsCollections(access: Access, rule: AccessRule): boolean {
  return typeof access !== 'string' && rule.scope === 'collection';
}

/**
 * A collection a request names, as asked (a collection or an alias) and the collection it stands for: grants are
 * checked on the collection, refusals name what was asked, so that probing a name tells nothing of what is
 * behind it (an alias of a collection the caller may not see).
 */
export interface NamedCollection {
  asked: string;
  collection: string;
}

/**
 * Throws PermissionDenied, in Qdrant's words (`lib/storage/src/rbac/mod.rs`), unless `access` meets `rule` for
 * every collection in `collections` (the names a collection-scoped request acts on, aliases resolved).
 */
export function checkAccess(
  access: Access,
  rule: AccessRule,
  collections: ReadonlyArray<string | NamedCollection> = [],
): void {
  if (rule.scope === 'any' || rule.scope === 'list') return;
  if (typeof access === 'string') {
    if ((rule.write || rule.manage) && access !== 'm')
      throw DomainError.permissionDenied('Forbidden: Global manage access is required');
    return;
  }
  if (rule.scope === 'global') throw DomainError.permissionDenied('Forbidden: Global access is required');
  if (collections.length === 0)
    throw DomainError.permissionDenied('Forbidden: Access to a named collection is required');
  for (const named of collections) {
    const { asked, collection } = typeof named === 'string' ? { asked: named, collection: named } : named;
    checkGrant(grantOf(access, collection, asked), rule, asked);
  }
}

function grantOf(grants: readonly CollectionGrant[], collection: string, asked: string): CollectionGrant {
  const grant = grants.find((candidate) => candidate.collection === collection);
  if (!grant) throw DomainError.permissionDenied(`Forbidden: Access to collection ${asked} is required`);
  return grant;
}

function checkGrant(grant: CollectionGrant, rule: AccessRule, name: string): void {
  if (rule.write && grant.access === 'r')
    throw DomainError.permissionDenied(`Forbidden: Write access to collection ${name} is required`);
  if (rule.manage) throw DomainError.permissionDenied('Forbidden: Manage access for this operation is required');
}

/** The collections a list answer may show: all (undefined) for global access, else the granted ones. */
export function visibleCollections(access: Access): ReadonlySet<string> | undefined {
  return typeof access === 'string' ? undefined : new Set(access.map((grant) => grant.collection));
}

/** The global level a rule needs: what a read-only key or an `r` token can do is `read`. */
export function globalLevelNeeded(rule: AccessRule): 'read' | 'manage' {
  return rule.write || rule.manage ? 'manage' : 'read';
}

/** Kept for callers that only know global levels: `read` or `manage`. */
export function assertAccess(access: Access, required: 'read' | 'manage'): void {
  checkAccess(access, required === 'manage' ? FAIL_CLOSED : { scope: 'global' });
}
