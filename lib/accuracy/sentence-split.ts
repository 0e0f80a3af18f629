// Sentence splitting as nltk.sent_tokenize does it (the Punkt algorithm of
// Kiss & Strunk 2006, in NLTK's formulation), used by MLPerf's ROUGE scripts
// to put one sentence per line before ROUGE-Lsum. By default the language
// rules of NLTK 3.8.1, the version MLPerf's llama3.1-8b requirements pin;
// `unicodeQuotes: true` gives NLTK 3.9+'s, where curly quotes and guillemets
// end words and move back onto the sentence they close like ASCII quotes.
//
// The decision procedure is reproduced step by step: candidate ends are
// '.', '?' and '!' followed by punctuation or by whitespace and a token; the
// context around each candidate (the word before it, the candidate, what
// follows) is cut into Punkt word tokens and annotated in two passes (type
// based: sentence-end characters, ellipses, known abbreviations; then token
// based: collocations, the orthographic heuristic, frequent sentence starters,
// initials and numbers); closing quotes and brackets after a break move back
// onto the sentence they close.
//
// The parameters are data: NLTK's trained English model (abbreviations,
// collocations, frequent sentence starters, the case statistics of 20,366
// words). englishPunkt() carries that model as published by the Go port
// neurosnap/sentences (not checked here against NLTK's own files, which this
// project cannot download); loadPunktParameters() reads NLTK's punkt_tab files
// themselves. Plain "word. Word" boundaries, '?' and '!' never depend on the
// model.

import { ENGLISH_ORTHO_CONTEXT } from './punkt-english-ortho.js';

export interface PunktParameters {
  /** Abbreviations, lower case, without the final period (e.g. `u.s`, `mr`). */
  abbrevTypes: ReadonlySet<string>;
  /** Pairs `type\u0000next-type` (lower case, no final period on the first) that never break (build with punktParameters). */
  collocations: ReadonlySet<string>;
  /** Lower-case types that often start sentences. */
  sentStarters: ReadonlySet<string>;
  /** Orthographic context flags per lower-case type (see ORTHO_*). */
  orthoContext: ReadonlyMap<string, number>;
  /** NLTK 3.9+ rules: curly quotes and guillemets count as ASCII quotes (default false: NLTK 3.8.1). */
  unicodeQuotes?: boolean;
}

export const ORTHO_BEG_UC = 1 << 1;
export const ORTHO_MID_UC = 1 << 2;
export const ORTHO_UNK_UC = 1 << 3;
export const ORTHO_BEG_LC = 1 << 4;
export const ORTHO_MID_LC = 1 << 5;
export const ORTHO_UNK_LC = 1 << 6;
const ORTHO_UC = ORTHO_BEG_UC | ORTHO_MID_UC | ORTHO_UNK_UC;
const ORTHO_LC = ORTHO_BEG_LC | ORTHO_MID_LC | ORTHO_UNK_LC;

// --- Regular expressions of the Punkt language variables (English) ---------

// Python's Unicode whitespace (str.isspace, and \s in a str pattern); unlike
// JavaScript's \s it has U+001C..U+001F and U+0085 and lacks U+FEFF.
const WS = '[\\t-\\r\\x1c-\\x20\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]';
const NWS = WS.replace('[', '[^');

const CURLY = '\\u2018\\u2019\\u201c\\u201d\\u00ab\\u00bb';

interface LangRegexes {
  word: RegExp;
  periodContext: RegExp;
  realign: RegExp;
}

function langRegexes(unicodeQuotes: boolean): LangRegexes {
  const q = unicodeQuotes ? CURLY : '';
  // Characters that end a word token and cannot be inside one.
  const nonWord = `[)";}\\]*:@'({[${q}!?]`;
  const multiChar = `(?:-{2,}|\\.{2,}|(?:\\.${WS}){2,}\\.)`;
  const wordStart = `[^("\`{\\[:;&#*@)}\\]\\-,]`;
  return {
    word: new RegExp(
      `${multiChar}|(?=${wordStart})${NWS}+?(?=${WS}|$|${nonWord}|${multiChar}|,(?=$|${WS}|${nonWord}|${multiChar}))|${NWS}`,
      'gu',
    ),
    periodContext: new RegExp(`[.?!](?=(${nonWord}|${WS}+(${NWS}+)))`, 'gu'),
    realign: new RegExp(`^["')\\]}${q}]+?(?:${WS}+|(?=--)|(?=\\n)|$)`, 'u'),
  };
}

