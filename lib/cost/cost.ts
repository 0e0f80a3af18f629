// What a run cost: every endpoint's GPUs at their hourly price over the
// test's wall time (GPUs are paid whether busy or not), then per token, per
// 1,000 queries and per query that met the latency targets. A "query" here is
// one sample (one request): MLPerf's Offline packs all samples into one query,
// which would make a per-query price meaningless.
import type { Goodput } from './goodput.js';
import type { EndpointPrice } from './pricing.js';
import type { TokenAccounting } from './token-accounting.js';

export interface CostReport {
  currency: 'USD';
  /** Billed span: the test's wall time (startedAt → endedAt). */
  billedSeconds: number;
  dollarsPerHour: number;
  dollars: number;
  endpoints: Array<EndpointPrice & { url: string; dollars: number }>;
  /** Each divides the whole cost by one count (null when the count is 0 or unknown). */
  perMillionOutputTokens: number | null;
  perMillionInputTokens: number | null;
  perMillionTokens: number | null;
  perThousandQueries: number | null;
  /** Cost / queries within the latency targets (goodput). */
  perGoodQuery: number | null;
  queries: number;
  goodQueries: number;
}

const per = (dollars: number, n: number | null, scale: number): number | null =>
  n !== null && n > 0 ? (dollars / n) * scale : null;

export function computeCost(
  prices: readonly EndpointPrice[],
  urls: readonly string[],
  billedSeconds: number,
  tokens: TokenAccounting,
  goodput: Goodput,
): CostReport {
  const hours = Math.max(0, billedSeconds) / 3600;
  const endpoints = prices.map((p, i) => ({ ...p, url: urls[i] ?? `#${i + 1}`, dollars: p.dollarsPerHour * hours }));
  const dollarsPerHour = prices.reduce((a, p) => a + p.dollarsPerHour, 0);
  const dollars = dollarsPerHour * hours;
  const total = tokens.promptTokens === null ? null : tokens.promptTokens + tokens.outputTokens;
  return {
    currency: 'USD',
    billedSeconds,
    dollarsPerHour,
    dollars,
    endpoints,
    perMillionOutputTokens: per(dollars, tokens.outputTokens, 1e6),
    perMillionInputTokens: per(dollars, tokens.promptTokens, 1e6),
    perMillionTokens: per(dollars, total, 1e6),
    perThousandQueries: per(dollars, tokens.samples, 1e3),
    perGoodQuery: per(dollars, goodput.good, 1),
    queries: tokens.samples,
    goodQueries: goodput.good,
  };
}
