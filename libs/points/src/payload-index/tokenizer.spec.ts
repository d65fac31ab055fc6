import { DomainError } from '@vectorstore/common';
import { asciiFold, createTextAnalyzer } from './tokenizer';

describe(createTextAnalyzer.name, () => {
  it('should split words, lowercase by default, and keep order', () => {
    const a = createTextAnalyzer({ tokenizer: 'Word' });
    expect(a.tokens("Hello, World! It's 42")).toEqual(['hello', 'world', 'it', 's', '42']);
    expect(createTextAnalyzer({ tokenizer: 'Word', lowercase: false }).tokens('Hello')).toEqual(['Hello']);
  });

  it('should split on whitespace only with the Whitespace tokenizer', () => {
    expect(createTextAnalyzer({ tokenizer: 'Whitespace' }).tokens('state-of-the-art  AI\tmodel')).toEqual([
      'state-of-the-art',
      'ai',
      'model',
    ]);
  });

  it('should index prefixes with the Prefix tokenizer and query whole words', () => {
    const a = createTextAnalyzer({ tokenizer: 'Prefix', minTokenLen: 2, maxTokenLen: 4 });
    expect(a.tokens('Qdrant db')).toEqual(['qd', 'qdr', 'qdra', 'db']);
    expect(a.queryTokens('Qdrant db x')).toEqual(['qdra', 'db']);
  });

  it('should segment with the Multilingual tokenizer', () => {
    const a = createTextAnalyzer({ tokenizer: 'Multilingual' });
    expect(a.tokens('Hello, мир! 東京')).toEqual(expect.arrayContaining(['hello', 'мир']));
  });

  it('should drop tokens outside min/max length', () => {
    expect(createTextAnalyzer({ tokenizer: 'Word', minTokenLen: 3, maxTokenLen: 5 }).tokens('a bb ccc dddddd')).toEqual(
      ['ccc'],
    );
  });

  it('should remove stopwords (languages and custom) and stem', () => {
    const a = createTextAnalyzer({
      tokenizer: 'Word',
      stopwords: { languages: ['english'], custom: ['Quick'] },
      stemmer: { snowball: { language: 'english' } },
    });
    expect(a.tokens('The quick foxes were running')).toEqual(['fox', 'run']);
  });

  it('should fold to ASCII when asked', () => {
    const a = createTextAnalyzer({ tokenizer: 'Word', asciiFolding: true });
    expect(a.tokens('Café Straße naïve')).toEqual(['cafe', 'strasse', 'naive']);
    expect(asciiFold('Ærøskøbing')).toBe('AEroskobing');
    expect(createTextAnalyzer({ tokenizer: 'Word' }).tokens('Café')).toEqual(['café']);
  });

  it('should reject unknown languages', () => {
    expect(() => createTextAnalyzer({ tokenizer: 'Word', stemmer: { snowball: { language: 'klingon' } } })).toThrow(
      DomainError,
    );
    expect(() => createTextAnalyzer({ tokenizer: 'Word', stopwords: { languages: ['klingon'], custom: [] } })).toThrow(
      DomainError,
    );
  });
});
