// Token accounting: prompt and output tokens per sample, per endpoint and
// for the run. Output tokens are the servers' own counts (what each
// completion reported to the engine). Prompt tokens are exact for token-id
// prompts (the ids sent); for text and chat prompts the client does not know
// them, so they are null here and the servers' counters (server metrics) are
// the figure to use.
import type { Dataset } from '../dataset/types.js';
import type { SampleTiming } from '../sut/types.js';

export interface EndpointTokens {
  url: string;
  samples: number;
  promptTokens: number | null;
  outputTokens: number;
}

export interface TokenAccounting {
  /** Successful samples counted. */
  samples: number;
  promptTokens: number | null;
  outputTokens: number;
  /** 'token-ids' when every counted prompt was token ids; 'unknown' when some were text. */
  promptTokensSource: 'token-ids' | 'unknown';
  endpoints: EndpointTokens[];
  /** Per successful sample, in completion-id order: qsl index, endpoint, prompt and output tokens. */
  perSample: { index: number[]; endpoint: number[]; promptTokens: (number | null)[]; outputTokens: number[] };
}

/** Prompt length in tokens when the prompt is token ids, else null. */
export function promptTokensOf(ds: Dataset, index: number): number | null {
  try {
    const ids = ds.prompt(index).tokenIds;
    return ids ? ids.length : null;
  } catch {
    return null;
  }
}

export function accountTokens(
  timings: readonly SampleTiming[],
  urls: readonly string[],
  ds: Dataset | null,
): TokenAccounting {
  const eps: EndpointTokens[] = urls.map((url) => ({ url, samples: 0, promptTokens: 0, outputTokens: 0 }));
  const per: TokenAccounting['perSample'] = { index: [], endpoint: [], promptTokens: [], outputTokens: [] };
  const cache = new Map<number, number | null>();
  let prompt: number | null = 0;
  let output = 0;
  let samples = 0;
  for (const t of timings) {
    if (!t.ok) continue;
    let p = cache.get(t.index);
    if (p === undefined) {
      p = ds ? promptTokensOf(ds, t.index) : null;
      cache.set(t.index, p);
    }
    samples++;
    output += t.tokens;
    prompt = prompt === null || p === null ? null : prompt + p;
    const e = eps[t.endpoint];
    if (e) {
      e.samples++;
      e.outputTokens += t.tokens;
      e.promptTokens = e.promptTokens === null || p === null ? null : e.promptTokens + p;
    }
    per.index.push(t.index);
    per.endpoint.push(t.endpoint);
    per.promptTokens.push(p);
    per.outputTokens.push(t.tokens);
  }
  return {
    samples,
    promptTokens: prompt,
    outputTokens: output,
    promptTokensSource: prompt === null ? 'unknown' : 'token-ids',
    endpoints: eps,
    perSample: per,
  };
}
