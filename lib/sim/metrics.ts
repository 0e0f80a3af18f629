// Prometheus text exposition with each server's metric names, so clients
// that scrape /metrics (queue depth, KV usage, token counters, TTFT) can be
// tested. Values come from the simulated engine.
import type { SimFlavor } from './types.js';

const VLLM_TTFT_BUCKETS = [
  0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0, 20.0, 40.0, 80.0, 160.0,
  640.0, 2560.0,
];
const VLLM_E2E_BUCKETS = [
  0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0, 50.0, 60.0, 120.0, 240.0, 480.0, 960.0, 1920.0,
  7680.0,
];
const SGLANG_TTFT_BUCKETS = [0.1, 0.2, 0.4, 0.6, 0.8, 1, 2, 4, 6, 8, 10, 20, 40, 60, 80, 100, 200, 400];
const SGLANG_E2E_BUCKETS = [
  0.1, 0.2, 0.4, 0.6, 0.8, 1, 2, 4, 6, 8, 10, 20, 40, 60, 80, 100, 200, 400, 600, 1200, 1800, 2400,
];

class Histogram {
  readonly counts: number[];
  sum = 0;
  count = 0;

  constructor(readonly buckets: readonly number[]) {
    this.counts = buckets.map(() => 0);
  }

  observe(v: number): void {
    this.sum += v;
    this.count++;
    for (let i = 0; i < this.buckets.length; i++) if (v <= this.buckets[i]!) this.counts[i]!++;
  }
}

/** Python prometheus_client prints floats: 3 -> "3.0". */
function num(v: number): string {
  if (v === Infinity) return '+Inf';
  return Number.isInteger(v) ? v.toFixed(1) : String(v);
}

