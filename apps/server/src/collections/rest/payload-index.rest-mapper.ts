import {
  PayloadIndexParamsInput,
  payloadIndexSchema,
  PayloadSchemaType,
  TokenizerType,
} from '@vectorstore/collections';
import { UpdateRequest, UpdateResult } from '@vectorstore/points';
import { bodyFormatError } from '../../core/rest/rest-format.error';
import {
  array,
  bool,
  Decoder,
  decodeBody,
  enumOf,
  isPlainObject,
  object,
  str,
  u64,
} from '../../core/rest/rest-decoders';
import { readWait, readWriteTimeout, RestQuery } from '../../core/rest/rest-query';
import { MEMORY_NAMES } from './collection-config.rest-decoders';
import { defined } from '../../core/scalars';

const SCHEMA_TYPE_NAMES: Record<string, PayloadSchemaType> = {
  keyword: 'Keyword',
  integer: 'Integer',
  float: 'Float',
  geo: 'Geo',
  text: 'Text',
  bool: 'Bool',
  datetime: 'Datetime',
  uuid: 'Uuid',
};

const TOKENIZER_NAMES: Record<string, TokenizerType> = {
  prefix: 'Prefix',
  whitespace: 'Whitespace',
  word: 'Word',
  multilingual: 'Multilingual',
};

/** `"english"` or `{"languages": [...], "custom": [...]}`. */
const stopwordsDecoder: Decoder<{ languages: string[]; custom: string[] }> = (value, path) => {
  if (typeof value === 'string') return { languages: [value], custom: [] };
  const set = object<{ languages?: string[]; custom?: string[] }>({ languages: array(str), custom: array(str) })(
    value,
    path,
  );
  return { languages: set.languages ?? [], custom: set.custom ?? [] };
};

const stemmerDecoder: Decoder<{ snowball: { language: string } }> = (value, path) => {
  const stemmer = object<{ type: string; language: string }>(
    { type: enumOf({ snowball: 'snowball' }), language: str },
    ['type', 'language'],
  )(value, path);
  return { snowball: { language: stemmer.language } };
};

const common = { on_disk: bool, memory: enumOf(MEMORY_NAMES), enable_hnsw: bool };
const PARAMS_DECODERS: Record<PayloadSchemaType, Decoder<object>> = {
  Keyword: object({ ...common, is_tenant: bool, prefix: bool }),
  Integer: object({ ...common, lookup: bool, range: bool, is_principal: bool }),
  Float: object({ ...common, is_principal: bool }),
  Geo: object(common),
  Text: object({
    ...common,
    tokenizer: enumOf(TOKENIZER_NAMES),
    min_token_len: u64,
    max_token_len: u64,
    lowercase: bool,
    phrase_matching: bool,
    ascii_folding: bool,
    stopwords: stopwordsDecoder,
    stemmer: stemmerDecoder,
  }),
  Bool: object(common),
  Datetime: object({ ...common, is_principal: bool }),
  Uuid: object({ ...common, is_tenant: bool }),
};

/** `field_schema`: a type name, or `{"type": …, …params}`. */
function fieldSchemaFromRest(value: unknown): { type: PayloadSchemaType; params?: PayloadIndexParamsInput } {
  const typeOf = enumOf(SCHEMA_TYPE_NAMES);
  if (!isPlainObject(value)) return { type: typeOf(value, 'field_schema') };
  if (value.type === undefined) throw bodyFormatError('field_schema', 'missing field `type`');
  const type = typeOf(value.type, 'field_schema.type');
  const params = PARAMS_DECODERS[type](value, 'field_schema');
  return { type, params: { [type.toLowerCase()]: params } as unknown as PayloadIndexParamsInput };
}

/** `PUT /collections/{c}/index`; the schema's rules and defaults are the domain's. */
export function createFieldIndexFromRest(body: unknown, query: RestQuery): UpdateRequest {
  const wait = readWait(query);
  const timeout = readWriteTimeout(query);
  const fields = decodeBody(
    body,
    object<{ fieldName: string; fieldSchema?: unknown }>({ field_name: str, field_schema: (value) => value }, [
      'field_name',
    ]),
  );
  const given = fields.fieldSchema === undefined ? undefined : fieldSchemaFromRest(fields.fieldSchema);
  const { type, params } = payloadIndexSchema(given?.type, given?.params);
  return defined({
    operation: { createFieldIndex: defined({ field: fields.fieldName, type, params }) },
    wait,
    timeout,
  });
}

/** `DELETE /collections/{c}/index/{field_name}`. */
export function deleteFieldIndexFromRest(field: string, query: RestQuery): UpdateRequest {
  return defined({
    operation: { deleteFieldIndex: { field } },
    wait: readWait(query),
    timeout: readWriteTimeout(query),
  });
}

const UPDATE_STATUS_NAMES = { Acknowledged: 'acknowledged', Completed: 'completed', WaitTimeout: 'wait_timeout' };

/** `UpdateResult` as REST shows it. */
export function updateResultToRest(result: UpdateResult): { operation_id: number; status: string } {
  return { operation_id: result.operationId, status: UPDATE_STATUS_NAMES[result.status] };
}
