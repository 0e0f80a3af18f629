// deepseek-r1's and gpt-oss-120b's scoring (their eval_accuracy.py): each
// row's answer extracted by its source dataset (GPQA, MMLU-Pro, MATH-500,
// AIME, LiveCodeBench) and graded: letters and integers compared, MATH-500
// by PRM800K's rules (math-grader.ts), LiveCodeBench programs run against
// the problem's tests in the sandbox (code-sandbox.ts).
import type { AccuracyLogEntry } from './accuracy-log.js';
import { runCodeJobs, type CodeJob, type CodeResult } from './code-sandbox.js';
import { extractCodeDeepseek, extractCodeGptOss, type CodeProblem } from './code-tests.js';
import { aimeCorrect, parseAimeAnswer, parseBoxed } from './exact-match.js';
import { gradeMath500 } from './math-grader.js';
import { multipleChoiceCorrect, parseMultipleChoice, type ChoiceFlavor } from './multiple-choice.js';
import { npMean } from './rouge.js';
import { decodeEntry } from './score-methods.js';
import {
  AccuracyInputError,
  type DatasetCounts,
  type SampleScore,
  type ScoreAccuracyOptions,
  type Scored,
} from './score-types.js';
import { pyStrip } from './sentence-split.js';
import type { BenchmarkAccuracy } from './targets.js';
import type { Detokenizer } from './tokenizer.js';

type Graded = { correct: boolean; extracted: string | number | null };

interface Grader {
  key: string;
  /** Extracts and grades; `code` graders only extract (the program is run later). */
  grade?(output: string, gt: string): Graded;
  code?(output: string): string | null;
}

function graders(flavor: ChoiceFlavor): Grader[] {
  const mc = (max: string, options: string) => (out: string, gt: string) => {
    const p = parseMultipleChoice(out, max, flavor);
    return { correct: multipleChoiceCorrect(p, gt, options), extracted: p };
  };
  const list: Grader[] = [
    { key: 'gpqa', grade: mc('D', 'ABCD') },
    { key: 'mmlu_pro', grade: mc('J', 'ABCDEFGHIJ') },
    {
      key: 'math500',
      grade: (out, gt) => {
        const p = parseBoxed(out);
        // The reference grades nothing when either side is empty.
        return { correct: !!p && !!gt && gradeMath500(p.trim(), gt), extracted: p };
      },
    },
    {
      key: 'aime',
      grade: (out, gt) => {
        const p = parseAimeAnswer(out);
        return { correct: aimeCorrect(p, gt), extracted: p };
      },
    },
    { key: 'livecodebench', code: flavor === 'gpt-oss' ? extractCodeGptOss : extractCodeDeepseek },
  ];
  if (flavor === 'gpt-oss') list.push({ key: 'mmlu', grade: mc('J', 'ABCDEFGHIJ') });
  return list;
}

const GPT_OSS_REPEATS: Record<string, number> = { aime25: 8, gpqa_diamond: 5, livecodebench_v6: 3 };

const emptyCounts = (): DatasetCounts => ({ samples: 0, passed: 0, failed: 0, timedOut: 0, empty: 0, unscored: 0 });

interface Row {
  name: string;
  qslIdx: number;
  tokens: number;
  output: string;
  extracted: string | number | null;
  /** null: not graded yet (code to run) or not gradable (no tests). */
  correct: boolean | null;
  job?: number;
  code?: CodeResult;
}

