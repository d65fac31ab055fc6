import { DomainError } from '@vectorstore/common';
import {
  DEFAULT_TOKENIZER,
  type PayloadIndexParams,
  type PayloadSchemaType,
  type TextIndexParams,
} from '@vectorstore/collections';
import { FieldIndexBase, PayloadFieldIndex } from './field-index-base';
import { GeoIndex } from './geo-index';
import { BoolIndex, KeywordIndex } from './keyword-index';
import { DatetimeIndex, FloatIndex, IntegerIndex } from './numeric-index';
import { TextIndex } from './text-index';
import { validateTextIndexParams } from './tokenizer';

export type { CardinalityEstimate, PayloadFieldIndex } from './field-index-base';

const PARAMS_KEY: Record<PayloadSchemaType, string> = {
  Keyword: 'keyword',
  Integer: 'integer',
  Float: 'float',
  Geo: 'geo',
  Text: 'text',
  Bool: 'bool',
  Datetime: 'datetime',
  Uuid: 'uuid',
};

/** Throws InvalidArgument when `params` are for another schema type, or are unusable. */
export function validateIndexParams(type: PayloadSchemaType, params: PayloadIndexParams | undefined): void {
  if (params === undefined) return;
  const key = Object.keys(params)[0];
  if (key !== PARAMS_KEY[type]) {
    throw DomainError.invalidArgument(`Index params of type \`${key}\` do not fit a field of type ${type}`);
  }
  if ('text' in params) validateTextIndexParams(params.text);
}

function build(
  field: string,
  type: PayloadSchemaType,
  params: PayloadIndexParams | undefined,
): FieldIndexBase<unknown> {
  validateIndexParams(type, params);
  switch (type) {
    case 'Keyword':
    case 'Uuid':
      return new KeywordIndex(field, type, params) as FieldIndexBase<unknown>;
    case 'Integer':
      return new IntegerIndex(field, params) as FieldIndexBase<unknown>;
    case 'Float':
      return new FloatIndex(field, params) as FieldIndexBase<unknown>;
    case 'Datetime':
      return new DatetimeIndex(field, params) as FieldIndexBase<unknown>;
    case 'Bool':
      return new BoolIndex(field, params) as FieldIndexBase<unknown>;
    case 'Geo':
      return new GeoIndex(field, params) as FieldIndexBase<unknown>;
    case 'Text': {
      const textParams: TextIndexParams =
        params !== undefined && 'text' in params ? params.text : { tokenizer: DEFAULT_TOKENIZER };
      return new TextIndex(field, textParams) as FieldIndexBase<unknown>;
    }
  }
}

/**
 * An empty index of `type` over `field`. A Text index without params uses Qdrant's defaults
 * (Word tokenizer, lowercase) and reports them in `params`.
 */
export function createFieldIndex(
  field: string,
  type: PayloadSchemaType,
  params?: PayloadIndexParams,
): PayloadFieldIndex {
  return build(field, type, params);
}

/** Restores an index written by `toBytes()`. */
export function fieldIndexFromBytes(
  field: string,
  type: PayloadSchemaType,
  params: PayloadIndexParams | undefined,
  bytes: Uint8Array,
): PayloadFieldIndex {
  return build(field, type, params).load(bytes);
}
