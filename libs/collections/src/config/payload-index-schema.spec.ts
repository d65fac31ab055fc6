import { ErrorKind, httpStatusOf } from '@vectorstore/common';
import { domainErrorOf } from '../testing/collections-fixtures';
import { DEFAULT_TOKENIZER, payloadIndexParamsWithDefaults, payloadIndexSchema } from './payload-index-schema';

describe('payloadIndexParamsWithDefaults', () => {
  it('should give a text index without a tokenizer the Word tokenizer and keep the other fields', () => {
    expect(DEFAULT_TOKENIZER).toBe('Word');
    expect(payloadIndexParamsWithDefaults({ text: { lowercase: true } })).toEqual({
      text: { tokenizer: 'Word', lowercase: true },
    });
  });

  it('should keep a tokenizer that is given, and other index params as they are', () => {
    expect(payloadIndexParamsWithDefaults({ text: { tokenizer: 'Prefix' } })).toEqual({
      text: { tokenizer: 'Prefix' },
    });
    const keyword = { keyword: { isTenant: true } };
    expect(payloadIndexParamsWithDefaults(keyword)).toBe(keyword);
  });
});

describe('payloadIndexSchema', () => {
  it('should take the type given, or the one the params imply', () => {
    expect(payloadIndexSchema('Keyword', undefined)).toEqual({ type: 'Keyword' });
    expect(payloadIndexSchema(undefined, { integer: { range: false } })).toEqual({
      type: 'Integer',
      params: { integer: { range: false } },
    });
    expect(payloadIndexSchema('Text', { text: {} })).toEqual({ type: 'Text', params: { text: { tokenizer: 'Word' } } });
  });

  it("should refuse neither a type nor params with Qdrant's words, as a 400 rather than a 422", () => {
    const error = domainErrorOf(() => payloadIndexSchema(undefined, undefined));
    expect(error.kind).toBe(ErrorKind.InvalidArgument);
    expect(error.message).toBe(
      "Bad request: Can't auto-detect field type, please specify `field_schema` in the request",
    );
    expect(httpStatusOf(error)).toBe(400);
  });

  it('should refuse an integer index without lookups and without ranges (422)', () => {
    const error = domainErrorOf(() => payloadIndexSchema('Integer', { integer: { lookup: false, range: false } }));
    expect(httpStatusOf(error)).toBe(422);
    expect(error.message).toContain("Validation error: the 'lookup' and 'range' capabilities can't be both disabled");
    expect(payloadIndexSchema('Integer', { integer: { lookup: false } })).toEqual({
      type: 'Integer',
      params: { integer: { lookup: false } },
    });
  });
});
