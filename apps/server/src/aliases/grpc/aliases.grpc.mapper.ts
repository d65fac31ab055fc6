import { AliasAction } from '@vectorstore/collections';
import { ValidationIssues } from '@vectorstore/common';
import type { ChangeAliases__Output } from '../../grpc/generated/vectorstore/ChangeAliases';
import { readU64 } from '../../core/scalars';

export function aliasActionsFromProto(r: ChangeAliases__Output): { actions: AliasAction[]; timeout?: number } {
  const issues = new ValidationIssues();
  const actions: AliasAction[] = [];
  (r.actions ?? []).forEach((op, i) => {
    if (op.action === 'createAlias') {
      actions.push({
        createAlias: {
          collectionName: op.createAlias?.collectionName ?? '',
          aliasName: op.createAlias?.aliasName ?? '',
        },
      });
    } else if (op.action === 'renameAlias') {
      actions.push({
        renameAlias: {
          oldAliasName: op.renameAlias?.oldAliasName ?? '',
          newAliasName: op.renameAlias?.newAliasName ?? '',
        },
      });
    } else if (op.action === 'deleteAlias') {
      actions.push({ deleteAlias: { aliasName: op.deleteAlias?.aliasName ?? '' } });
    } else {
      issues.add(`actions[${i}]`, 'Malformed AliasOperation type: set create_alias, rename_alias or delete_alias');
    }
  });
  const timeout = readU64(issues, 'timeout', r.timeout);
  issues.throwIfAny();
  return { actions, timeout };
}