export async function scoreAnswers(
  spec: BenchmarkAccuracy,
  entries: readonly AccuracyLogEntry[],
  refs: readonly string[],
  cats: readonly string[],
  tok: Detokenizer,
  o: ScoreAccuracyOptions,
  notes: string[],
  problems?: ReadonlyArray<CodeProblem | undefined>,
): Promise<Scored> {
  const flavor: ChoiceFlavor = spec.method === 'gpt-oss' ? 'gpt-oss' : 'deepseek-r1';
  const gs = graders(flavor);
  const rows: Row[] = [];
  const jobs: CodeJob[] = [];
  let skipped = 0;
  let noTests = 0;
  for (const e of entries) {
    if (e.qslIdx >= refs.length) {
      skipped++;
      continue;
    }
    const name = (cats[e.qslIdx] ?? '').toLowerCase();
    if (!name) throw new AccuracyInputError(`sample ${e.qslIdx}: empty dataset name in the category column`);
    const g = gs.find((x) => name.includes(x.key));
    if (!g)
      throw new AccuracyInputError(
        `sample ${e.qslIdx}: no evaluator for dataset '${cats[e.qslIdx]}' (known: ${gs.map((x) => x.key).join(', ')})`,
      );
    const out = pyStrip(decodeEntry(e, tok, spec.skipSpecialTokens));
    const row: Row = { name, qslIdx: e.qslIdx, tokens: e.tokens.length, output: out, extracted: null, correct: false };
    rows.push(row);
    if (!out) continue;
    if (g.grade) {
      const r = g.grade(out, refs[e.qslIdx]!);
      row.correct = r.correct;
      row.extracted = r.extracted;
      continue;
    }
    const code = g.code!(out);
    row.extracted = code;
    // The reference grades a row without a program (or without a question id) as wrong without running anything.
    if (!code || !refs[e.qslIdx]) continue;
    const p = problems?.[e.qslIdx];
    if (!p) {
      row.correct = null;
      noTests++;
      continue;
    }
    row.correct = null;
    row.job = jobs.length;
    jobs.push({ ...p, code });
  }
  if (jobs.length > 0) {
    const results = await runCodeJobs(jobs, o.codeExecution ?? {});
    for (const r of rows) {
      if (r.job === undefined) continue;
      r.code = results[r.job]!;
      r.correct = r.code.status === 'passed';
    }
  }

  const counts: Record<string, DatasetCounts> = {};
  const stats: Record<string, { samples: number; correct: number }> = {};
  const perRow: number[] = [];
  const samples: SampleScore[] = [];
  let empty = 0;
  for (const r of rows) {
    const c = (counts[r.name] ??= emptyCounts());
    const st = (stats[r.name] ??= { samples: 0, correct: 0 });
    c.samples++;
    st.samples++;
    if (r.tokens === 0) {
      c.empty++;
      empty++;
    }
    if (r.correct === null) c.unscored++;
    else if (r.correct) c.passed++;
    else if (r.code?.status === 'timeout') c.timedOut++;
    else c.failed++;
    if (r.correct) st.correct++;
    perRow.push(r.correct ? 100 : 0);
    if (o.keepSamples) {
      samples.push({
        qslIdx: r.qslIdx,
        output: r.output,
        reference: refs[r.qslIdx]!,
        category: cats[r.qslIdx]!,
        scores: r.correct === null ? {} : { exact_match: r.correct ? 1 : 0 },
        extracted: r.extracted,
        ...(r.code ? { execution: `${r.code.status}${r.code.detail ? `: ${r.code.detail}` : ''}` } : {}),
      });
    }
  }
  if (skipped)
    notes.push(`${skipped} log entries have a qsl_idx beyond the dataset and were skipped (as the reference does)`);
  if (empty)
    notes.push(
      `${empty} log entries have no tokens (failed samples): scored as empty answers (wrong), as the reference does`,
    );
  const metrics: Record<string, number> = {};
  const unknown: Scored['unknown'] = {};
  if (perRow.length > 0) {
    if (flavor === 'gpt-oss') {
      let score = 0;
      let max = 0;
      for (const [name, st] of Object.entries(stats)) {
        const rep = GPT_OSS_REPEATS[name] ?? 1;
        score += st.correct / rep;
        max += st.samples / rep;
      }
      metrics.exact_match = Number(((score / max) * 100).toFixed(3));
    } else {
      metrics.exact_match = npMean(perRow);
    }
    metrics.tokens_per_sample = npMean(rows.map((r) => r.tokens));
    metrics['num-samples'] = perRow.length;
  }
  if (noTests > 0) {
    unknown.exact_match = `${noTests} LiveCodeBench samples have no tests in the dataset (columns public_test_cases / private_test_cases): not run (counted as wrong in the value shown)`;
  }
  return { metrics, unknown, categories: stats, datasets: counts, ...(o.keepSamples ? { samples } : {}) };
}
