import { EngineInputError, VectorIndex } from '@vectorstore/engine';

describe(VectorIndex.name, () => {
  const index = new VectorIndex({ dim: 4, distance: 'Euclid' });
  index.add([[1, 2, 3, 4]]);

  describe('add', () => {
    it('should reject a wrong dimension naming the vector', () => {
      expect(() =>
        index.add([
          [1, 2, 3, 4],
          [1, 2, 3],
        ]),
      ).toThrow(new EngineInputError('vector 1: expected dimension 4, got 3'));
    });
    it('should reject NaN and infinities naming the element', () => {
      expect(() => index.add([[1, NaN, 3, 4]])).toThrow('vector 0: element 1 is NaN');
      expect(() =>
        index.add([
          [0, 0, 0, 0],
          [1, 2, 3, Infinity],
        ]),
      ).toThrow('vector 1: element 3 is Infinity');
      expect(() => index.add(Float32Array.of(1, 2, 3, -Infinity))).toThrow(EngineInputError);
    });
    it('should reject a flat batch that is not a multiple of the dimension', () => {
      expect(() => index.add(new Float32Array(6))).toThrow(EngineInputError);
    });
    it('should check an expected first slot', () => {
      expect(() => index.add([[1, 2, 3, 4]], 7)).toThrow(
        'add: expected first slot 1, got 7 (slots are dense and assigned in order)',
      );
    });
    it('should leave the index unchanged after a rejected batch', () => {
      expect(index.size).toBe(1);
    });
  });

  describe('addVector', () => {
    it('should add one vector and reject any other length, even a multiple of the dimension', () => {
      const single = new VectorIndex({ dim: 4, distance: 'Dot' });
      expect(single.addVector(Float32Array.of(1, 2, 3, 4))).toBe(0);
      expect(() => single.addVector(new Float32Array(8))).toThrow('vector 0: expected dimension 4, got 8');
      expect(single.size).toBe(1);
    });
  });

  describe('search', () => {
    it('should reject bad queries and parameters', () => {
      expect(() => index.search([1, 2, 3], { k: 1 })).toThrow('query: expected dimension 4, got 3');
      expect(() => index.search([1, 2, NaN, 4], { k: 1 })).toThrow('query: element 2 is NaN');
      expect(() => index.search([1, 2, 3, 4], { k: 0 })).toThrow(EngineInputError);
      expect(() => index.search([1, 2, 3, 4], { k: 1, quantization: { oversampling: 0.5 } })).toThrow(EngineInputError);
    });
  });

  describe('constructor', () => {
    it('should reject invalid configs', () => {
      expect(() => new VectorIndex({ dim: 0, distance: 'Euclid' })).toThrow(EngineInputError);
      expect(() => new VectorIndex({ dim: 4, distance: 'L2' as never })).toThrow(EngineInputError);
      expect(() => new VectorIndex({ dim: 4, distance: 'Dot', quantization: { scalar: { quantile: 0.1 } } })).toThrow(
        EngineInputError,
      );
    });
  });

  describe('delete', () => {
    it('should reject out-of-range slots', () => {
      expect(() => index.delete(5)).toThrow(EngineInputError);
    });
  });
});