const LANG_381 = langRegexes(false);
const LANG_UNICODE = langRegexes(true);
const lang = (p: PunktParameters): LangRegexes => (p.unicodeQuotes ? LANG_UNICODE : LANG_381);

const RE_ELLIPSIS = /^\.\.+$/u;
const RE_NUMERIC = /^-?[.,]?\p{Nd}[\p{Nd},.-]*\.?$/u;
const RE_INITIAL = /^[\p{L}\p{Nl}\p{No}_]\.$/u;
const SENT_END = new Set(['.', '?', '!']);
const PUNCTUATION = new Set([';', ':', ',', '.', '!', '?']);
// Python's string.whitespace.
const ASCII_WS = new Set([' ', '\t', '\n', '\r', '\x0b', '\x0c']);

interface Tok {
  tok: string;
  type: string;
  periodFinal: boolean;
  sentbreak: boolean;
  abbr: boolean;
  ellipsis: boolean;
}

function makeTok(tok: string): Tok {
  const lower = tok.toLowerCase();
  return {
    tok,
    type: RE_NUMERIC.test(lower) ? '##number##' : lower,
    periodFinal: tok.endsWith('.'),
    sentbreak: false,
    abbr: false,
    ellipsis: false,
  };
}

function typeNoPeriod(t: Tok): string {
  return t.type.length > 1 && t.type.endsWith('.') ? t.type.slice(0, -1) : t.type;
}

function typeNoSentPeriod(t: Tok): string {
  return t.sentbreak ? typeNoPeriod(t) : t.type;
}

function firstUpper(t: Tok): boolean {
  return /^\p{Lu}/u.test(t.tok);
}

function firstLower(t: Tok): boolean {
  return /^\p{Ll}/u.test(t.tok);
}

/** Punkt's word tokens of a text, line by line. */
export function punktWords(text: string, params: PunktParameters = englishPunkt()): string[] {
  const re = lang(params).word;
  const out: string[] = [];
  for (const line of text.split('\n')) {
    if (pyStrip(line).length === 0) continue;
    for (const m of line.matchAll(re)) out.push(m[0]);
  }
  return out;
}

function firstPass(t: Tok, p: PunktParameters): void {
  const tok = t.tok;
  if (SENT_END.has(tok)) {
    t.sentbreak = true;
  } else if (RE_ELLIPSIS.test(tok)) {
    t.ellipsis = true;
  } else if (t.periodFinal && !tok.endsWith('..')) {
    const body = tok.slice(0, -1).toLowerCase();
    const lastPart = body.split('-').pop()!;
    if (p.abbrevTypes.has(body) || p.abbrevTypes.has(lastPart)) t.abbr = true;
    else t.sentbreak = true;
  }
}

type Ortho = true | false | 'unknown';

function orthoHeuristic(t: Tok, p: PunktParameters): Ortho {
  if (PUNCTUATION.has(t.tok)) return false;
  const ctx = p.orthoContext.get(typeNoSentPeriod(t)) ?? 0;
  if (firstUpper(t) && ctx & ORTHO_LC && !(ctx & ORTHO_MID_UC)) return true;
  if (firstLower(t) && (ctx & ORTHO_UC || !(ctx & ORTHO_BEG_LC))) return false;
  return 'unknown';
}

function secondPass(t1: Tok, t2: Tok, p: PunktParameters): void {
  if (!t1.periodFinal) return;
  const typ = typeNoPeriod(t1);
  const nextTyp = typeNoSentPeriod(t2);
  const initial = RE_INITIAL.test(t1.tok);

  if (p.collocations.has(`${typ}\u0000${nextTyp}`)) {
    t1.sentbreak = false;
    t1.abbr = true;
    return;
  }
  if ((t1.abbr || t1.ellipsis) && !initial) {
    if (orthoHeuristic(t2, p) === true) {
      t1.sentbreak = true;
      return;
    }
    if (firstUpper(t2) && p.sentStarters.has(nextTyp)) {
      t1.sentbreak = true;
      return;
    }
  }
  if (initial || typ === '##number##') {
    const o = orthoHeuristic(t2, p);
    if (o === false) {
      t1.sentbreak = false;
      t1.abbr = true;
      return;
    }
    if (o === 'unknown' && initial && firstUpper(t2) && !((p.orthoContext.get(nextTyp) ?? 0) & ORTHO_LC)) {
      t1.sentbreak = false;
      t1.abbr = true;
    }
  }
}

