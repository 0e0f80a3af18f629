// MATH-500 grading as MLPerf's deepseek-r1 and gpt-oss-120b scripts do it:
// PRM800K's grade_answer(given, ground_truth). Its rules, restated (the code
// is ours; the symbolic step uses the Cortex Compute Engine where PRM800K
// uses sympy, and our LaTeX-to-text step stands in for pylatexenc's):
//
//  1. Both answers through the MATH ("mathd") normaliser; equal -> correct.
//  2. Both through PRM800K's own normaliser; equal -> correct; an empty
//     given answer -> wrong.
//  3. Both split as tuples/intervals when they start and end with one of
//     ()[] and hold no other bracket: the elements between, split on ",".
//     A tuple ground truth needs the same opening and closing brackets; the
//     element counts must match.
//  4. Element by element: two plain fractions a/b must be equal strings
//     (unreduced fractions are wrong); an integer against a non-integer is
//     wrong; otherwise (gt) - (given) must simplify to 0, attempted only for
//     expressions with at most two distinct letters (after dropping "sqrt"
//     and "frac") and without "^{", "^(" or a power of a power or of a
//     number of two digits or more (PRM800K's guards against slow algebra).
import { ComputeEngine } from '@cortex-js/compute-engine';

import { pyFloat } from './exact-match.js';

// ---- step 1: the MATH normaliser ----

function fixFracs(s: string): string | null {
  const parts = s.split('\\frac');
  let out = parts[0]!;
  for (const sub of parts.slice(1)) {
    out += '\\frac';
    if (sub.length === 0) return null; // Python raises on sub[0]: the normaliser gives up
    if (sub[0] === '{') {
      out += sub;
      continue;
    }
    if (sub.length < 2) return s;
    const a = sub[0]!;
    const b = sub[1]!;
    if (b !== '{') out += `{${a}}{${b}}${sub.slice(2)}`;
    else out += `{${a}}${b}${sub.slice(2)}`;
  }
  return out;
}

function fixSlash(s: string): string {
  const parts = s.split('/');
  if (parts.length !== 2) return s;
  const canon = /^(0|-?[1-9]\d*)$/;
  if (!canon.test(parts[0]!) || !canon.test(parts[1]!)) return s;
  return `\\frac{${parts[0]}}{${parts[1]}}`;
}

function fixSqrt(s: string): string | null {
  if (!s.includes('\\sqrt')) return s;
  const parts = s.split('\\sqrt');
  let out = parts[0]!;
  for (const p of parts.slice(1)) {
    if (p.length === 0) return null;
    out += p[0] !== '{' ? `\\sqrt{${p[0]}}${p.slice(1)}` : `\\sqrt${p}`;
  }
  return out;
}

/** The MATH normaliser (Hendrycks' math_equivalence as PRM800K keeps it). */
export function mathdNormalize(answer: string): string {
  let a = answer.trim();
  const m = /^\\text\{(.+?)\}$/.exec(a);
  if (m) a = m[1]!.trim();
  let s = a.replace(/\n/g, '').replaceAll('\\!', '').replaceAll('\\\\', '\\');
  s = s.replaceAll('tfrac', 'frac').replaceAll('dfrac', 'frac');
  s = s.replaceAll('\\left', '').replaceAll('\\right', '');
  s = s.replaceAll('^{\\circ}', '').replaceAll('^\\circ', '');
  s = s.replaceAll('\\$', '');
  if (s.includes('\\text{ ')) {
    const parts = s.split('\\text{ ');
    if (parts.length !== 2) return a; // an assertion in the original: the normaliser gives up
    s = parts[0]!;
  }
  s = s.replaceAll('\\%', '');
  s = s.replaceAll(' .', ' 0.').replaceAll('{.', '{0.');
  if (s.length === 0) return s;
  if (s[0] === '.') s = `0${s}`;
  const eq = s.split('=');
  if (eq.length === 2 && eq[0]!.length <= 2) s = eq[1]!;
  const sq = fixSqrt(s);
  if (sq === null) return a;
  s = sq.replaceAll(' ', '');
  const fr = fixFracs(s);
  if (fr === null) return a;
  s = fr;
  if (s === '0.5') s = '\\frac{1}{2}';
  return fixSlash(s);
}

// ---- step 2: PRM800K's normaliser ----

