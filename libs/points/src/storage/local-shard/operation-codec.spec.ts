import { serialize } from 'node:v8';
import { DomainError, ErrorKind } from '@vectorstore/common';
import { UpdateOperation } from '../../model/operations.model';
import { decodeOperation, decodeRecord, encodeOperation, UndecodableRecordError } from './operation-codec';

describe('operation-codec', () => {
  const operation: UpdateOperation = {
    setPayload: { selector: { ids: [7n, 'a6e4…'] }, payload: { n: [1, { x: null }] } },
  };
  const tag = { peer: 'p', incarnation: 'i', seq: 3 };

  it('should round-trip both record formats exactly', () => {
    expect(decodeRecord(encodeOperation(operation))).toEqual({ operation });
    expect(decodeRecord(encodeOperation(operation, tag))).toEqual({ operation, tag });
  });

  it('should refuse to encode an operation of no known shape, naming the field', () => {
    const encode = () => encodeOperation({ upsertt: {} } as unknown as UpdateOperation);
    expect(encode).toThrow(DomainError);
    expect(encode).toThrow('unknown operation field `upsertt`');
  });

  it('should refuse to decode a record whose operation has no known shape', () => {
    const data = serialize({ v: 2, operation: { frobnicate: {} }, tag });
    expect(() => decodeRecord(data)).toThrow(UndecodableRecordError);
    expect(() => decodeRecord(data)).toThrow('`frobnicate`');
  });

  it('should answer a peer operation it cannot read with INVALID_ARGUMENT', () => {
    let caught: unknown;
    try {
      decodeOperation(serialize({ v: 9, operation }));
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(DomainError);
    expect(caught).toMatchObject({ kind: ErrorKind.InvalidArgument });
    expect((caught as Error).message).toContain('record format 9 is not supported');
  });
});
