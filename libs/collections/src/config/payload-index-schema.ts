import { DomainError } from '@vectorstore/common';
import { PayloadIndexParams, TextIndexParams, TokenizerType } from '../model/payload-index.model';
import { PayloadSchemaType } from '../model/collection.model';

/** A text index tokenizes by words unless told otherwise (Qdrant's default). */
export const DEFAULT_TOKENIZER: TokenizerType = 'Word';

/** Index params as a request may give them: a text index may leave its tokenizer out. */
export type PayloadIndexParamsInput =
  | Exclude<PayloadIndexParams, { text: TextIndexParams }>
  | { text: Omit<TextIndexParams, 'tokenizer'> & { tokenizer?: TokenizerType } };

const SCHEMA_TYPE_OF_PARAMS: Record<string, PayloadSchemaType> = {
  keyword: 'Keyword',
  integer: 'Integer',
  float: 'Float',
  geo: 'Geo',
  text: 'Text',
  bool: 'Bool',
  datetime: 'Datetime',
  uuid: 'Uuid',
};

/** Index params with Qdrant's defaults filled in, as they are stored and reported. */
export function payloadIndexParamsWithDefaults(params: PayloadIndexParamsInput): PayloadIndexParams {
  if ('text' in params) return { text: { ...params.text, tokenizer: params.text.tokenizer ?? DEFAULT_TOKENIZER } };
  return params;
}

/**
 * The schema a field index is created with: the type given, or the one its params imply, with the
 * params' defaults filled in. Neither is Qdrant's "Can't auto-detect field type" (InvalidArgument);
 * an integer index must keep lookups or ranges.
 */
export function payloadIndexSchema(
  type: PayloadSchemaType | undefined,
  params: PayloadIndexParamsInput | undefined,
): { type: PayloadSchemaType; params?: PayloadIndexParams } {
  const resolvedType = type ?? (params && SCHEMA_TYPE_OF_PARAMS[Object.keys(params)[0]]);
  if (resolvedType === undefined) {
    throw DomainError.invalidArgument(
      "Bad request: Can't auto-detect field type, please specify `field_schema` in the request",
    );
  }
  if (params && 'integer' in params && params.integer.lookup === false && params.integer.range === false) {
    throw DomainError.validation([
      "field_index_params.integer_index_params.lookup: Validation error: the 'lookup' and 'range' capabilities can't be both disabled",
    ]);
  }
  return params ? { type: resolvedType, params: payloadIndexParamsWithDefaults(params) } : { type: resolvedType };
}