/** True when some token other than the last ends a sentence. */
function containsSentbreak(context: string, p: PunktParameters): boolean {
  const toks = punktWords(context, p).map(makeTok);
  for (const t of toks) firstPass(t, p);
  for (let i = 0; i < toks.length; i++) {
    const next = toks[i + 1];
    if (next === undefined) return false;
    // The second pass sees each token after the first pass of its successor
    // and before its own successor is revisited.
    secondPass(toks[i]!, next, p);
    if (toks[i]!.sentbreak) return true;
  }
  return false;
}

function lastWhitespaceIndex(s: string): number {
  for (let i = s.length - 1; i >= 0; i--) if (ASCII_WS.has(s[i]!)) return i;
  return 0;
}

interface Candidate {
  /** Index of the end character. */
  start: number;
  /** One past the end character. */
  end: number;
  afterTok: string;
  /** Start of the whitespace-separated next token, when there is one. */
  nextTokStart?: number;
  context: string;
}

function* candidates(text: string, params: PunktParameters): Generator<Candidate> {
  let prevSliceStart = 0;
  let prevSliceStop = 0;
  let prev: Omit<Candidate, 'context'> | undefined;
  const emit = (c: Omit<Candidate, 'context'>, s: number, e: number): Candidate => ({
    ...c,
    context: text.slice(s, e) + text[c.start] + c.afterTok,
  });
  for (const m of text.matchAll(lang(params).periodContext)) {
    const start = m.index;
    const before = text.slice(prevSliceStop, start);
    let wordStart = lastWhitespaceIndex(before);
    // NLTK treats "no whitespace" and "whitespace at offset 0" alike.
    wordStart = wordStart ? wordStart + prevSliceStop + 1 : prevSliceStart;
    if (prev && prevSliceStop <= wordStart) yield emit(prev, prevSliceStart, prevSliceStop);
    const afterTok = m[1]!;
    const c: Omit<Candidate, 'context'> = { start, end: start + 1, afterTok };
    if (m[2] !== undefined) c.nextTokStart = start + 1 + afterTok.length - m[2].length;
    prev = c;
    prevSliceStart = wordStart;
    prevSliceStop = start;
  }
  if (prev) yield emit(prev, prevSliceStart, prevSliceStop);
}

/** [start, end) spans of the sentences of `text`. */
export function sentenceSpans(text: string, params: PunktParameters = englishPunkt()): Array<[number, number]> {
  const slices: Array<[number, number]> = [];
  let lastBreak = 0;
  for (const c of candidates(text, params)) {
    if (!containsSentbreak(c.context, params)) continue;
    slices.push([lastBreak, c.end]);
    lastBreak = c.nextTokStart ?? c.end;
  }
  slices.push([lastBreak, pyRstrip(text).length]);

  // Closing punctuation after a break belongs to the sentence before it.
  const out: Array<[number, number]> = [];
  let realign = 0;
  for (let i = 0; i < slices.length; i++) {
    const s1: [number, number] = [slices[i]![0] + realign, slices[i]![1]];
    const s2 = slices[i + 1];
    if (s2 === undefined) {
      if (s1[1] > s1[0]) out.push(s1);
      continue;
    }
    const m = lang(params).realign.exec(text.slice(s2[0], Math.max(s2[0], s2[1])));
    if (m) {
      out.push([s1[0], s2[0] + pyRstrip(m[0]).length]);
      realign = m[0].length;
    } else {
      realign = 0;
      if (s1[1] > s1[0]) out.push(s1);
    }
  }
  return out;
}

// Python's str.rstrip() strips Unicode whitespace (str.isspace), which is
// close to, but not exactly, JavaScript's trimEnd set.
const PY_TRAILING_WS = new RegExp(`${WS}+$`, 'u');
const PY_LEADING_WS = new RegExp(`^${WS}+`, 'u');
function pyRstrip(s: string): string {
  return s.replace(PY_TRAILING_WS, '');
}

/** nltk.sent_tokenize(text) with the given (default: stand-in English) parameters. */
export function sentTokenize(text: string, params: PunktParameters = englishPunkt()): string[] {
  return sentenceSpans(text, params).map(([s, e]) => text.slice(s, e));
}

/**
 * MLPerf's postprocess_text for one text: strip, split into sentences, join
 * them with '\n' (rougeLsum reads one sentence per line).
 */
