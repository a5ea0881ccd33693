/**
 * The Porter (1980) stemmer and the content words of a text, for checking that a paraphrase query shares
 * no word with the datasets it should find. Porter rather than a cruder suffix strip because PostgreSQL's
 * `english` configuration (the keyword half of the search) stems with Snowball English, its descendant:
 * a word the two stem alike is a word keyword search would match.
 */

/** The Snowball English stop list, the one PostgreSQL's `english` configuration drops. */
export const STOP_WORDS = new Set(
  (
    'i me my myself we our ours ourselves you your yours yourself yourselves he him his himself she her hers herself it its ' +
    'itself they them their theirs themselves what which who whom this that these those am is are was were be been being have ' +
    'has had having do does did doing a an the and but if or because as until while of at by for with about against between ' +
    'into through during before after above below to from up down in out on off over under again further then once here there ' +
    'when where why how all any both each few more most other some such no nor not only own same so than too very s t can will ' +
    'just don should now'
  ).split(' '),
);

const isConsonant = (w: string, i: number): boolean => {
  const c = w[i];
  if ('aeiou'.includes(c!)) return false;
  if (c === 'y') return i === 0 ? true : !isConsonant(w, i - 1);
  return true;
};

/** m in Porter's [C](VC)^m[V]: the number of vowel-consonant sequences. */
const measure = (w: string): number => {
  let m = 0;
  let i = 0;
  const n = w.length;
  while (i < n && isConsonant(w, i)) i++;
  while (i < n) {
    while (i < n && !isConsonant(w, i)) i++;
    if (i >= n) break;
    while (i < n && isConsonant(w, i)) i++;
    m++;
  }
  return m;
};

const hasVowel = (w: string) => [...w].some((_, i) => !isConsonant(w, i));
const endsDoubleConsonant = (w: string) => w.length >= 2 && w.at(-1) === w.at(-2) && isConsonant(w, w.length - 1);
/** *o: ends consonant-vowel-consonant, the last not w, x or y. */
const endsCvc = (w: string) => {
  const n = w.length;
  return n >= 3 && isConsonant(w, n - 3) && !isConsonant(w, n - 2) && isConsonant(w, n - 1) && !'wxy'.includes(w[n - 1]!);
};

/** Replaces the first matching suffix when the stem before it has measure > `min`. */
function replaceSuffix(w: string, rules: Array<[string, string]>, min: number): string {
  for (const [suffix, replacement] of rules) {
    if (!w.endsWith(suffix)) continue;
    const stem = w.slice(0, -suffix.length);
    return measure(stem) > min ? stem + replacement : w;
  }
  return w;
}

const STEP2: Array<[string, string]> = [
  ['ational', 'ate'],
  ['tional', 'tion'],
  ['enci', 'ence'],
  ['anci', 'ance'],
  ['izer', 'ize'],
  ['bli', 'ble'],
  ['alli', 'al'],
  ['entli', 'ent'],
  ['eli', 'e'],
  ['ousli', 'ous'],
  ['ization', 'ize'],
  ['ation', 'ate'],
  ['ator', 'ate'],
  ['alism', 'al'],
  ['iveness', 'ive'],
  ['fulness', 'ful'],
  ['ousness', 'ous'],
  ['aliti', 'al'],
  ['iviti', 'ive'],
  ['biliti', 'ble'],
  ['logi', 'log'],
];
const STEP3: Array<[string, string]> = [
  ['icate', 'ic'],
  ['ative', ''],
  ['alize', 'al'],
  ['iciti', 'ic'],
  ['ical', 'ic'],
  ['ful', ''],
  ['ness', ''],
];
const STEP4 = [
  'al',
  'ance',
  'ence',
  'er',
  'ic',
  'able',
  'ible',
  'ant',
  'ement',
  'ment',
  'ent',
  'ion',
  'ou',
  'ism',
  'ate',
  'iti',
  'ous',
  'ive',
  'ize',
];

/** Porter's stem of a lowercase word. */
export function stem(word: string): string {
  let w = word;
  if (w.length <= 2) return w;

  // Step 1a: plurals.
  if (w.endsWith('sses')) w = w.slice(0, -2);
  else if (w.endsWith('ies')) w = w.slice(0, -2);
  else if (!w.endsWith('ss') && w.endsWith('s')) w = w.slice(0, -1);

  // Step 1b: -eed, -ed, -ing.
  let cleanup = false;
  if (w.endsWith('eed')) {
    if (measure(w.slice(0, -3)) > 0) w = w.slice(0, -1);
  } else if (w.endsWith('ed') && hasVowel(w.slice(0, -2))) {
    w = w.slice(0, -2);
    cleanup = true;
  } else if (w.endsWith('ing') && hasVowel(w.slice(0, -3))) {
    w = w.slice(0, -3);
    cleanup = true;
  }
  if (cleanup) {
    if (w.endsWith('at') || w.endsWith('bl') || w.endsWith('iz')) w += 'e';
    else if (endsDoubleConsonant(w) && !'lsz'.includes(w.at(-1)!)) w = w.slice(0, -1);
    else if (measure(w) === 1 && endsCvc(w)) w += 'e';
  }

  // Step 1c: y → i after a vowel-bearing stem.
  if (w.endsWith('y') && hasVowel(w.slice(0, -1))) w = `${w.slice(0, -1)}i`;

  w = replaceSuffix(w, STEP2, 0);
  w = replaceSuffix(w, STEP3, 0);

  // Step 4: drop a suffix when the stem has measure > 1 (-ion only after s or t).
  for (const suffix of STEP4) {
    if (!w.endsWith(suffix)) continue;
    const s = w.slice(0, -suffix.length);
    if (measure(s) > 1 && (suffix !== 'ion' || s.endsWith('s') || s.endsWith('t'))) w = s;
    break;
  }

  // Step 5: a final -e, and -ll.
  if (w.endsWith('e')) {
    const s = w.slice(0, -1);
    const m = measure(s);
    if (m > 1 || (m === 1 && !endsCvc(s))) w = s;
  }
  if (measure(w) > 1 && w.endsWith('ll')) w = w.slice(0, -1);
  return w;
}

/** Stems of the non-stop words of `text`, split on anything not a letter or digit. */
export function contentStems(text: string): Set<string> {
  const words = text
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[’']/g, '')
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
  return new Set(words.filter((w) => !STOP_WORDS.has(w)).map(stem));
}
