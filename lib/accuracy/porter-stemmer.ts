// The Porter stemmer as NLTK runs it by default (PorterStemmer mode
// NLTK_EXTENSIONS), which is what rouge_score's tokenizer calls with
// use_stemmer=True. Written from the published algorithm (Porter 1980) plus
// the NLTK departures, which are listed where they apply:
//   - a small table of irregular forms bypasses the steps;
//   - words of one or two letters are returned as they are;
//   - 1a: a four-letter word in -ies becomes -ie (dies -> die);
//   - 1b: -ied becomes -ie (four letters) or -i, before any other 1b rule;
//   - 1c: y -> i only after a consonant that is not the first letter;
//   - 2: -alli -> -al is tried first and step 2 is run again on the result;
//        -bli -> -ble replaces -abli -> -able; -fulli -> -ful and
//        -logi -> -log (measure taken with the l) are added;
//   - *o also holds for a two-letter word vowel + consonant.
// Input is expected in lower case (rouge_score lower-cases first).

const IRREGULAR: ReadonlyMap<string, string> = new Map([
  ['sky', 'sky'],
  ['skies', 'sky'],
  ['dying', 'die'],
  ['lying', 'lie'],
  ['tying', 'tie'],
  ['news', 'news'],
  ['innings', 'inning'],
  ['inning', 'inning'],
  ['outings', 'outing'],
  ['outing', 'outing'],
  ['cannings', 'canning'],
  ['canning', 'canning'],
  ['howe', 'howe'],
  ['proceed', 'proceed'],
  ['exceed', 'exceed'],
  ['succeed', 'succeed'],
]);

function isVowelLetter(c: string): boolean {
  return c === 'a' || c === 'e' || c === 'i' || c === 'o' || c === 'u';
}

/** True when w[i] is a consonant in Porter's sense (y after a consonant is a vowel). */
function consonantAt(w: string, i: number): boolean {
  // Walk back over a run of y's: y at 0 is a consonant, y after a consonant a vowel.
  let k = i;
  let flips = 0;
  while (k >= 0) {
    const c = w[k]!;
    if (isVowelLetter(c)) return flips % 2 === 1;
    if (c !== 'y') return flips % 2 === 0;
    if (k === 0) return flips % 2 === 0;
    flips++;
    k--;
  }
  return true;
}

/** m: the number of vowel-run -> consonant-run transitions in `stem`. */
function measure(stem: string): number {
  let m = 0;
  let prevVowel = false;
  for (let i = 0; i < stem.length; i++) {
    const cons = consonantAt(stem, i);
    if (cons && prevVowel) m++;
    prevVowel = !cons;
  }
  return m;
}

function hasVowel(stem: string): boolean {
  for (let i = 0; i < stem.length; i++) if (!consonantAt(stem, i)) return true;
  return false;
}

function endsDoubleConsonant(w: string): boolean {
  const n = w.length;
  return n >= 2 && w[n - 1] === w[n - 2] && consonantAt(w, n - 1);
}

/** Condition *o (with NLTK's two-letter extension). */
function endsCvc(w: string): boolean {
  const n = w.length;
  if (n >= 3) {
    const last = w[n - 1]!;
    if (
      consonantAt(w, n - 3) &&
      !consonantAt(w, n - 2) &&
      consonantAt(w, n - 1) &&
      last !== 'w' &&
      last !== 'x' &&
      last !== 'y'
    ) {
      return true;
    }
  }
  return n === 2 && !consonantAt(w, 0) && consonantAt(w, 1);
}

type Condition = ((stem: string) => boolean) | null;
type Rule = readonly [suffix: string, replacement: string, condition: Condition];

/**
 * The first rule whose suffix ends `w` decides: its replacement when the
 * condition holds on the remaining stem, else `w` unchanged (later rules are
 * not tried).
 */
function firstRule(w: string, rules: readonly Rule[]): string {
  for (const [suffix, replacement, condition] of rules) {
    if (!w.endsWith(suffix)) continue;
    const stem = w.slice(0, w.length - suffix.length);
    return condition === null || condition(stem) ? stem + replacement : w;
  }
  return w;
}

const mGt0 = (s: string): boolean => measure(s) > 0;
const mGt1 = (s: string): boolean => measure(s) > 1;

function step1a(w: string): string {
  if (w.length === 4 && w.endsWith('ies')) return w.slice(0, 1) + 'ie';
  return firstRule(w, [
    ['sses', 'ss', null],
    ['ies', 'i', null],
    ['ss', 'ss', null],
    ['s', '', null],
  ]);
}

