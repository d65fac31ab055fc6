import { checkSealedJson, crc32Checksum, describeSealCheck, sealJson } from './sealed-json';
import { parseJson, stringifyJson } from './json-value';

const lossless = (value: unknown) => stringifyJson(value);

describe('sealed JSON', () => {
  const doc = { version: 1, persistedOpNum: 42, name: 'é "q"', big: 9007199254740993n, list: [1.5, { a: null }] };

  it('should add the checksum as the last field and check the parsed text as valid, whatever the indentation', () => {
    const sealed = sealJson(doc, lossless);
    expect(Object.keys(sealed).at(-1)).toBe('checksum');
    expect(sealed.checksum).toMatch(/^crc32:[0-9a-f]{8}$/);
    for (const space of [undefined, 2, 4]) {
      expect(checkSealedJson(parseJson(stringifyJson(sealed, space)), lossless)).toEqual({ state: 'valid' });
    }
  });

  it('should report a changed digit, string or key as a mismatch naming both checksums', () => {
    const text = stringifyJson(sealJson(doc, lossless), 2);
    for (const changed of [
      text.replace('42', '43'),
      text.replace('"q\\"', '"r\\"'),
      text.replace('"persistedOpNum"', '"persistedOpNun"'),
      text.replace('9007199254740993', '9007199254740992'),
    ]) {
      const check = checkSealedJson(parseJson(changed), lossless);
      expect(check.state).toBe('mismatch');
      expect(describeSealCheck(check)).toMatch(
        /^checksum mismatch \(crc32:[0-9a-f]{8} recorded, crc32:[0-9a-f]{8} computed\)$/,
      );
    }
  });

  it('should report a document written before checksums as unsealed, and a bad checksum field as malformed', () => {
    expect(checkSealedJson(doc, lossless)).toEqual({ state: 'unsealed' });
    expect(checkSealedJson({ ...doc, checksum: 'md5:1' }, lossless).state).toBe('malformed');
    expect(checkSealedJson([1, 2], lossless).state).toBe('malformed');
  });

  it('should keep own keys such as __proto__ in what it checks', () => {
    const parsed = JSON.parse('{"__proto__": {"x": 1}, "y": 2}') as object;
    const sealed = JSON.parse(JSON.stringify(sealJson(parsed, JSON.stringify))) as object;
    expect(checkSealedJson(sealed, JSON.stringify)).toEqual({ state: 'valid' });
    const changed = JSON.parse(JSON.stringify(sealed).replace('"x":1', '"x":2')) as object;
    expect(checkSealedJson(changed, JSON.stringify).state).toBe('mismatch');
  });

  it("should compute zlib's CRC-32", () => {
    expect(crc32Checksum('123456789')).toBe('crc32:cbf43926');
  });
});
