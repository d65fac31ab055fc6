import { AliasAction, AliasDescription } from '@vectorstore/collections';
import { bodyFormatError } from '../../core/rest/rest-format.error';
import { array, Decoder, decodeBody, object, objectValue, str } from '../../core/rest/rest-decoders';

const createAlias = object<{ collectionName: string; aliasName: string }>({ collection_name: str, alias_name: str }, [
  'collection_name',
  'alias_name',
]);
const renameAlias = object<{ oldAliasName: string; newAliasName: string }>(
  { old_alias_name: str, new_alias_name: str },
  ['old_alias_name', 'new_alias_name'],
);
const deleteAlias = object<{ aliasName: string }>({ alias_name: str }, ['alias_name']);

/** One of `{"create_alias": …}`, `{"rename_alias": …}`, `{"delete_alias": …}`. */
const aliasActionDecoder: Decoder<AliasAction> = (value, path) => {
  const input = objectValue(value, path);
  if (input.create_alias !== undefined) return { createAlias: createAlias(input.create_alias, `${path}.create_alias`) };
  if (input.rename_alias !== undefined) return { renameAlias: renameAlias(input.rename_alias, `${path}.rename_alias`) };
  if (input.delete_alias !== undefined) return { deleteAlias: deleteAlias(input.delete_alias, `${path}.delete_alias`) };
  throw bodyFormatError(path, 'data did not match any variant of untagged enum AliasOperations');
};

/** `POST /collections/aliases`. */
export function aliasActionsFromRest(body: unknown): AliasAction[] {
  return decodeBody(body, object<{ actions: AliasAction[] }>({ actions: array(aliasActionDecoder) }, ['actions']))
    .actions;
}

export function aliasesToRest(aliases: AliasDescription[]): {
  aliases: Array<{ alias_name: string; collection_name: string }>;
} {
  return { aliases: aliases.map((a) => ({ alias_name: a.aliasName, collection_name: a.collectionName })) };
}
