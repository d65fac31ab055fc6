import { DomainError } from '@vectorstore/common';
import { AccessLevel, grants, RequiredAccess } from './access.model';
import { isOperationName, OPERATION_ACCESS } from './operations';

/** What a handler declares, as read from its decorators by a transport's guard. */
export interface HandlerAccessDeclaration {
  isPublic: boolean;
  /** The `@Operation` name, if any. */
  operation?: unknown;
}

export type AccessRequirement = 'public' | RequiredAccess;

/**
 * The one place deciding what a handler needs: public when marked so; otherwise the access of its
 * operation. A handler without a known operation fails closed: it needs manage access.
 */
export function requiredAccess(declaration: HandlerAccessDeclaration): AccessRequirement {
  if (declaration.isPublic) return 'public';
  return isOperationName(declaration.operation) ? OPERATION_ACCESS[declaration.operation] : 'manage';
}

/** Throws PermissionDenied, in Qdrant's wording, when `level` does not cover `required`. */
export function assertAccess(level: AccessLevel, required: RequiredAccess): void {
  if (!grants(level, required)) {
    throw DomainError.permissionDenied('Forbidden: Global manage access is required');
  }
}
