// Answer extraction for the exact-match metrics, worked by hand from the
// reference scripts' regular expressions (mixtral-8x7b evaluate-accuracy.py,
// deepseek-r1 and gpt-oss-120b eval_accuracy.py).
import { describe, expect, it } from 'vitest';

import {
  aimeCorrect,
  extractGsm8kAnswer,
  findNumber,
  gsm8kCorrect,
  mathAnswersEqual,
  parseAimeAnswer,
  parseBoxed,
  pyFloat,
} from '../../lib/accuracy/exact-match.js';
import { harmonyFinalSection, multipleChoiceCorrect, parseMultipleChoice } from '../../lib/accuracy/multiple-choice.js';

describe('GSM8K (mixtral)', () => {
  it('first number after the last "The answer is", else the last number', () => {
    expect(findNumber('The answer is 42.')).toBe('42');
    expect(findNumber('x is 3. The answer is 1,234 apples and 5')).toBe('1,234');
    expect(findNumber('first 5 then 7.5')).toBe('7.5');
    expect(findNumber('The answer is unknown, maybe 9')).toBe('9');
    expect(findNumber('no numbers')).toBe('');
    expect(findNumber('a,5')).toBe(',5');
    expect(findNumber('It is -3 degrees')).toBe('-3');
  });

  it('cuts at the first "\\nQ:" and drops commas; compares as floats', () => {
    expect(extractGsm8kAnswer('so 12 in total\nQ: what is 99?')).toBe('12');
    expect(extractGsm8kAnswer('The answer is 1,234.')).toBe('1234');
    expect(gsm8kCorrect('The answer is 3.0', '3')).toBe(true);
    expect(gsm8kCorrect('The answer is 4', '3')).toBe(false);
    expect(gsm8kCorrect('nothing', '3')).toBe(false);
    expect(gsm8kCorrect('The answer is 3', 'three')).toBe(false);
  });

  it('Python float() syntax', () => {
    expect(pyFloat(' 12 ')).toBe(12);
    expect(pyFloat('1_000')).toBe(1000);
    expect(pyFloat('.5')).toBe(0.5);
    expect(pyFloat('1e3')).toBe(1000);
    expect(pyFloat('')).toBeNull();
    expect(pyFloat('1,000')).toBeNull();
    expect(pyFloat('-inf')).toBe(-Infinity);
  });
});

describe('AIME and MATH-500 (deepseek-r1, gpt-oss)', () => {
  it('AIME: last \\boxed{digits}, else last "Answer: digits" not followed by a period; 0..999', () => {
    expect(parseAimeAnswer('so \\boxed{ 033 } is it')).toBe(33);
    expect(parseAimeAnswer('\\boxed{1} then \\boxed{2}')).toBe(2);
    expect(parseAimeAnswer('answer: 12')).toBe(12);
    expect(parseAimeAnswer('Answer: 12.5')).toBeNull();
    expect(parseAimeAnswer('\\boxed{1000}')).toBeNull();
    expect(parseAimeAnswer('')).toBeNull();
    expect(aimeCorrect(33, '033')).toBe(true);
    expect(aimeCorrect(33, 33)).toBe(true);
    expect(aimeCorrect(null, '1')).toBe(false);
    expect(aimeCorrect(5, 'five')).toBe(false);
  });

  it('MATH-500: content of the last \\boxed{...} with balanced braces', () => {
    expect(parseBoxed('x \\boxed{\\frac{1}{2}} y')).toBe('\\frac{1}{2}');
    expect(parseBoxed('\\boxed{a{b}c} and \\boxed{ 7 }')).toBe('7');
    expect(parseBoxed('\\boxed{unclosed')).toBeNull();
    expect(parseBoxed('none')).toBeNull();
  });

  it('MATH-500 equality after normalisation', () => {
    expect(mathAnswersEqual('\\frac{1}{2}', '0.5')).toBe(true);
    expect(mathAnswersEqual('\\dfrac12', '\\frac{1}{2}')).toBe(true);
    expect(mathAnswersEqual('90^\\circ', '90')).toBe(true);
    expect(mathAnswersEqual('\\text{(B)}', '(B)')).toBe(true);
    expect(mathAnswersEqual('1,000', '1000')).toBe(true);
    expect(mathAnswersEqual('x = 3', '3')).toBe(true);
    expect(mathAnswersEqual('\\left( 1, 2 \\right)', '(1,2)')).toBe(true);
    expect(mathAnswersEqual('3', '4')).toBe(false);
    expect(mathAnswersEqual(null, '4')).toBe(false);
  });
});