const UNITS = [
  'degree',
  'cm',
  'centimeter',
  'meter',
  'mile',
  'second',
  'minute',
  'hour',
  'day',
  'week',
  'month',
  'year',
  'foot',
  'feet',
  'inch',
  'yard',
];

const SYMBOLS: Record<string, string> = {
  pi: 'pi',
  infty: 'inf',
  cup: 'U',
  cdot: '*',
  times: '*',
  pm: '±',
  le: '≤',
  leq: '≤',
  ge: '≥',
  geq: '≥',
  ne: '≠',
  neq: '≠',
  circ: '∘',
  alpha: 'α',
  beta: 'β',
  theta: 'θ',
};

/** A braced group (or one character/macro) starting at i: [content, end]. */
function arg(s: string, i: number): [string, number] {
  while (s[i] === ' ') i++;
  if (s[i] === '{') {
    let depth = 0;
    for (let j = i; j < s.length; j++) {
      if (s[j] === '{') depth++;
      else if (s[j] === '}' && --depth === 0) return [s.slice(i + 1, j), j + 1];
    }
    return [s.slice(i + 1), s.length];
  }
  if (s[i] === '\\') {
    const m = /^\\([A-Za-z]+|.)/.exec(s.slice(i));
    if (m) return [m[0], i + m[0].length];
  }
  return [s[i] ?? '', Math.min(i + 1, s.length)];
}

const simple = (t: string) => /^[A-Za-z0-9.]*$/.test(t);
const paren = (t: string) => (simple(t) ? t : `(${t})`);

/**
 * LaTeX to plain text for the math answers seen: \frac{a}{b} -> a/b
 * (non-trivial parts in parentheses), \sqrt{x} -> sqrt(x), \pi -> pi,
 * \infty -> inf, \cup -> U, \cdot and \times -> *, \text-like macros and
 * braces -> their content, spacing macros and \left / \right dropped,
 * other macros dropped (pylatexenc, which the reference uses, knows more
 * symbols: see docs/accuracy.md).
 */
export function latexToText(src: string): string {
  let out = '';
  for (let i = 0; i < src.length; ) {
    const c = src[i]!;
    if (c === '{' || c === '}') {
      i++;
      continue;
    }
    if (c !== '\\') {
      out += c;
      i++;
      continue;
    }
    const m = /^\\([A-Za-z]+|.)/.exec(src.slice(i));
    if (!m) {
      i++;
      continue;
    }
    const name = m[1]!;
    i += m[0].length;
    if (name === 'frac') {
      const [a, j] = arg(src, i);
      const [b, k] = arg(src, j);
      out += `${paren(latexToText(a))}/${paren(latexToText(b))}`;
      i = k;
    } else if (name === 'sqrt') {
      const [a, j] = arg(src, i);
      out += `sqrt(${latexToText(a)})`;
      i = j;
    } else if (/^(text|textbf|textit|mathrm|mathbf|mbox|operatorname|boxed)$/.test(name)) {
      const [a, j] = arg(src, i);
      out += latexToText(a);
      i = j;
    } else if (name in SYMBOLS) out += SYMBOLS[name];
    else if (name === ',' || name === ';' || name === ' ' || name === ':') out += ' ';
    else if (name === '{' || name === '}' || name === '%' || name === '$') out += name;
  }
  return out.trim();
}

const nearInt = (x: number) => Number.isFinite(x) && Math.abs(x - Math.round(x)) <= 1e-7;

function stripThousands(expr: string): string {
  let prev: string;
  let s = expr;
  do {
    prev = s;
    s = s.replace(/(\d)(,)(\d\d\d)($|\D)/, '$1$3$4');
  } while (s !== prev);
  return s;
}

function strIsInt(x: string): boolean {
  const v = pyFloat(stripThousands(x));
  return v !== null && nearInt(v);
}

function intString(x: number): string {
  return BigInt(Math.trunc(x)).toString();
}

