// Scoring per method, as each benchmark's MLPerf reference script does:
// ROUGE (llama2-70b, llama3.1-8b, ...), mixtral's mix of ROUGE and GSM8K,
// and the exact-match graders of deepseek-r1 and gpt-oss.
import type { AccuracyLogEntry } from './accuracy-log.js';
import { aimeCorrect, gsm8kCorrect, mathAnswersEqual, parseAimeAnswer, parseBoxed } from './exact-match.js';
import { multipleChoiceCorrect, parseMultipleChoice, type ChoiceFlavor } from './multiple-choice.js';
import { npMean, npRound, rougeCorpus } from './rouge.js';
import { AccuracyInputError, type SampleScore, type ScoreAccuracyOptions, type Scored } from './score-types.js';
import { englishPunkt, pyStrip, sentencesPerLine, type PunktParameters } from './sentence-split.js';
import type { BenchmarkAccuracy } from './targets.js';
import type { Detokenizer } from './tokenizer.js';

/** Number of Unicode code points (Python's len). */
function pyLen(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
    n++;
  }
  return n;
}

/** Python's round(x, d) for a float: half to even on exact ties of the binary value. */
export function pyRound(x: number, d: number): number {
  if (!Number.isFinite(x)) return x;
  const f = 10 ** d;
  const y = x * f;
  const fl = Math.floor(y);
  if (y - fl === 0.5 && fl / f !== x && (fl + 0.5) / f === x) return (fl % 2 === 0 ? fl : fl + 1) / f;
  return Number(x.toFixed(d));
}

function decodeAll(entries: readonly AccuracyLogEntry[], tok: Detokenizer, skip: boolean): string[] {
  return entries.map((e) => tok.decode(e.tokens, { skipSpecialTokens: skip }));
}

function rougeMetrics(
  preds: readonly string[],
  refs: readonly string[],
  punkt: PunktParameters,
): { metrics: Record<string, number>; per: Record<string, number[]>; pp: string[] } {
  const pp = preds.map((p) => sentencesPerLine(p, punkt));
  const rr = refs.map((r) => sentencesPerLine(r, punkt));
  const agg = rougeCorpus(pp, rr, { useStemmer: true });
  const metrics: Record<string, number> = {};
  for (const [k, v] of Object.entries(agg.mean)) metrics[k] = npRound(v * 100, 4);
  let genLen = 0;
  for (const p of pp) genLen += pyLen(p);
  metrics.gen_len = genLen;
  metrics.gen_num = pp.length;
  return { metrics, per: agg.perSample, pp };
}

export function scoreRouge(
  spec: BenchmarkAccuracy,
  unique: readonly AccuracyLogEntry[],
  refs: readonly string[],
  tok: Detokenizer,
  o: ScoreAccuracyOptions,
): Scored {
  const preds = decodeAll(unique, tok, spec.skipSpecialTokens);
  const targets = unique.map((e) => refs[e.qslIdx]!);
  const { metrics, per, pp } = rougeMetrics(preds, targets, o.punkt ?? englishPunkt());
  if (spec.datasetPreset === 'llama2-70b') {
    let tokLen = 0;
    for (const e of unique) tokLen += e.tokens.length;
    metrics.gen_tok_len = tokLen;
    metrics.tokens_per_sample = pyRound(tokLen / unique.length, 1);
  }
  const out: Scored = { metrics, unknown: {} };
  if (o.keepSamples) {
    out.samples = unique.map((e, i) => ({
      qslIdx: e.qslIdx,
      output: pp[i]!,
      reference: targets[i]!,
      scores: Object.fromEntries(Object.entries(per).map(([k, v]) => [k, v[i]!])),
    }));
  }
  return out;
}

