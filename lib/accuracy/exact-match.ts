// Exact match of final answers, as MLPerf's reference scripts extract them:
//   - GSM8K (mixtral-8x7b evaluate-accuracy.py): the text before the first
//     "\nQ:", then the first number after the last "The answer is", else the
//     last number; commas dropped; compared as floats with the ground truth;
//   - AIME (deepseek-r1 / gpt-oss eval_accuracy.py): the last \boxed{digits},
//     else the last "Answer: digits"; an integer 0..999 compared with int(gt);
//   - MATH-500: the content of the last \boxed{...} (braces balanced),
//     graded by PRM800K's rules in math-grader.ts; mathAnswersEqual below is
//     a plain normalised comparison, no longer used for scoring.

/** Python's float(str) for the strings these scripts produce; null where Python raises. */
export function pyFloat(s: string): number | null {
  const t = s.trim();
  if (/^[+-]?(inf|infinity)$/i.test(t)) return t.startsWith('-') ? -Infinity : Infinity;
  if (/^[+-]?nan$/i.test(t)) return Number.NaN;
  if (!/^[+-]?(\d(_?\d)*(\.(\d(_?\d)*)?)?|\.\d(_?\d)*)([eE][+-]?\d(_?\d)*)?$/.test(t)) return null;
  return Number(t.replace(/_/g, ''));
}

const NUMBER_RE = /-?[\d,]*\.?\d+/g;

/** All number-like substrings (mixtral's find_numbers). */
export function findNumbers(text: string): string[] {
  return text.match(NUMBER_RE) ?? [];
}

/** mixtral's find_number: the first number after the last delimiter, else the last number, else ''. */
export function findNumber(text: string, delimiter = 'The answer is'): string {
  if (text.includes(delimiter)) {
    const parts = text.split(delimiter);
    const nums = findNumbers(parts[parts.length - 1]!);
    if (nums.length > 0) return nums[0]!;
  }
  const nums = findNumbers(text);
  return nums.length > 0 ? nums[nums.length - 1]! : '';
}

/** The GSM8K answer extracted from a generated text (before the first "\nQ:", commas removed). */
export function extractGsm8kAnswer(text: string): string {
  return findNumber(text.split('\nQ:')[0]!).replace(/,/g, '');
}

/** True when the GSM8K prediction equals the ground truth as floats. */
export function gsm8kCorrect(prediction: string, groundTruth: string): boolean {
  const p = pyFloat(extractGsm8kAnswer(prediction));
  const g = pyFloat(groundTruth);
  return p !== null && g !== null && p === g;
}

/** Content of the last \boxed{...} with balanced braces, trimmed; null when absent or unclosed. */
export function parseBoxed(text: string): string | null {
  const t = text.trim();
  const at = t.lastIndexOf('\\boxed{');
  if (at < 0) return null;
  let depth = 0;
  const start = at + 7;
  for (let i = start; i < t.length; i++) {
    const c = t[i];
    if (c === '{') depth++;
    else if (c === '}') {
      if (depth === 0) return t.slice(start, i).trim();
      depth--;
    }
  }
  return null;
}

/** The AIME answer: last \boxed{digits}, else last "Answer: digits"; an integer 0..999 or null. */
export function parseAimeAnswer(text: string): number | null {
  const t = text.trim();
  if (!t) return null;
  let digits: string | undefined;
  const boxed = [...t.matchAll(/\\boxed\{\s*(\d+)\s*\}/g)];
  if (boxed.length > 0) digits = boxed[boxed.length - 1]![1];
  else {
    const ans = [...t.matchAll(/Answer:\s*(\d+)(?!\.)\b/gi)];
    if (ans.length === 0) return null;
    digits = ans[ans.length - 1]![1];
  }
  const v = Number.parseInt(digits!, 10);
  return v >= 0 && v <= 999 ? v : null;
}

/** AIME grading: the parsed integer equals int(ground truth). */
export function aimeCorrect(parsed: number | null, groundTruth: string | number): boolean {
  if (parsed === null) return false;
  const s = String(groundTruth).trim().replace(/_/g, '');
  if (!/^[+-]?\d+$/.test(s)) return false;
  return Number.parseInt(s, 10) === parsed;
}

/** Normalises a LaTeX answer for comparison (an approximation of PRM800K's normaliser). */
export function normalizeMathAnswer(answer: string): string {
  let s = answer.trim();
  const text = /^\\text\{(.*)\}$/s.exec(s);
  if (text) s = text[1]!;
  s = s
    .replace(/\\text\{\s*([^{}]*)\}/g, '$1')
    .replace(/\\(?:left|right)\b/g, '')
    .replace(/\\[!,;: ]/g, '')
    .replace(/\\dfrac|\\tfrac/g, '\\frac')
    .replace(/\^\{?\\circ\}?/g, '')
    .replace(/\\%|%/g, '')
    .replace(/\$/g, '')
    .replace(/\s+/g, '')
    .replace(/\.$/, '');
  // \frac12 -> \frac{1}{2}; a leading "x=" is dropped.
  s = s.replace(/\\frac(\d)(\d)/g, '\\frac{$1}{$2}').replace(/^[a-z]=/i, '');
  // 1,000 -> 1000 when it is a plain number.
  if (/^-?\d{1,3}(,\d{3})+(\.\d+)?$/.test(s)) s = s.replace(/,/g, '');
  return s;
}

function numericValue(s: string): number | null {
  const frac = /^(-?)\\frac\{(-?\d+(?:\.\d+)?)\}\{(-?\d+(?:\.\d+)?)\}$/.exec(s);
  if (frac) return (frac[1] ? -1 : 1) * (Number(frac[2]) / Number(frac[3]));
  const slash = /^(-?\d+(?:\.\d+)?)\/(-?\d+(?:\.\d+)?)$/.exec(s);
  if (slash) return Number(slash[1]) / Number(slash[2]);
  const v = pyFloat(s);
  return v === null || Number.isNaN(v) ? null : v;
}

/** MATH-500 grading, approximated: normalised strings equal, or equal numbers. */
export function mathAnswersEqual(given: string | null, groundTruth: string): boolean {
  if (!given || !groundTruth) return false;
  const a = normalizeMathAnswer(given);
  const b = normalizeMathAnswer(groundTruth);
  if (a.length === 0) return false;
  if (a === b) return true;
  const x = numericValue(a);
  const y = numericValue(b);
  return x !== null && y !== null && Math.abs(x - y) <= 1e-9 * Math.max(1, Math.abs(y));
}
