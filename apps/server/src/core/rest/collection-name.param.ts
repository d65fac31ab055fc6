import { Injectable, Param, PipeTransform } from '@nestjs/common';
import { validateCollectionName } from '@vectorstore/collections';

/** Checks `{collection_name}` by the domain's rules for a name that may exist; errors say `in path parameters`. */
@Injectable()
export class CollectionNamePipe implements PipeTransform<string, string> {
  transform(name: string): string {
    validateCollectionName(name, 'reference', 'path');
    return name;
  }
}

/** As {@link CollectionNamePipe}, with the stricter rules of a collection being created. */
@Injectable()
export class NewCollectionNamePipe implements PipeTransform<string, string> {
  transform(name: string): string {
    validateCollectionName(name, 'new', 'path');
    return name;
  }
}

/**
 * The `{collection_name}` path parameter, checked before the body is read, as Qdrant validates its
 * path first: a broken rule is 422 `Validation error in path parameters: [collection_name: …]`.
 */
export const CollectionNameParam = (): ParameterDecorator => Param('collection_name', CollectionNamePipe);

/** The `{collection_name}` of a collection being created (`PUT /collections/{collection_name}`). */
export const NewCollectionNameParam = (): ParameterDecorator => Param('collection_name', NewCollectionNamePipe);