export function scoreMixtral(
  spec: BenchmarkAccuracy,
  all: readonly AccuracyLogEntry[],
  unique: readonly AccuracyLogEntry[],
  refs: readonly string[],
  cats: readonly string[],
  tok: Detokenizer,
  o: ScoreAccuracyOptions,
): Scored {
  const orca: AccuracyLogEntry[] = [];
  const gsm: AccuracyLogEntry[] = [];
  let mbxp = 0;
  let tokLen = 0;
  for (const e of unique) {
    tokLen += e.tokens.length;
    const c = cats[e.qslIdx];
    if (c === 'GSM8K') gsm.push(e);
    else if (c === 'OpenOrca') orca.push(e);
    else mbxp++;
  }
  const samples: SampleScore[] = [];
  let metrics: Record<string, number> = {};
  if (orca.length > 0) {
    const preds = decodeAll(orca, tok, spec.skipSpecialTokens);
    const r = rougeMetrics(
      preds,
      orca.map((e) => refs[e.qslIdx]!),
      o.punkt ?? englishPunkt(),
    );
    metrics = { ...r.metrics };
    delete metrics.gen_num;
    if (o.keepSamples) {
      orca.forEach((e, i) => {
        samples.push({
          qslIdx: e.qslIdx,
          output: r.pp[i]!,
          reference: refs[e.qslIdx]!,
          category: 'OpenOrca',
          scores: Object.fromEntries(Object.entries(r.per).map(([k, v]) => [k, v[i]!])),
        });
      });
    }
  } else {
    metrics.gen_len = 0;
  }
  let correct = 0;
  const gsmPreds = decodeAll(gsm, tok, spec.skipSpecialTokens);
  gsm.forEach((e, i) => {
    const ok = gsm8kCorrect(gsmPreds[i]!, refs[e.qslIdx]!);
    if (ok) correct++;
    if (o.keepSamples)
      samples.push({
        qslIdx: e.qslIdx,
        output: gsmPreds[i]!,
        reference: refs[e.qslIdx]!,
        category: 'GSM8K',
        scores: { gsm8k: ok ? 1 : 0 },
      });
  });
  const unknown: Scored['unknown'] = {};
  if (gsm.length > 0) metrics.gsm8k = (100 * correct) / gsm.length;
  else unknown.gsm8k = 'no GSM8K samples in the log';
  unknown.mbxp =
    mbxp > 0
      ? `${mbxp} MBXP samples need code execution in several languages (evaluate_mbxp): not scored here`
      : 'no MBXP samples in the log';
  // gen_num counts every log entry, duplicates included, as the script does.
  metrics.gen_num = all.length;
  metrics.gen_tok_len = tokLen;
  metrics.tokens_per_sample = pyRound(tokLen / all.length, 1);
  return {
    metrics,
    unknown,
    categories: {
      OpenOrca: { samples: orca.length },
      GSM8K: { samples: gsm.length, correct },
      MBXP: { samples: mbxp },
    },
    ...(o.keepSamples ? { samples } : {}),
  };
}

interface Grader {
  key: string;
  grade(output: string, gt: string): { correct: boolean; extracted: string | number | null } | null;
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
        return { correct: mathAnswersEqual(p, gt), extracted: p };
      },
    },
    {
      key: 'aime',
      grade: (out, gt) => {
        const p = parseAimeAnswer(out);
        return { correct: aimeCorrect(p, gt), extracted: p };
      },
    },
    // Needs running the generated code against the benchmark's tests.
    { key: 'livecodebench', grade: () => null },
  ];
  if (flavor === 'gpt-oss') list.push({ key: 'mmlu', grade: mc('J', 'ABCDEFGHIJ') });
  return list;
}

const GPT_OSS_REPEATS: Record<string, number> = { aime25: 8, gpqa_diamond: 5, livecodebench_v6: 3 };

export function scoreAnswers(
  spec: BenchmarkAccuracy,
  entries: readonly AccuracyLogEntry[],
  refs: readonly string[],
  cats: readonly string[],
  tok: Detokenizer,
  o: ScoreAccuracyOptions,
  notes: string[],
): Scored {
  const flavor: ChoiceFlavor = spec.method === 'gpt-oss' ? 'gpt-oss' : 'deepseek-r1';
  const gs = graders(flavor);
  const stats: Record<string, { samples: number; correct: number }> = {};
  const perRow: number[] = [];
  const tokLens: number[] = [];
  const samples: SampleScore[] = [];
  let unscorable = 0;
  let skipped = 0;
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
    const out = pyStrip(tok.decode(e.tokens, { skipSpecialTokens: spec.skipSpecialTokens }));
    const r = out ? g.grade(out, refs[e.qslIdx]!) : { correct: false, extracted: null };
    const st = (stats[name] ??= { samples: 0, correct: 0 });
    st.samples++;
    tokLens.push(e.tokens.length);
    if (r === null) {
      unscorable++;
      perRow.push(0);
    } else {
      if (r.correct) st.correct++;
      perRow.push(r.correct ? 100 : 0);
    }
    if (o.keepSamples) {
      samples.push({
        qslIdx: e.qslIdx,
        output: out,
        reference: refs[e.qslIdx]!,
        category: cats[e.qslIdx]!,
        scores: r === null ? {} : { exact_match: r.correct ? 1 : 0 },
        extracted: r === null ? null : r.extracted,
      });
    }
  }
  if (skipped)
    notes.push(`${skipped} log entries have a qsl_idx beyond the dataset and were skipped (as the reference does)`);
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
    metrics.tokens_per_sample = npMean(tokLens);
    metrics['num-samples'] = perRow.length;
  }
  if (unscorable > 0) {
    unknown.exact_match = `${unscorable} LiveCodeBench samples need their generated code run against the benchmark's tests: not scored here (counted as wrong in the value shown)`;
  }
  return { metrics, unknown, categories: stats, ...(o.keepSamples ? { samples } : {}) };
}
