import { JsonObject } from '@vectorstore/common';
import { deleteKeys, setAtPath } from './point-edits';

const doc = (): JsonObject => ({
  key6: { subkey: 'x', arraykey: [{ a1: { a1k: 'x' } }, { a2: { a2k: 'x' } }], n: 1 },
  top: 't',
});

describe('setAtPath (Qdrant set_payload with a key)', () => {
  it('should merge into the object at a path, creating objects on the way', () => {
    expect(setAtPath(doc(), 'key6', { subkey: 'y' })).toMatchObject({ key6: { subkey: 'y', n: 1 }, top: 't' });
    expect(setAtPath(doc(), 'key6.new.deep', { k: 1 })).toMatchObject({ key6: { new: { deep: { k: 1 } } } });
    // A non-object on the way is replaced by an object.
    expect(setAtPath(doc(), 'top.inner', { k: 1 })).toMatchObject({ top: { inner: { k: 1 } } });
  });

  it('should descend into an array element with [n], and into every element with []', () => {
    const indexed = setAtPath(doc(), 'key6.arraykey[0].a1', { a1k: 'y' }) as { key6: { arraykey: JsonObject[] } };
    expect(indexed.key6.arraykey).toEqual([{ a1: { a1k: 'y' } }, { a2: { a2k: 'x' } }]);
    const every = setAtPath(doc(), 'key6.arraykey[].a2', { a2k: 'y' }) as { key6: { arraykey: JsonObject[] } };
    expect(every.key6.arraykey).toEqual([{ a1: { a1k: 'x' }, a2: { a2k: 'y' } }, { a2: { a2k: 'y' } }]);
    // Past the end of the array nothing is set.
    expect(setAtPath(doc(), 'key6.arraykey[5].z', { k: 1 })).toEqual(doc());
  });

  it('should not change its input', () => {
    const input = doc();
    setAtPath(input, 'key6.arraykey[].a2', { a2k: 'y' });
    expect(input).toEqual(doc());
  });
});

describe('deleteKeys (Qdrant delete_payload)', () => {
  it('should remove nested keys, inside array elements too', () => {
    expect(deleteKeys(doc(), ['key6.subkey', 'top'])).toEqual({
      key6: { arraykey: [{ a1: { a1k: 'x' } }, { a2: { a2k: 'x' } }], n: 1 },
    });
    const inside = deleteKeys(doc(), ['key6.arraykey[].a1']) as { key6: { arraykey: JsonObject[] } };
    expect(inside.key6.arraykey).toEqual([{}, { a2: { a2k: 'x' } }]);
    const one = deleteKeys(doc(), ['key6.arraykey[1].a2']) as { key6: { arraykey: JsonObject[] } };
    expect(one.key6.arraykey).toEqual([{ a1: { a1k: 'x' } }, {}]);
  });

  it('should empty an array for a trailing [] and leave it for a trailing [n]', () => {
    expect((deleteKeys(doc(), ['key6.arraykey[]']) as { key6: JsonObject }).key6.arraykey).toEqual([]);
    expect(deleteKeys(doc(), ['key6.arraykey[0]'])).toEqual(doc());
  });
});
