import { ArgumentMetadata, Injectable, Param, PipeTransform } from '@nestjs/common';
import { validateCollectionName } from '@vectorstore/collections';

/** The path parameter every collection route names its collection by. */
export const COLLECTION_NAME_PARAM = 'collection_name';

/**
 * The `{collection_name}` path parameter ({@link CollectionNameParam}) is checked by the domain's rules for a name
 * that may exist before the handler reads the body, as Qdrant validates its path first, and a broken rule is 422
 * `Validation error in path parameters: [collection_name: …]`.
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

/**
 * The `{collection_name}` of a REST route, checked (see {@link CollectionNamePathPipe}). Bound on the parameter
 * rather than on the controller: a controller's pipe runs through Nest's async pipe chain for every parameter of
 * every call, the body and query included.
 */
export const CollectionNameParam = (): ParameterDecorator => Param(COLLECTION_NAME_PARAM, CollectionNamePathPipe);

/** The `{collection_name}` of a collection being created (`PUT /collections/{collection_name}`): both checks. */
export const NewCollectionNameParam = (): ParameterDecorator =>
  Param(COLLECTION_NAME_PARAM, CollectionNamePathPipe, NewCollectionNamePipe);
