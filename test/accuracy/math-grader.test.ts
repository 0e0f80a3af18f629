// MATH-500 agreement: (given answer, ground truth) cases with the verdict of
// PRM800K's grade_answer, which the reference scripts call, worked out from
// its rules and the MATH normaliser's documented examples (docs/accuracy.md,
// "MATH-500", lists the reason for each verdict and any disagreement).
import { describe, expect, it } from 'vitest';

import { gradeMath500, mathdNormalize, prmNormalize } from '../../lib/accuracy/math-grader.js';

/** [given, ground truth, the reference's verdict, the rule that decides]. */
const MATH_CASES: Array<[string, string, boolean, string]> = [
  ['\\frac{1}{2}', '0.5', true, 'mathd: 0.5 is rewritten as \\frac{1}{2}'],
  ['1/2', '\\frac{1}{2}', true, 'mathd: a/b of integers becomes \\frac{a}{b}'],
  ['\\dfrac12', '\\frac{1}{2}', true, 'mathd: dfrac -> frac, \\frac12 -> \\frac{1}{2}'],
  ['2/4', '\\frac{1}{2}', false, 'two plain fractions must be equal strings (unreduced is wrong)'],
  ['x+1', '1+x', true, 'algebra: the difference simplifies to 0'],
  ['10.0', '10', true, 'a float that is an integer is written as the integer'],
  ['3.5', '3', false, 'an integer ground truth needs an integer answer'],
  ['90^\\circ', '90', true, 'mathd: ^\\circ removed'],
  ['\\text{(B)}', '(B)', true, 'mathd: an enclosing \\text{} removed'],
  ['1,000', '1000', true, 'thousands separators dropped from an integer'],
  ['(1, 2)', '(1,2)', true, 'mathd: spaces removed'],
  ['[1,2)', '(1,2)', false, 'a tuple/interval needs the same brackets'],
  ['(1,2,3)', '(1,2)', false, 'a tuple needs as many elements'],
  ['(2,1)', '(1,2)', false, 'tuples compare element by element, in order'],
  ['\\sqrt{2}/2', '\\frac{\\sqrt{2}}{2}', true, 'algebra'],
  ['2\\sqrt{3}', '\\sqrt{12}', true, 'algebra: sqrt(12) = 2 sqrt(3)'],
  ['\\frac{1}{\\sqrt{3}}', '\\frac{\\sqrt{3}}{3}', true, 'algebra'],
  ['5\\text{ cm}', '5', true, 'mathd: units after "\\text{ " removed'],
  ['x=5', '5', true, 'mathd: a short "x=" prefix removed'],
  ['\\$18.90', '18.90', true, 'mathd: \\$ removed'],
  ['50\\%', '50', true, 'mathd: \\% removed'],
  ['y', 'x', false, 'different symbols'],
  ['\\frac{3}{4}', '0.75', true, 'algebra: 0.75 - 3/4 = 0'],
  ['0.333', '\\frac{1}{3}', false, 'algebra: a rounded decimal is not equal'],
  ['ten', '10', false, 'words are not numbers'],
  ['x^2+2x+1', '(x+1)^2', true, 'algebra'],
  ['2^{10}', '1024', false, 'an integer ground truth needs an integer answer (no algebra)'],
  ['(-\\infty, 3)', '(-\\infty,3)', true, 'mathd: spaces removed'],
  ['3 \\text{ or } 4', '3, 4', true, 'PRM800K: " or " becomes a comma (then the mathd and tuple rules)'],
  [
    '1.5\\text{ million}',
    '1500000',
    false,
    'million becomes *10^6: 1.5*10^6 is not an integer string, the ground truth is',
  ],
  ['\\frac{\\pi}{2}', '\\pi/2', true, 'algebra'],
  ['4\\pi', '\\pi', false, 'algebra: 3 pi is not 0'],
  ['a+b+c', 'c+b+a', false, 'more than two letters: the reference refuses to try algebra'],
  ['', '5', false, 'an empty answer is wrong'],
];

describe('MATH-500 graded as PRM800K grades it', () => {
  it.each(MATH_CASES)('%s against %s: %s (%s)', (given, gt, verdict) => {
    expect(gradeMath500(given, gt)).toBe(verdict);
  });

  it("the normalisers' documented rewrites", () => {
    expect(mathdNormalize('\\frac12')).toBe('\\frac{1}{2}');
    expect(mathdNormalize('\\sqrt3')).toBe('\\sqrt{3}');
    expect(mathdNormalize('.5')).toBe('\\frac{1}{2}');
    expect(prmNormalize('1,000,000')).toBe('1000000');
    expect(prmNormalize('\\frac{1}{2}')).toBe('1/2');
    expect(prmNormalize('7 3/4')).toBe('7+3/4');
    expect(prmNormalize('12 \\text{degrees}')).toBe('12');
  });
});