export function sentencesPerLine(text: string, params: PunktParameters = englishPunkt()): string {
  return sentTokenize(pyStrip(text), params).join('\n');
}

/** Python's str.strip() (Unicode whitespace). */
export function pyStrip(s: string): string {
  return pyRstrip(s.replace(PY_LEADING_WS, ''));
}

/** Builds parameters from plain lists. */
export function punktParameters(init: {
  abbrevTypes?: Iterable<string>;
  collocations?: Iterable<readonly [string, string]>;
  sentStarters?: Iterable<string>;
  orthoContext?: Iterable<readonly [string, number]>;
  unicodeQuotes?: boolean;
}): PunktParameters {
  return {
    ...(init.unicodeQuotes ? { unicodeQuotes: true } : {}),
    abbrevTypes: new Set(init.abbrevTypes ?? []),
    collocations: new Set([...(init.collocations ?? [])].map(([a, b]) => `${a}\u0000${b}`)),
    sentStarters: new Set(init.sentStarters ?? []),
    orthoContext: new Map(init.orthoContext ?? []),
  };
}

/**
 * Reads an NLTK punkt_tab language directory (e.g.
 * nltk_data/tokenizers/punkt_tab/english, from nltk.download('punkt_tab')):
 * abbrev_types.txt and sent_starters.txt (one entry a line), collocations.tab
 * (two words a line, tab-separated) and ortho_context.tab (word, tab, flags).
 * With NLTK's own English files the splits are NLTK's exactly.
 */
export async function loadPunktParameters(
  dir: string,
  options: { unicodeQuotes?: boolean } = {},
): Promise<PunktParameters> {
  const { readFile } = await import('node:fs/promises');
  const { join } = await import('node:path');
  const read = async (name: string): Promise<string[]> => {
    let text: string;
    try {
      text = await readFile(join(dir, name), 'utf8');
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      throw new Error(
        `${join(dir, name)}: ${code === 'ENOENT' ? 'no such file (expected an NLTK punkt_tab language directory)' : (err as Error).message}`,
      );
    }
    const lines = text.split('\n');
    if (lines[lines.length - 1] === '') lines.pop();
    return lines;
  };
  const [abbrev, starters, colloc, ortho] = await Promise.all([
    read('abbrev_types.txt'),
    read('sent_starters.txt'),
    read('collocations.tab'),
    read('ortho_context.tab'),
  ]);
  const orthoContext: Array<[string, number]> = [];
  for (const line of ortho) {
    const [word, flags] = line.split('\t');
    const n = Number(flags);
    if (word === undefined || !Number.isInteger(n))
      throw new Error(`${join(dir, 'ortho_context.tab')}: bad line '${line}'`);
    orthoContext.push([word, n]);
  }
  return punktParameters({
    abbrevTypes: abbrev,
    sentStarters: starters,
    collocations: colloc.map((l) => {
      const [a, b] = l.split('\t');
      return [a ?? '', b ?? ''] as const;
    }),
    orthoContext,
    ...(options.unicodeQuotes ? { unicodeQuotes: true } : {}),
  });
}