describe('multiple choice', () => {
  it('deepseek-r1: last ANSWER / FINAL ANSWER pattern, letter not followed by a letter', () => {
    expect(parseMultipleChoice('ANSWER: B')).toBe('B');
    expect(parseMultipleChoice('first ANSWER: A ... Final Answer: (c)')).toBe('C');
    expect(parseMultipleChoice('answer = d.')).toBe('D');
    expect(parseMultipleChoice('ANSWER: E')).toBeNull();
    expect(parseMultipleChoice('The ANSWER is A')).toBeNull();
    expect(parseMultipleChoice('ANSWER: Ab')).toBeNull();
    expect(parseMultipleChoice("['ANSWER: D']")).toBe('D');
    expect(parseMultipleChoice('line\\nANSWER: B')).toBe('B');
    // Python's \b is Unicode-aware: no boundary between "é" and "A".
    expect(parseMultipleChoice('éANSWER: B')).toBeNull();
    expect(parseMultipleChoice('')).toBeNull();
  });

  it('MMLU-Pro (A-J): falls back to the last standalone letter', () => {
    expect(parseMultipleChoice('I pick J here', 'J')).toBe('J');
    expect(parseMultipleChoice('ANSWER: H', 'J')).toBe('H');
    expect(parseMultipleChoice('no letters here', 'J')).toBeNull();
  });

  it('gpt-oss: harmony final channel first, bold removed', () => {
    const t =
      '<|channel|>analysis<|message|>maybe A<|end|><|start|>assistant<|channel|>final<|message|>**C**<|return|>';
    expect(harmonyFinalSection(t)).toBe('**C**');
    expect(parseMultipleChoice(t, 'D', 'gpt-oss')).toBe('C');
    expect(parseMultipleChoice('<|channel|>final<|message|>The answer: B', 'D', 'gpt-oss')).toBe('B');
    expect(parseMultipleChoice('(A) because', 'D', 'gpt-oss')).toBe('A');
    expect(parseMultipleChoice('Thinking. FINAL ANSWER: d', 'D', 'gpt-oss')).toBe('D');
  });

  it('grading: one of the options and equal to the ground truth', () => {
    expect(multipleChoiceCorrect('b', 'B')).toBe(true);
    expect(multipleChoiceCorrect('E', 'E')).toBe(false);
    expect(multipleChoiceCorrect('E', 'E', 'ABCDEFGHIJ')).toBe(true);
    expect(multipleChoiceCorrect(null, 'A')).toBe(false);
  });
});

describe('against the reference functions themselves', () => {
  it('gives what the reference scripts return on the same inputs (outputs recorded by running them)', async () => {
    const { readFileSync } = await import('node:fs');
    const { join } = await import('node:path');
    const f = JSON.parse(
      readFileSync(join(import.meta.dirname, '../fixtures/accuracy/answers-reference.json'), 'utf8'),
    ) as {
      cases: { mc: [string, string][]; gmc: [string, string][]; num: string[]; aime: string[]; boxed: string[] };
      expected: Record<string, unknown[]>;
    };
    const c = f.cases;
    expect(c.mc.map(([t, m]) => parseMultipleChoice(t, m))).toEqual(f.expected.mc);
    expect(c.gmc.map(([t, m]) => parseMultipleChoice(t, m, 'gpt-oss'))).toEqual(f.expected.gmc);
    expect(c.num.map((t) => findNumber(t))).toEqual(f.expected.num);
    expect(c.aime.map((t) => parseAimeAnswer(t))).toEqual(f.expected.aime);
    expect(c.boxed.map((t) => parseBoxed(t))).toEqual(f.expected.boxed);
  });
});
