import { fieldOfMessage, vectorSummary } from './format';

describe('format', () => {
  describe(vectorSummary.name, () => {
    it('should show the first components and the length', () => {
      expect(vectorSummary([0.123456, 1, 2, 3, 4, 5])).toBe('[0.1235, 1, 2, 3, …] (6 dims)');
      expect(vectorSummary([1, 2])).toBe('[1, 2] (2 dims)');
    });

    it('should summarise named, sparse and multi vectors', () => {
      expect(
        vectorSummary({
          image: [1, 2, 3],
          text: { indices: [1, 5], values: [0.5, 0.2] },
          colbert: [
            [1, 2],
            [3, 4],
          ],
        }),
      ).toBe('image: [1, 2, 3] (3 dims)\ntext: sparse (2 values)\ncolbert: [2 vectors]');
      expect(vectorSummary(undefined)).toBe('—');
    });
  });

  describe(fieldOfMessage.name, () => {
    const fields = { name: ['collection_name'], size: ['vectors.size'] };

    it('should place a message at the field whose API name it mentions', () => {
      expect(fieldOfMessage('Validation error in JSON body: [vectors.size: value 0 invalid]', fields)).toBe('size');
      expect(fieldOfMessage('Validation error in path parameters: [collection_name: …]', fields)).toBe('name');
    });

    it('should leave other messages to the form', () => {
      expect(fieldOfMessage('Service unavailable', fields)).toBeUndefined();
    });
  });
});