function step1b(w: string): string {
  if (w.endsWith('ied')) return w.slice(0, -3) + (w.length === 4 ? 'ie' : 'i');
  if (w.endsWith('eed')) {
    const stem = w.slice(0, -3);
    return measure(stem) > 0 ? stem + 'ee' : w;
  }
  let stem: string | undefined;
  if (w.endsWith('ed') && hasVowel(w.slice(0, -2))) stem = w.slice(0, -2);
  else if (w.endsWith('ing') && hasVowel(w.slice(0, -3))) stem = w.slice(0, -3);
  if (stem === undefined) return w;

  if (stem.endsWith('at') || stem.endsWith('bl') || stem.endsWith('iz')) return stem + 'e';
  if (endsDoubleConsonant(stem)) {
    const last = stem[stem.length - 1]!;
    return last === 'l' || last === 's' || last === 'z' ? stem : stem.slice(0, -1);
  }
  if (measure(stem) === 1 && endsCvc(stem)) return stem + 'e';
  return stem;
}

function step1c(w: string): string {
  if (!w.endsWith('y')) return w;
  const stem = w.slice(0, -1);
  return stem.length > 1 && consonantAt(stem, stem.length - 1) ? stem + 'i' : w;
}

const STEP2_RULES: readonly Rule[] = [
  ['ational', 'ate', mGt0],
  ['tional', 'tion', mGt0],
  ['enci', 'ence', mGt0],
  ['anci', 'ance', mGt0],
  ['izer', 'ize', mGt0],
  ['bli', 'ble', mGt0],
  ['alli', 'al', mGt0],
  ['entli', 'ent', mGt0],
  ['eli', 'e', mGt0],
  ['ousli', 'ous', mGt0],
  ['ization', 'ize', mGt0],
  ['ation', 'ate', mGt0],
  ['ator', 'ate', mGt0],
  ['alism', 'al', mGt0],
  ['iveness', 'ive', mGt0],
  ['fulness', 'ful', mGt0],
  ['ousness', 'ous', mGt0],
  ['aliti', 'al', mGt0],
  ['iviti', 'ive', mGt0],
  ['biliti', 'ble', mGt0],
  ['fulli', 'ful', mGt0],
  // The l of -logi stays with the stem for the measure.
  ['logi', 'log', (stem) => measure(stem + 'l') > 0],
];

function step2(w: string): string {
  if (w.endsWith('alli') && measure(w.slice(0, -4)) > 0) return step2(w.slice(0, -4) + 'al');
  return firstRule(w, STEP2_RULES);
}

const STEP3_RULES: readonly Rule[] = [
  ['icate', 'ic', mGt0],
  ['ative', '', mGt0],
  ['alize', 'al', mGt0],
  ['iciti', 'ic', mGt0],
  ['ical', 'ic', mGt0],
  ['ful', '', mGt0],
  ['ness', '', mGt0],
];

const STEP4_RULES: readonly Rule[] = [
  ['al', '', mGt1],
  ['ance', '', mGt1],
  ['ence', '', mGt1],
  ['er', '', mGt1],
  ['ic', '', mGt1],
  ['able', '', mGt1],
  ['ible', '', mGt1],
  ['ant', '', mGt1],
  ['ement', '', mGt1],
  ['ment', '', mGt1],
  ['ent', '', mGt1],
  ['ion', '', (s) => measure(s) > 1 && (s.endsWith('s') || s.endsWith('t'))],
  ['ou', '', mGt1],
  ['ism', '', mGt1],
  ['ate', '', mGt1],
  ['iti', '', mGt1],
  ['ous', '', mGt1],
  ['ive', '', mGt1],
  ['ize', '', mGt1],
];

function step5a(w: string): string {
  if (!w.endsWith('e')) return w;
  const stem = w.slice(0, -1);
  const m = measure(stem);
  if (m > 1 || (m === 1 && !endsCvc(stem))) return stem;
  return w;
}

function step5b(w: string): string {
  return w.endsWith('ll') && measure(w.slice(0, -1)) > 1 ? w.slice(0, -1) : w;
}

/** Stems one lower-case word as NLTK's PorterStemmer().stem(word) does. */
export function porterStem(word: string): string {
  const w = word.toLowerCase();
  const irregular = IRREGULAR.get(w);
  if (irregular !== undefined) return irregular;
  if (w.length <= 2) return w;
  return step5b(step5a(firstRule(firstRule(step2(step1c(step1b(step1a(w)))), STEP3_RULES), STEP4_RULES)));
}

/** A stemmer with a cache: ROUGE stems the same words over and over. */
export function createPorterStemmer(maxEntries = 200_000): (word: string) => string {
  const cache = new Map<string, string>();
  return (word: string): string => {
    let s = cache.get(word);
    if (s === undefined) {
      s = porterStem(word);
      if (cache.size >= maxEntries) cache.clear();
      cache.set(word, s);
    }
    return s;
  };
}