// NLTK's trained English Punkt model: its abbreviations (156), collocations
// (37), frequent sentence starters (39) and, in punkt-english-ortho.ts, the
// orthographic context of 20,366 word types; as published in
// neurosnap/sentences data/english.json at its first commit (MIT licence).
const EN_ABBREVIATIONS = [
  '. . ',
  'a.a',
  'a.c',
  'a.d',
  'a.g',
  'a.h',
  'a.m',
  'a.m.e',
  'a.s',
  'a.t',
  'adm',
  'ala',
  'ariz',
  'aug',
  'ave',
  'b.f',
  'b.v',
  'bros',
  'c',
  'c.i.t',
  'c.o.m.b',
  'c.v',
  'calif',
  'chg',
  'cie',
  'co',
  'col',
  'colo',
  'conn',
  'corp',
  'cos',
  'ct',
  'd',
  'd.c',
  'd.h',
  'd.w',
  'dec',
  'dr',
  'e',
  'e.f',
  'e.h',
  'e.l',
  'e.m',
  'f',
  'f.g',
  'f.j',
  'feb',
  'fla',
  'fri',
  'ft',
  'g',
  'g.d',
  'g.f',
  'g.k',
  'ga',
  'gen',
  'h',
  'h.c',
  'h.f',
  'h.m',
  'i.m.s',
  'ill',
  'inc',
  'j.b',
  'j.c',
  'j.j',
  'j.k',
  'j.p',
  'j.r',
  'jan',
  'jr',
  'k',
  'kan',
  'ky',
  'l',
  'l.a',
  'l.f',
  'l.p',
  'lt',
  'ltd',
  'm',
  'm.b.a',
  'm.d.c',
  'm.j',
  'maj',
  'messrs',
  'mg',
  'mich',
  'minn',
  'mr',
  'mrs',
  'ms',
  'n',
  'n.c',
  'n.d',
  'n.h',
  'n.j',
  'n.m',
  'n.v',
  'n.y',
  'nev',
  'nov',
  'oct',
  'ok',
  'okla',
  'ore',
  'p',
  'p.a.m',
  'p.m',
  'pa',
  'ph.d',
  'prof',
  'r',
  'r.a',
  'r.h',
  'r.i',
  'r.j',
  'r.k',
  'r.t',
  'rep',
  'reps',
  's',
  's.a',
  's.a.y',
  's.c',
  's.g',
  's.p.a',
  's.s',
  'sen',
  'sep',
  'sept',
  'sr',
  'st',
  'sw',
  't',
  't.j',
  'tenn',
  'tues',
  'u.k',
  'u.n',
  'u.s',
  'u.s.a',
  'u.s.s.r',
  'v',
  'va',
  'vs',
  'vt',
  'w',
  'w.c',
  'w.r',
  'w.va',
  'w.w',
  'wash',
  'wed',
  'wis',
  'yr',
];

const EN_STARTERS = [
  'according',
  'although',
  'among',
  'both',
  'but',
  'despite',
  'even',
  'he',
  'however',
  'i',
  'if',
  'in',
  'indeed',
  'instead',
  'it',
  'many',
  'meanwhile',
  'moreover',
  'most',
  'nevertheless',
  'nonetheless',
  'nor',
  'sales',
  'separately',
  'similarly',
  'since',
  'so',
  'some',
  'the',
  'there',
  'these',
  'they',
  'this',
  'though',
  'thus',
  'under',
  'when',
  'while',
  'yet',
];

const EN_COLLOCATIONS: ReadonlyArray<readonly [string, string]> = [
  ['##number##', 'abreast'],
  ['##number##', 'aes'],
  ['##number##', 'business'],
  ['##number##', 'cbot'],
  ['##number##', 'colgate'],
  ['##number##', 'commodities'],
  ['##number##', 'cooper'],
  ['##number##', 'corrections'],
  ['##number##', 'credit'],
  ['##number##', 'dividend'],
  ['##number##', 'financing'],
  ['##number##', 'genentech'],
  ['##number##', 'henley'],
  ['##number##', 'insider'],
  ['##number##', 'international'],
  ['##number##', 'leisure'],
  ['##number##', 'letters'],
  ['##number##', 'notable'],
  ['##number##', 'pay-fone'],
  ['##number##', 'pegasus'],
  ['##number##', 'pepper'],
  ['##number##', 'review'],
  ['##number##', 'rj'],
  ['##number##', 'wedgestone'],
  ['##number##', 'who'],
  ['##number##', 'zimmer'],
  ['b', 'edelman'],
  ['b', 'levine'],
  ['b', 'smith'],
  ['b', 'stewart'],
  ['b', 'wigton'],
  ['i', 'magnin'],
  ['i', 'toussie'],
  ['j', 'aron'],
  ['j', 'fialka'],
  ['j', 'walter'],
  ['o', 'ludcke'],
];

function* englishOrtho(): Generator<readonly [string, number]> {
  for (const [flags, words] of Object.entries(ENGLISH_ORTHO_CONTEXT)) {
    for (const w of words.split(' ')) yield [w, Number(flags)] as const;
  }
}

let englishPunktCache: PunktParameters | null = null;

/**
 * NLTK's English Punkt parameters (see above), built on first use: 20k
 * words of case statistics are not worth building on every import of the
 * package (a load generator's start-up included).
 */
export function englishPunkt(): PunktParameters {
  englishPunktCache ??= punktParameters({
    abbrevTypes: EN_ABBREVIATIONS,
    collocations: EN_COLLOCATIONS,
    sentStarters: EN_STARTERS,
    orthoContext: englishOrtho(),
  });
  return englishPunktCache;
}
