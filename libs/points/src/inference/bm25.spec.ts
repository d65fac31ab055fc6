import { bm25ConfigOf, bm25Document, bm25Query, bm25TokenId } from './bm25';
import { inferVector } from './local-inference';

describe('BM25', () => {
  it('should hash tokens with murmur3_32 (seed 0) as |i32|, like Qdrant and fastembed', () => {
    expect(bm25TokenId('hello')).toBe(613153351); // 0x248bfa47
    expect(bm25TokenId('')).toBe(0);
    // A hash with the sign bit set comes back as its absolute value.
    const negative = ['a', 'b', 'c', 'fear', 'univers'].map(bm25TokenId);
    for (const id of negative) expect(id).toBeLessThanOrEqual(0x7fffffff);
  });

  it('should weigh document terms with BM25 term frequency and sorted indices', () => {
    const config = bm25ConfigOf({ avg_len: 5, stemmer: { type: 'none' }, stopwords: { custom: [] } });
    const v = bm25Document(config, 'the cat sat on the');
    const the = Array.from(v.indices).indexOf(bm25TokenId('the'));
    // 2 · 2.2 / (1.2 · (0.25 + 0.75 · 5/5) + 2) = 1.375
    expect(v.values[the]).toBeCloseTo(1.375, 5);
    expect(v.indices.length).toBe(4);
    expect(Array.from(v.indices)).toEqual([...v.indices].sort((a, b) => a - b));
  });

  it('should drop English stopwords and stem by default, and give queries weight 1', () => {
    const config = bm25ConfigOf(undefined);
    expect(bm25Query(config, 'I should not fear').indices).toEqual(Uint32Array.of(bm25TokenId('fear')));
    const universally = bm25Query(config, "It's universally acknowledged");
    expect(Array.from(universally.indices).sort()).toEqual([bm25TokenId('univers'), bm25TokenId('acknowledg')].sort());
    expect(Array.from(universally.values)).toEqual([1, 1]);
    expect(bm25Query(config, 'The a an and or but').indices.length).toBe(0);
  });

  it("should take Qdrant's language aliases and NLTK's current lists", () => {
    const en = bm25ConfigOf({ language: 'en' });
    expect(bm25Query(en, 'I should not fear').indices).toEqual(Uint32Array.of(bm25TokenId('fear')));
    // A contraction survives the Whitespace tokenizer, and is a stopword as in Qdrant's list.
    const whitespace = bm25ConfigOf({ tokenizer: 'whitespace', stemmer: { type: 'none' } });
    expect(bm25Query(whitespace, "don't panic").indices).toEqual(Uint32Array.of(bm25TokenId('panic')));
    const french = bm25ConfigOf({ language: 'fr', stemmer: { type: 'none' } });
    expect(bm25Query(french, 'les chats').indices).toEqual(Uint32Array.of(bm25TokenId('chats')));
    // Qdrant stems only its SnowballLanguage list: Basque gets no stemmer by default.
    expect(() => bm25ConfigOf({ stemmer: { type: 'snowball', language: 'basque' } })).toThrow(
      'Unsupported snowball stemmer language: basque',
    );
  });

  it('should refuse bad parameters with Qdrant messages', () => {
    expect(() => bm25ConfigOf({ k: -1 })).toThrow('BM25 k1 must be finite and >= 0, got -1');
    expect(() => bm25ConfigOf({ b: 1.5 })).toThrow('BM25 b must be finite and in [0.0, 1.0], got 1.5');
    expect(() => bm25ConfigOf({ avg_len: 0 })).toThrow('BM25 avg_doc_len must be finite and > 0, got 0');
    expect(() => bm25ConfigOf({ tokenizer: 'nope' })).toThrow('tokenizer');
    expect(() => bm25ConfigOf({ language: 'english', stopwords: 'klingon' })).toThrow(
      'Unsupported stopwords language: klingon',
    );
  });

  it('should serve only local models, and only for text', () => {
    expect(inferVector({ model: 'Qdrant/BM25', kind: 'document', text: 'fear' }, 'query').kind).toBe('sparse');
    expect(() => inferVector({ model: 'sentence-transformers/x', kind: 'document', text: 'a' }, 'store')).toThrow(
      'InferenceService is not initialized',
    );
    expect(() => inferVector({ model: 'bm25', kind: 'image' }, 'store')).toThrow(
      'Only text input is supported for bm25.',
    );
  });
});
