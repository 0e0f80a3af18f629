// Which metric names carry what, for each server (PROTOCOLS.md §1.9 vLLM V1,
// §2.5 SGLang with --enable-metrics). Counters are exposed with `_total`.
// Several names per field: newer and older spellings, first found wins.

export type ServerFlavor = 'vllm' | 'sglang';

export interface MetricNames {
  running: string[];
  waiting: string[];
  /** KV-cache usage, 0..1. */
  kvUsage: string[];
  promptTokens: string[];
  generationTokens: string[];
  /** vLLM: prefix-cache lookups and hits, in tokens (counters). */
  prefixQueries: string[];
  prefixHits: string[];
  /** SGLang: the prefix (radix) cache hit rate, a gauge 0..1. */
  cacheHitRate: string[];
  /** TTFT histogram base name (_bucket/_sum/_count). */
  ttft: string[];
  /** Finished requests (counter; vLLM has one series per finished_reason). */
  requests: string[];
  preemptions: string[];
}

export const METRIC_NAMES: Record<ServerFlavor, MetricNames> = {
  vllm: {
    running: ['vllm:num_requests_running'],
    waiting: ['vllm:num_requests_waiting'],
    kvUsage: ['vllm:kv_cache_usage_perc', 'vllm:gpu_cache_usage_perc'],
    promptTokens: ['vllm:prompt_tokens_total'],
    generationTokens: ['vllm:generation_tokens_total'],
    prefixQueries: ['vllm:prefix_cache_queries_total', 'vllm:gpu_prefix_cache_queries_total'],
    prefixHits: ['vllm:prefix_cache_hits_total', 'vllm:gpu_prefix_cache_hits_total'],
    cacheHitRate: [],
    ttft: ['vllm:time_to_first_token_seconds'],
    requests: ['vllm:request_success_total'],
    preemptions: ['vllm:num_preemptions_total'],
  },
  sglang: {
    running: ['sglang:num_running_reqs'],
    waiting: ['sglang:num_queue_reqs'],
    kvUsage: ['sglang:token_usage'],
    promptTokens: ['sglang:prompt_tokens_total'],
    generationTokens: ['sglang:generation_tokens_total'],
    prefixQueries: [],
    prefixHits: [],
    cacheHitRate: ['sglang:cache_hit_rate'],
    ttft: ['sglang:time_to_first_token_seconds'],
    requests: ['sglang:num_requests_total'],
    preemptions: [],
  },
};

/** The flavour a scrape comes from, by its metric names; null when neither. */
export function detectFlavor(names: Iterable<string>): ServerFlavor | null {
  for (const n of names) {
    if (n.startsWith('vllm:')) return 'vllm';
    if (n.startsWith('sglang:')) return 'sglang';
  }
  return null;
}
