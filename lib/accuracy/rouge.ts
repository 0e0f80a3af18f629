// ROUGE-N, ROUGE-L and ROUGE-Lsum as Google's rouge_score computes them
// (the package behind Hugging Face `evaluate.load('rouge')`, which MLPerf's
// llama3.1-8b, llama2-70b and mixtral-8x7b scripts call with use_stemmer=True
// and use_aggregator=False, then average the per-sample F-measures).
//
// Tokenisation: lower-case; every run of characters outside [a-z0-9] becomes a
// space; split on whitespace; with stemming, words longer than 3 characters go
// through the Porter stemmer (NLTK mode); empty tokens are dropped.
// ROUGE-Lsum splits both texts on '\n' (empty lines dropped) and scores the
// union LCS of each reference sentence against all predicted sentences, each
// token counted at most as often as it occurs on both sides (ROUGE-1.5.5).

import { createPorterStemmer } from './porter-stemmer.js';

export type RougeType = 'rouge1' | 'rouge2' | 'rougeL' | 'rougeLsum' | `rouge${number}`;

export interface RougeScore {
  precision: number;
  recall: number;
  fmeasure: number;
}

export interface RougeOptions {
  /** Porter stemming of words longer than 3 characters (MLPerf: true). */
  useStemmer?: boolean;
}

export const DEFAULT_ROUGE_TYPES: readonly RougeType[] = ['rouge1', 'rouge2', 'rougeL', 'rougeLsum'];

const NON_ALNUM = /[^a-z0-9]+/g;

/** rouge_score's default tokenizer. */
export function rougeTokenize(text: string, stem?: (w: string) => string): string[] {
  const spaced = text.toLowerCase().replace(NON_ALNUM, ' ');
  const out: string[] = [];
  for (const piece of spaced.split(' ')) {
    if (piece.length === 0) continue;
    out.push(stem && piece.length > 3 ? stem(piece) : piece);
  }
  return out;
}

function fmeasure(precision: number, recall: number): number {
  return precision + recall > 0 ? (2 * precision * recall) / (precision + recall) : 0;
}

const ZERO: RougeScore = Object.freeze({ precision: 0, recall: 0, fmeasure: 0 });