function esc(v: string): string {
  return v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

export interface EngineGauges {
  running: number;
  waiting: number;
  kvUsage: number;
  kvTokens: number;
}

export type FinishedReason = 'stop' | 'length' | 'abort';

export class Metrics {
  promptTokens = 0;
  generationTokens = 0;
  /** Prefix cache: prompt tokens looked up and found (null while the cache is off: not exported). */
  prefixCacheQueries: number | null = null;
  prefixCacheHits: number | null = null;
  readonly finished: Record<FinishedReason, number> = { stop: 0, length: 0, abort: 0 };
  /** prometheus_client's process collector: the server's start, Unix seconds. */
  readonly processStartTimeSeconds = Date.now() / 1000;
  private readonly ttft: Histogram;
  private readonly e2e: Histogram;

  constructor(
    private readonly flavor: SimFlavor,
    private readonly model: string,
  ) {
    this.ttft = new Histogram(flavor === 'vllm' ? VLLM_TTFT_BUCKETS : SGLANG_TTFT_BUCKETS);
    this.e2e = new Histogram(flavor === 'vllm' ? VLLM_E2E_BUCKETS : SGLANG_E2E_BUCKETS);
  }

  observeTtft(seconds: number): void {
    this.ttft.observe(seconds);
  }

  observeE2e(seconds: number): void {
    this.e2e.observe(seconds);
  }

  render(g: EngineGauges): string {
    const process = [
      '# HELP process_start_time_seconds Start time of the process since unix epoch in seconds.',
      '# TYPE process_start_time_seconds gauge',
      `process_start_time_seconds ${num(this.processStartTimeSeconds)}`,
    ].join('\n');
    return `${process}\n${this.flavor === 'vllm' ? this.renderVllm(g) : this.renderSglang(g)}`;
  }

  private renderVllm(g: EngineGauges): string {
    // vLLM's labelnames are [model_name, engine]; prometheus_client keeps that order.
    const labels = `model_name="${esc(this.model)}",engine="0"`;
    const out: string[] = [];
    const gauge = (name: string, help: string, v: number): void => {
      out.push(`# HELP ${name} ${help}`, `# TYPE ${name} gauge`, `${name}{${labels}} ${num(v)}`);
    };
    const counter = (name: string, help: string, v: number): void => {
      out.push(`# HELP ${name} ${help}`, `# TYPE ${name} counter`, `${name}_total{${labels}} ${num(v)}`);
    };
    gauge('vllm:num_requests_running', 'Number of requests in model execution batches.', g.running);
    gauge('vllm:num_requests_waiting', 'Number of requests waiting to be processed.', g.waiting);
    gauge('vllm:kv_cache_usage_perc', 'KV-cache usage. 1 means 100 percent usage.', g.kvUsage);
    counter('vllm:prompt_tokens', 'Number of prefill tokens processed.', this.promptTokens);
    counter('vllm:generation_tokens', 'Number of generation tokens processed.', this.generationTokens);
    if (this.prefixCacheQueries !== null) {
      counter(
        'vllm:prefix_cache_queries',
        'Prefix cache queries, in terms of number of queried tokens.',
        this.prefixCacheQueries,
      );
      counter(
        'vllm:prefix_cache_hits',
        'Prefix cache hits, in terms of number of cached tokens.',
        this.prefixCacheHits ?? 0,
      );
    }
    out.push(
      '# HELP vllm:request_success Count of successfully processed requests.',
      '# TYPE vllm:request_success counter',
    );
    for (const reason of ['stop', 'length', 'abort'] as const) {
      out.push(`vllm:request_success_total{${labels},finished_reason="${reason}"} ${num(this.finished[reason])}`);
    }
    this.histogram(
      out,
      'vllm:time_to_first_token_seconds',
      'Histogram of time to first token in seconds.',
      labels,
      this.ttft,
    );
    this.histogram(
      out,
      'vllm:e2e_request_latency_seconds',
      'Histogram of e2e request latency in seconds.',
      labels,
      this.e2e,
    );
    return out.join('\n') + '\n';
  }

  private renderSglang(g: EngineGauges): string {
    const labels = `model_name="${esc(this.model)}"`;
    const out: string[] = [];
    const gauge = (name: string, help: string, v: number): void => {
      out.push(`# HELP ${name} ${help}`, `# TYPE ${name} gauge`, `${name}{${labels}} ${num(v)}`);
    };
    const counter = (name: string, help: string, v: number): void => {
      out.push(`# HELP ${name} ${help}`, `# TYPE ${name} counter`, `${name}_total{${labels}} ${num(v)}`);
    };
    gauge('sglang:num_running_reqs', 'The number of running requests.', g.running);
    gauge('sglang:num_queue_reqs', 'The number of requests in the waiting queue.', g.waiting);
    gauge('sglang:num_used_tokens', 'The number of used tokens.', g.kvTokens);
    gauge('sglang:token_usage', 'The token usage.', g.kvUsage);
    counter('sglang:prompt_tokens', 'Number of prefill tokens processed.', this.promptTokens);
    counter('sglang:generation_tokens', 'Number of generation tokens processed.', this.generationTokens);
    if (this.prefixCacheQueries !== null) {
      gauge(
        'sglang:cache_hit_rate',
        'The prefix cache hit rate.',
        this.prefixCacheQueries > 0 ? (this.prefixCacheHits ?? 0) / this.prefixCacheQueries : 0,
      );
    }
    counter('sglang:num_requests', 'The number of processed requests.', this.finished.stop + this.finished.length);
    counter('sglang:num_aborted_requests', 'The number of aborted requests.', this.finished.abort);
    this.histogram(
      out,
      'sglang:time_to_first_token_seconds',
      'Histogram of time to first token in seconds.',
      labels,
      this.ttft,
    );
    this.histogram(
      out,
      'sglang:e2e_request_latency_seconds',
      'Histogram of End-to-end request latency in seconds',
      labels,
      this.e2e,
    );
    return out.join('\n') + '\n';
  }

  private histogram(out: string[], name: string, help: string, labels: string, h: Histogram): void {
    out.push(`# HELP ${name} ${help}`, `# TYPE ${name} histogram`);
    h.buckets.forEach((le, i) => {
      out.push(`${name}_bucket{${labels},le="${num(le)}"} ${num(h.counts[i]!)}`);
    });
    out.push(`${name}_bucket{${labels},le="+Inf"} ${num(h.count)}`);
    out.push(`${name}_count{${labels}} ${num(h.count)}`);
    out.push(`${name}_sum{${labels}} ${num(h.sum)}`);
  }
}
