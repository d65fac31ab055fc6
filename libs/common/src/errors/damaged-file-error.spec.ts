import { inspect } from 'node:util';
import { DamagedFileError } from './damaged-file-error';

describe(DamagedFileError.name, () => {
  it('should show as its one line wherever it is printed: message, stack and inspection (as Nest logs it)', () => {
    const error = new DamagedFileError('/data/node.json', 'checksum mismatch').withAdvice('put it back');
    const line = 'DamagedFileError: /data/node.json is damaged: checksum mismatch; put it back';
    expect(error.stack).toBe(line);
    expect(inspect(error)).toBe(line);
    expect(error.path).toBe('/data/node.json');
  });
});
