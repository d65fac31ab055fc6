import { ArgumentMetadata, Injectable, Param, PipeTransform } from '@nestjs/common';
import { validateCollectionName } from '@vectorstore/collections';

/** The path parameter every collection route names its collection by. */
export const COLLECTION_NAME_PARAM = 'collection_name';

/**
 * Applied to every REST route (by `HttpController`): a `{collection_name}` path parameter is checked by the
 * domain's rules for a name that may exist before the handler reads the body, as Qdrant validates
 * its path first, and a broken rule is 422 `Validation error in path parameters: [collection_name: …]`.
 * Other parameters pass through.
 */
@Injectable()
export class CollectionNamePathPipe implements PipeTransform<unknown, unknown> {
  transform(value: unknown, metadata: ArgumentMetadata): unknown {
    if (metadata.type === 'param' && metadata.data === COLLECTION_NAME_PARAM && typeof value === 'string') {
      validateCollectionName(value, 'reference', 'path');
    }
    return value;
  }
}

/** The stricter rules of a collection being created, after the global check. */
@Injectable()
export class NewCollectionNamePipe implements PipeTransform<string, string> {
  transform(name: string): string {
    validateCollectionName(name, 'new', 'path');
    return name;
  }
}

/** The `{collection_name}` of a collection being created (`PUT /collections/{collection_name}`). */
export const NewCollectionNameParam = (): ParameterDecorator => Param(COLLECTION_NAME_PARAM, NewCollectionNamePipe);