/** PRM800K's normaliser (its _normalize). */
export function prmNormalize(answer: string): string {
  let e = answer;
  const m = /^\\text\{(.+?)\}$/.exec(e);
  if (m) e = m[1]!;
  e = e.replaceAll('\\%', '%').replaceAll('\\$', '$').replaceAll('$', '').replaceAll('%', '');
  e = e.replaceAll(' or ', ' , ').replaceAll(' and ', ' , ');
  e = e.replaceAll('million', '*10^6').replaceAll('billion', '*10^9').replaceAll('trillion', '*10^12');
  for (const u of UNITS) e = e.replace(new RegExp(`${u}(es)?(s)? *(\\^[0-9]+)?`, 'g'), '');
  e = e.replace(/\^ *\\circ/g, '');
  if (e.length > 0 && e[0] === '{' && e[e.length - 1] === '}') e = e.slice(1, -1);
  e = e.replace(/,\\! */g, '');
  const f = pyFloat(e);
  if (f !== null && nearInt(f)) e = intString(Math.round(f));
  if (e.includes('\\')) {
    e = e.replaceAll('\\tfrac', '\\frac').replaceAll('\\dfrac', '\\frac').replaceAll('\\frac', ' \\frac');
    e = latexToText(e).replaceAll('√', 'sqrt').replaceAll('π', 'pi').replaceAll('∞', 'inf');
    e = e.replaceAll('∪', 'U').replaceAll('·', '*').replaceAll('×', '*').trim();
  }
  e = e.replace(/- */g, '-');
  e = e.replace(/([0-9]) +([0-9])/g, '$1+$2'); // a mixed number: 7 3/4 -> 7+3/4
  e = e.replaceAll(' ', '').replaceAll('{', '').replaceAll('}', '').toLowerCase();
  if (strIsInt(e)) e = intString(pyFloat(e.replaceAll(',', ''))!);
  return e;
}

// ---- steps 3 and 4 ----

const TUPLE = '()[]';

function splitTuple(expr: string): string[] {
  const e = stripThousands(expr);
  if (e.length === 0) return [];
  const inner = e.slice(1, -1);
  if (
    e.length > 2 &&
    TUPLE.includes(e[0]!) &&
    TUPLE.includes(e[e.length - 1]!) &&
    ![...TUPLE].some((c) => inner.includes(c))
  )
    return inner.split(',').map((x) => x.trim());
  return [e];
}

const isFrac = (e: string) => /^-?[0-9]+.?\/0*[1-9][0-9]*.?$/.test(e);

function allowEval(expr: string): boolean {
  const letters = new Set([...expr.replaceAll('sqrt', '').replaceAll('frac', '')].filter((c) => /\p{L}/u.test(c)));
  if (letters.size > 2) return false;
  if (expr.includes('^{') || expr.includes('^(')) return false;
  return !/\^[0-9]+\^/.test(expr) && !/\^[0-9][0-9]+/.test(expr);
}

let engine: ComputeEngine | undefined;

/** (gt) - (given) simplifies to 0, decided by the Compute Engine on the normalised text. */
export function equalUnderAlgebra(gt: string, given: string): boolean {
  const expr = `(${gt})-(${given})`;
  if (!allowEval(expr)) return false;
  const latex = expr.replace(/sqrt/g, '\\sqrt').replace(/pi/g, '\\pi').replace(/inf/g, '\\infty').replace(/\*\*/g, '^');
  try {
    engine ??= new ComputeEngine();
    const parsed = engine.parse(latex);
    if (!parsed.isValid) return false;
    return parsed.simplify().is(0) === true;
  } catch {
    return false;
  }
}

/** PRM800K's grade_answer: is `given` a correct answer for `groundTruth`? */
export function gradeMath500(given: string | null, groundTruth: string): boolean {
  if (given === null) return false;
  if (mathdNormalize(groundTruth) === mathdNormalize(given)) return true;
  const gt = prmNormalize(groundTruth);
  const gv = prmNormalize(given);
  if (gt === gv) return true;
  if (gv.length === 0) return false;
  const gtElems = splitTuple(gt);
  const gvElems = splitTuple(gv);
  if (gtElems.length > 1 && (gt[0] !== gv[0] || gt[gt.length - 1] !== gv[gv.length - 1])) return false;
  if (gtElems.length !== gvElems.length) return false;
  for (let i = 0; i < gtElems.length; i++) {
    const a = gtElems[i]!;
    const b = gvElems[i]!;
    let ok: boolean;
    if (isFrac(a) && isFrac(b)) ok = a === b;
    else if (strIsInt(a) !== strIsInt(b)) ok = false;
    else ok = equalUnderAlgebra(a, b);
    if (!ok) return false;
  }
  return true;
}
