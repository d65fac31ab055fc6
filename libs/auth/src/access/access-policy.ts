import { DomainError } from '@vectorstore/common';
import { AccessLevel, grants, RequiredAccess } from './access.model';
import { MANAGE_OPERATIONS } from './manage-operations';

/** What a handler declares, as read from its decorators, plus the RPC it serves (gRPC only). */
export interface HandlerAccessDeclaration {
  isPublic: boolean;
  declared?: RequiredAccess;
  /** `Service/Method` names the handler serves. */
  operations?: readonly string[];
}

export type AccessRequirement = 'public' | RequiredAccess;

/**
 * The one place deciding what a handler needs: public when marked so; otherwise the stronger of
 * the declared level and the fallback write list; `read` when nothing is declared.
 */
export function requiredAccess(declaration: HandlerAccessDeclaration): AccessRequirement {
  if (declaration.isPublic) return 'public';
  if (declaration.declared === 'manage') return 'manage';
  if (declaration.operations?.some((operation) => MANAGE_OPERATIONS.has(operation))) return 'manage';
  return 'read';
}

/** Throws PermissionDenied, in Qdrant's wording, when `level` does not cover `required`. */
export function assertAccess(level: AccessLevel, required: RequiredAccess): void {
  if (!grants(level, required)) {
    throw DomainError.permissionDenied('Forbidden: Global manage access is required');
  }
}
