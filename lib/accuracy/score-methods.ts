// Scoring per method, as each benchmark's MLPerf reference script does:
// ROUGE (llama2-70b, llama3.1-8b, ...), mixtral's mix of ROUGE and GSM8K,
// (deepseek-r1's and gpt-oss's graders are in score-answers.ts).
import type { AccuracyLogEntry } from './accuracy-log.js';
import { scoreMbxp, type MbxpRow } from './code-mbxp.js';
import { gsm8kCorrect } from './exact-match.js';
import { npRound, rougeCorpus } from './rouge.js';
import type { SampleScore, ScoreAccuracyOptions, Scored } from './score-types.js';
import { englishPunkt, sentencesPerLine, type PunktParameters } from './sentence-split.js';
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

/** An entry with no tokens (a failed sample) is an empty prediction, as the reference's batch decode makes it. */
export function decodeEntry(e: AccuracyLogEntry, tok: Detokenizer, skip: boolean): string {
  return e.tokens.length === 0 ? '' : tok.decode(e.tokens, { skipSpecialTokens: skip });
}

function decodeAll(entries: readonly AccuracyLogEntry[], tok: Detokenizer, skip: boolean): string[] {
  return entries.map((e) => decodeEntry(e, tok, skip));
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

/**
 * mixtral-8x7b: ROUGE on OpenOrca, GSM8K's numbers, MBXP's programs run
 * (code-mbxp.ts) when each row's `id` is known (`ids`, from the dataset file).
 */
export async function scoreMixtral(
  spec: BenchmarkAccuracy,
  all: readonly AccuracyLogEntry[],
  unique: readonly AccuracyLogEntry[],
  refs: readonly string[],
  cats: readonly string[],
  tok: Detokenizer,
  o: ScoreAccuracyOptions,
  ids: ReadonlyArray<string | undefined> | undefined,
  notes: string[],
): Promise<Scored> {
  const orca: AccuracyLogEntry[] = [];
  const gsm: AccuracyLogEntry[] = [];
  const mbxpEntries: AccuracyLogEntry[] = [];
  let tokLen = 0;
  for (const e of unique) {
    tokLen += e.tokens.length;
    const c = cats[e.qslIdx];
    if (c === 'GSM8K') gsm.push(e);
    else if (c === 'OpenOrca') orca.push(e);
    else mbxpEntries.push(e);
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
  const mbxp = mbxpEntries.length;
  let mbxpPassed: number | undefined;
  let datasets: Scored['datasets'];
  if (mbxp === 0) unknown.mbxp = 'no MBXP samples in the log';
  else if (!ids) {
    unknown.mbxp = `${mbxp} MBXP samples need each row's 'id' (language_entrypoint) from the dataset file: not scored`;
  } else {
    const rows: MbxpRow[] = mbxpEntries.map((e) => ({
      qslIdx: e.qslIdx,
      answer: decodeEntry(e, tok, spec.skipSpecialTokens),
      id: ids[e.qslIdx],
      tests: refs[e.qslIdx]!,
      empty: e.tokens.length === 0,
    }));
    const m = await scoreMbxp(rows, o.codeExecution ?? {});
    datasets = m.counts;
    mbxpPassed = m.passed;
    const left = Object.entries(m.leftOut);
    if (left.length > 0) {
      notes.push(
        `MBXP rows of languages the reference does not evaluate, left out of mbxp as it does: ${left.map(([l, n]) => `${l} ${n}`).join(', ')}`,
      );
    }
    const notRun = Object.entries(m.notRun);
    if (m.value !== undefined) metrics.mbxp = m.value;
    if (notRun.length > 0) {
      const n = notRun.reduce((a, [, k]) => a + k, 0);
      unknown.mbxp = `${n} MBXP rows not run (${notRun.map(([why, k]) => `${why}: ${k}`).join('; ')}); the value covers the ${m.evaluated} rows run`;
    } else if (m.value === undefined) unknown.mbxp = 'no MBXP row of a language the reference evaluates';
    if (o.keepSamples) {
      rows.forEach((r) => {
        const res = m.results.get(r.qslIdx);
        samples.push({
          qslIdx: r.qslIdx,
          output: r.answer,
          reference: r.tests,
          category: 'MBXP',
          scores: { mbxp: res?.status === 'passed' ? 1 : 0 },
          ...(r.id !== undefined ? { extracted: r.id } : {}),
          execution: res ? `${res.status}${res.detail ? `: ${res.detail}` : ''}` : 'not run',
        });
      });
    }
  }
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
      MBXP: { samples: mbxp, ...(mbxpPassed !== undefined ? { correct: mbxpPassed } : {}) },
    },
    ...(datasets ? { datasets } : {}),
    ...(o.keepSamples ? { samples } : {}),
  };
}
