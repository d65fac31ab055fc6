import { Injectable } from '@nestjs/common';
import { DomainError, ValidationIssues } from '@vectorstore/common';
import { CatalogState } from './catalog/catalog-state';
import { CollectionCatalog, collectionNotFound } from './catalog/collection-catalog';
import { AliasAction, AliasDescription } from './model/requests.model';
import { checkAliasName, checkCollectionNameReference } from './validation/name.rules';

/**
 * Alias changes. A batch is all-or-nothing: Qdrant keeps the actions before a failing one, but a
 * half-applied rename set is never what a client wants, so we apply every action or none.
 */
@Injectable()
export class AliasesService {
  constructor(private readonly catalog: CollectionCatalog) {}

  async update(actions: AliasAction[], timeout?: number): Promise<boolean> {
    validateActions(actions, timeout);
    await this.catalog.mutate((draft) => {
      for (const action of actions) applyAction(draft, action);
    });
    return true;
  }

  /** Every alias; with `visible` (per-collection access), only those of collections the caller may see. */
  list(visible?: ReadonlySet<string>): AliasDescription[] {
    return [...this.catalog.snapshot.aliases]
      .filter(([, collectionName]) => !visible || visible.has(collectionName))
      .map(([aliasName, collectionName]) => ({ aliasName, collectionName }))
      .sort((a, b) => (a.aliasName < b.aliasName ? -1 : a.aliasName > b.aliasName ? 1 : 0));
  }

  /** Aliases of one collection; an unknown collection simply has none. */
  listFor(collectionName: string): AliasDescription[] {
    const issues = new ValidationIssues();
    checkCollectionNameReference(issues, 'collection_name', collectionName);
    issues.throwIfAny();
    return this.list().filter((alias) => alias.collectionName === collectionName);
  }
}

function validateActions(actions: AliasAction[], timeout: number | undefined): void {
  const issues = new ValidationIssues();
  issues.range('timeout', timeout, 1);
  actions.forEach((action, i) => {
    const path = `actions[${i}]`;
    if ('createAlias' in action) {
      checkCollectionNameReference(issues, `${path}.create_alias.collection_name`, action.createAlias.collectionName);
      checkAliasName(issues, `${path}.create_alias.alias_name`, action.createAlias.aliasName);
    } else if ('renameAlias' in action) {
      checkAliasName(issues, `${path}.rename_alias.old_alias_name`, action.renameAlias.oldAliasName);
      checkAliasName(issues, `${path}.rename_alias.new_alias_name`, action.renameAlias.newAliasName);
    } else {
      checkAliasName(issues, `${path}.delete_alias.alias_name`, action.deleteAlias.aliasName);
    }
  });
  issues.throwIfAny();
}

function applyAction(draft: CatalogState, action: AliasAction): void {
  if ('createAlias' in action) {
    const { collectionName, aliasName } = action.createAlias;
    if (!draft.collections.has(collectionName)) throw collectionNotFound(collectionName);
    assertNotCollection(draft, aliasName);
    // An existing alias is re-pointed: creation is a map insert, as in Qdrant.
    draft.aliases.set(aliasName, collectionName);
  } else if ('renameAlias' in action) {
    const { oldAliasName, newAliasName } = action.renameAlias;
    const target = draft.aliases.get(oldAliasName);
    if (target === undefined) throw DomainError.notFound(`Not found: Alias ${oldAliasName} does not exists!`);
    assertNotCollection(draft, newAliasName);
    draft.aliases.delete(oldAliasName);
    draft.aliases.set(newAliasName, target);
  } else {
    // Deleting an alias that does not exist succeeds, as in Qdrant.
    draft.aliases.delete(action.deleteAlias.aliasName);
  }
}

function assertNotCollection(draft: CatalogState, aliasName: string): void {
  if (draft.collections.has(aliasName)) {
    throw DomainError.alreadyExists(`Wrong input: Collection \`${aliasName}\` already exists!`);
  }
}