function countNgrams(tokens: readonly string[], n: number): Map<string, number> {
  const counts = new Map<string, number>();
  for (let i = 0; i + n <= tokens.length; i++) {
    // \u0001 cannot occur in a token (tokens are [a-z0-9]+).
    const key = n === 1 ? tokens[i]! : tokens.slice(i, i + n).join('\u0001');
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return counts;
}

/** ROUGE-N between token lists. */
export function rougeN(target: readonly string[], prediction: readonly string[], n: number): RougeScore {
  const t = countNgrams(target, n);
  const p = countNgrams(prediction, n);
  let overlap = 0;
  for (const [gram, c] of t) overlap += Math.min(c, p.get(gram) ?? 0);
  const tTotal = Math.max(0, target.length - n + 1);
  const pTotal = Math.max(0, prediction.length - n + 1);
  const precision = overlap / Math.max(pTotal, 1);
  const recall = overlap / Math.max(tTotal, 1);
  return { precision, recall, fmeasure: fmeasure(precision, recall) };
}

/** (rows+1) x (cols+1) LCS length table, row-major. */
function lcsTable(a: readonly string[], b: readonly string[]): Uint32Array {
  const cols = b.length + 1;
  const t = new Uint32Array((a.length + 1) * cols);
  for (let i = 1; i <= a.length; i++) {
    const ai = a[i - 1];
    const row = i * cols;
    const prev = row - cols;
    for (let j = 1; j <= b.length; j++) {
      t[row + j] = ai === b[j - 1] ? t[prev + j - 1]! + 1 : Math.max(t[prev + j]!, t[row + j - 1]!);
    }
  }
  return t;
}

/** Length of the longest common subsequence. */
export function lcsLength(a: readonly string[], b: readonly string[]): number {
  if (a.length === 0 || b.length === 0) return 0;
  // Two rows suffice for the length.
  let prev = new Uint32Array(b.length + 1);
  let cur = new Uint32Array(b.length + 1);
  for (let i = 0; i < a.length; i++) {
    const ai = a[i];
    for (let j = 1; j <= b.length; j++) {
      cur[j] = ai === b[j - 1] ? prev[j - 1]! + 1 : Math.max(prev[j]!, cur[j - 1]!);
    }
    [prev, cur] = [cur, prev];
  }
  return prev[b.length]!;
}

/**
 * Indices into `ref` of one LCS with `can`, read back from the bottom-right
 * corner: on a mismatch, move left only when the left cell is strictly larger
 * than the one above (the tie-break decides which LCS is found).
 */
export function lcsIndices(ref: readonly string[], can: readonly string[]): number[] {
  const t = lcsTable(ref, can);
  const cols = can.length + 1;
  const out: number[] = [];
  let i = ref.length;
  let j = can.length;
  while (i > 0 && j > 0) {
    if (ref[i - 1] === can[j - 1]) {
      out.push(i - 1);
      i--;
      j--;
    } else if (t[i * cols + j - 1]! > t[(i - 1) * cols + j]!) {
      j--;
    } else {
      i--;
    }
  }
  return out.reverse();
}

/** ROUGE-L between token lists. */
export function rougeL(target: readonly string[], prediction: readonly string[]): RougeScore {
  if (target.length === 0 || prediction.length === 0) return { ...ZERO };
  const l = lcsLength(target, prediction);
  const precision = l / prediction.length;
  const recall = l / target.length;
  return { precision, recall, fmeasure: fmeasure(precision, recall) };
}

/** Summary-level ROUGE-L over tokenised sentences. */
export function rougeLsumTokens(
  refSents: readonly (readonly string[])[],
  canSents: readonly (readonly string[])[],
): RougeScore {
  if (refSents.length === 0 || canSents.length === 0) return { ...ZERO };
  let m = 0;
  let n = 0;
  const refCounts = new Map<string, number>();
  const canCounts = new Map<string, number>();
  for (const s of refSents) {
    m += s.length;
    for (const tok of s) refCounts.set(tok, (refCounts.get(tok) ?? 0) + 1);
  }
  for (const s of canSents) {
    n += s.length;
    for (const tok of s) canCounts.set(tok, (canCounts.get(tok) ?? 0) + 1);
  }
  if (m === 0 || n === 0) return { ...ZERO };

  let hits = 0;
  for (const r of refSents) {
    const union = new Set<number>();
    for (const c of canSents) for (const idx of lcsIndices(r, c)) union.add(idx);
    const sorted = [...union].sort((x, y) => x - y);
    for (const idx of sorted) {
      const tok = r[idx]!;
      const cc = canCounts.get(tok) ?? 0;
      const rc = refCounts.get(tok) ?? 0;
      if (cc > 0 && rc > 0) {
        hits++;
        canCounts.set(tok, cc - 1);
        refCounts.set(tok, rc - 1);
      }
    }
  }
  const recall = hits / m;
  const precision = hits / n;
  return { precision, recall, fmeasure: fmeasure(precision, recall) };
}

function sentencesOf(text: string): string[] {
  return text.split('\n').filter((s) => s.length > 0);
}

/** Scores one prediction against one target, like RougeScorer(types, use_stemmer).score(target, prediction). */
export class RougeScorer {
  private readonly stem: ((w: string) => string) | undefined;

  constructor(
    readonly types: readonly RougeType[] = DEFAULT_ROUGE_TYPES,
    options: RougeOptions = {},
  ) {
    for (const t of types) {
      if (t === 'rougeL' || t === 'rougeLsum') continue;
      const m = /^rouge([0-9])$/.exec(t);
      if (!m || Number(m[1]) <= 0) throw new RangeError(`invalid rouge type '${t}'`);
    }
    this.stem = options.useStemmer ? createPorterStemmer() : undefined;
  }

  tokenize(text: string): string[] {
    return rougeTokenize(text, this.stem);
  }

  score(target: string, prediction: string): Record<string, RougeScore> {
    const out: Record<string, RougeScore> = {};
    let tt: string[] | undefined;
    let pt: string[] | undefined;
    const tokens = (): [string[], string[]] => {
      tt ??= this.tokenize(target);
      pt ??= this.tokenize(prediction);
      return [tt, pt];
    };
    for (const type of this.types) {
      if (type === 'rougeL') {
        out[type] = rougeL(...tokens());
      } else if (type === 'rougeLsum') {
        out[type] = rougeLsumTokens(
          sentencesOf(target).map((s) => this.tokenize(s)),
          sentencesOf(prediction).map((s) => this.tokenize(s)),
        );
      } else {
        out[type] = rougeN(...tokens(), Number(type.slice(5)));
      }
    }
    return out;
  }
}

export interface RougeAggregate {
  /** Per type: the mean F-measure over samples, as a fraction (0..1). */
  mean: Record<string, number>;
  /** Per type: every sample's F-measure (same order as the inputs). */
  perSample: Record<string, number[]>;
}

/**
 * `evaluate.load('rouge').compute(predictions, references, use_stemmer=True,
 * use_aggregator=False)` followed by the mean of each list: what MLPerf's
 * scripts report (×100, rounded to 4 decimals, by the caller).
 */
export function rougeCorpus(
  predictions: readonly string[],
  references: readonly string[],
  options: RougeOptions & { types?: readonly RougeType[] } = {},
): RougeAggregate {
  if (predictions.length !== references.length) {
    throw new RangeError(`rougeCorpus: ${predictions.length} predictions but ${references.length} references`);
  }
  const scorer = new RougeScorer(options.types ?? DEFAULT_ROUGE_TYPES, options);
  const perSample: Record<string, number[]> = {};
  for (const t of scorer.types) perSample[t] = [];
  for (let i = 0; i < predictions.length; i++) {
    const s = scorer.score(references[i]!, predictions[i]!);
    for (const t of scorer.types) perSample[t]!.push(s[t]!.fmeasure);
  }
  const mean: Record<string, number> = {};
  for (const t of scorer.types) mean[t] = npMean(perSample[t]!);
  return { mean, perSample };
}

/**
 * numpy's mean of a float64 vector: pairwise summation (blocks of 8 lanes,
 * split in halves above 128 elements), then division. Matches np.mean to the
 * last bit for the sizes MLPerf uses.
 */
export function npMean(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  return pairwiseSum(values, 0, values.length) / values.length;
}

function pairwiseSum(a: readonly number[], start: number, n: number): number {
  if (n < 8) {
    let s = 0;
    for (let i = 0; i < n; i++) s += a[start + i]!;
    return s;
  }
  if (n <= 128) {
    const r = [
      a[start]!,
      a[start + 1]!,
      a[start + 2]!,
      a[start + 3]!,
      a[start + 4]!,
      a[start + 5]!,
      a[start + 6]!,
      a[start + 7]!,
    ];
    let i = 8;
    for (; i < n - (n % 8); i += 8) {
      for (let k = 0; k < 8; k++) r[k]! += a[start + i + k]!;
    }
    let s = r[0]! + r[1]! + (r[2]! + r[3]!) + (r[4]! + r[5]! + (r[6]! + r[7]!));
    for (; i < n; i++) s += a[start + i]!;
    return s;
  }
  let half = Math.floor(n / 2);
  half -= half % 8;
  return pairwiseSum(a, start, half) + pairwiseSum(a, start + half, n - half);
}

/**
 * numpy's round(x, decimals) for a float64 (what `round(np.mean(v) * 100, 4)`
 * does in the MLPerf scripts): scale by 10^decimals, round half to even, scale back.
 */
export function npRound(x: number, decimals: number): number {
  if (!Number.isFinite(x)) return x;
  const f = 10 ** decimals;
  const y = x * f;
  const fl = Math.floor(y);
  const diff = y - fl;
  let r: number;
  if (diff > 0.5) r = fl + 1;
  else if (diff < 0.5) r = fl;
  else r = fl % 2 === 0 ? fl : fl + 1;
  return r / f;
}
