// Multiple-choice letter extraction and grading (GPQA: A-D; MMLU-Pro: A-J), as
// the deepseek-r1 and gpt-oss-120b reference scripts do it.
//   deepseek-r1: the last "ANSWER"/"FINAL ANSWER" followed by an optional ':'
//     or '=', then the letter (optionally in parentheses) not followed by a
//     letter; for A-J, else the last standalone letter.
//   gpt-oss-120b: first the harmony final channel (<|channel|>final ...
//     <|message|> ... <|return|>) with **bold** removed: a letter at its start,
//     else "Answer: X" in it; then the deepseek pattern on the whole text; for
//     A-J, else the last standalone letter of the final section.
// Python's \b and case-insensitive matching are Unicode-aware: word characters
// here are letters, digits and '_' of any script.

export type ChoiceFlavor = 'deepseek-r1' | 'gpt-oss';

const W = '[\\p{L}\\p{N}_]';
const WB_BEFORE = `(?<!${W})(?=${W})|(?<=${W})(?!${W})`;

function wb(): string {
  return `(?:${WB_BEFORE})`;
}

function letterRange(maxOption: string): string {
  return `A-${maxOption}`;
}

/** Undo the artefacts the references clean: ['...'] wrapping, literal \n and \'. */
function cleanArtifacts(text: string): string {
  let t = text;
  if ((t.startsWith("['") || t.startsWith('["')) && (t.endsWith("']") || t.endsWith('"]'))) t = t.slice(2, -2).trim();
  return t.replaceAll('\\n', '\n').replaceAll("\\'", "'");
}

function lastGroup(re: RegExp, text: string): string | null {
  let last: string | null = null;
  for (const m of text.matchAll(re)) last = m[1]!;
  return last === null ? null : last.toUpperCase();
}

function answerPattern(maxOption: string): RegExp {
  const r = letterRange(maxOption);
  return new RegExp(
    `${wb()}(?:ANSWER|FINAL\\s*ANSWER)${wb()}\\s*[:=]?\\s*(?:\\(?\\s*([${r}])\\s*\\)?)(?:\\s*$|[^A-Za-z])`,
    'giu',
  );
}

function standaloneLetter(maxOption: string): RegExp {
  return new RegExp(`${wb()}([${letterRange(maxOption)}])${wb()}`, 'giu');
}

/** The final section of a harmony-formatted output, or the whole (trimmed) text. */
export function harmonyFinalSection(text: string): string {
  const t = text.trim();
  const m = /<\|channel\|>final[^<]*<\|message\|>([\s\S]*?)(?:<\|return\|>|$)/.exec(t);
  return m ? m[1]!.trim() : t;
}

/** Extracts the chosen letter, or null. */
export function parseMultipleChoice(
  text: string,
  maxOption = 'D',
  flavor: ChoiceFlavor = 'deepseek-r1',
): string | null {
  const t = text.trim();
  if (!t) return null;
  if (flavor === 'deepseek-r1') {
    const cleaned = cleanArtifacts(t);
    const a = lastGroup(answerPattern(maxOption), cleaned);
    if (a) return a;
    if (maxOption === 'J') return lastGroup(standaloneLetter(maxOption), cleaned);
    return null;
  }
  let final = harmonyFinalSection(t).replace(/\*\*([^*]+)\*\*/g, '$1');
  if ((final.startsWith("['") || final.startsWith('["')) && (final.endsWith("']") || final.endsWith('"]'))) {
    final = final.slice(2, -2).trim();
  }
  final = final.replaceAll('\\n', '\n').replaceAll("\\'", "'");
  const r = letterRange(maxOption);
  const first = new RegExp(`^[^a-zA-Z]*([${r}])(?:[^a-zA-Z]|$)`, 'iu').exec(final.trim());
  if (first) return first[1]!.toUpperCase();
  const ans = new RegExp(`${wb()}(?:Answer|ANSWER)\\s*[:.]?\\s*([${r}])${wb()}`, 'iu').exec(final);
  if (ans) return ans[1]!.toUpperCase();
  const full = t.replaceAll('\\n', '\n').replaceAll("\\'", "'");
  const a = lastGroup(answerPattern(maxOption), full);
  if (a) return a;
  if (maxOption === 'J') return lastGroup(standaloneLetter(maxOption), final);
  return null;
}

/** Grading: the letter is one of the options and equals the ground truth (case-insensitive). */
export function multipleChoiceCorrect(parsed: string | null, groundTruth: string, validOptions = 'ABCD'): boolean {
  if (!parsed || !groundTruth) return false;
  const p = parsed.toUpperCase();
  return validOptions.includes(p) && p === groundTruth.toUpperCase();
}
