// The flags of `loadgen run`, added to a commander command: `loadgen run`
// and `loadgen sweep` (which takes every run flag, plus its own) share them.
import { InvalidArgumentError, type Command } from 'commander';

export const DEFAULT_OUTPUT_DIR = 'loadgen-out';

export function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

export function number(v: string): number {
  const n = Number(v);
  if (v.trim() === '' || !Number.isFinite(n)) throw new InvalidArgumentError('expected a number');
  return n;
}

export function integer(v: string): number {
  if (!/^\s*-?\d+\s*$/.test(v)) throw new InvalidArgumentError('expected an integer');
  return Number(v);
}

/** Adds every `loadgen run` flag to `cmd`; returns it. */
export function addRunFlags(cmd: Command): Command {
  return cmd
    .option('-c, --config <file>', 'YAML or JSON file with any of these options (flags win)')
    .option('--scenario <name>', 'SingleStream | MultiStream | Server | Offline (required)')
    .option('--mode <mode>', 'performance (default) | accuracy | submission | find-peak')
    .option(
      '--benchmark <model>',
      'MLPerf model key (e.g. llama3_1-8b): official settings, dataset preset and sampling',
    )
    .option('--mlperf-conf <file>', 'an mlperf.conf instead of the built-in table (with --benchmark)')
    .option('--user-conf <file>', 'user.conf applied on top of the official settings')
    .option(
      '--endpoint <url>',
      'server base URL, e.g. http://gpu1:8000 (repeat for several; http://user:password@host sends HTTP Basic); none = built-in simulator',
      collect,
    )
    .option('--backend <name>', 'auto (default) | vllm | sglang | openai')
    .option('--api <name>', 'completions (default) | chat | generate (SGLang native)')
    .option('--model <name>', 'served model name (default: the first of /v1/models)')
    .option('--api-key <key>', 'sent as Authorization: Bearer <key>')
    .option('--dataset <file>', 'prompts: .json, .jsonl or .parquet (default: synthetic)')
    .option('--dataset-format <fmt>', 'json | jsonl | parquet (default: from the file name)')
    .option('--preset <name>', 'dataset preset (default: the --benchmark one), e.g. llama3_1-8b, deepseek-r1, dummy')
    .option('--field-input-ids <column>', 'column of token-id prompts')
    .option('--field-text <column>', 'column of text prompts')
    .option('--field-messages <column>', 'column of chat messages')
    .option('--field-system <column>', 'column of system prompts (chat)')
    .option('--field-user <column>', 'column of user messages (chat, with --field-system)')
    .option('--field-reference <column>', 'column of reference outputs (accuracy)')
    .option('--field-max-tokens <column>', 'column of per-sample output caps')
    .option('--text-template <template>', 'text prompt from {column} placeholders')
    .option('--limit <n>', 'read only the first n rows of the dataset', integer)
    .option(
      '--synthetic <isl/osl>',
      'synthetic prompts: input/output token lengths, each N, MIN-MAX or MEAN~STD (default 128/32)',
    )
    .option('--synthetic-samples <n>', 'synthetic dataset size (default 1024)', integer)
    .option(
      '--conversations <file>',
      'multi-turn: conversations (.jsonl, .json or .parquet; native, ShareGPT or OpenAI messages); chat API',
    )
    .option(
      '--multiturn <style>',
      'replay (default: a turn is a sample, recorded history) | live (a conversation is a sample, history from the model)',
    )
    .option('--max-concurrent-conversations <n>', 'live: conversations in progress at once (default 64)', integer)
    .option(
      '--tool-results <file>',
      'live: JSON object of tool name -> result, for calls the dataset has no recorded result for',
    )
    .option('--tool-handler <module>', 'live: JS module whose default export answers tool calls: (call) => result')
    .option('--max-tokens <n>', 'output cap for samples without their own', integer)
    .option('--ignore-eos', 'keep generating past EOS up to the output cap')
    .option('--target-qps <qps>', 'Server: target QPS; Offline: expected QPS', number)
    .option('--concurrency <n>', 'most requests in flight at once, over all endpoints', integer)
    .option(
      '--closed-loop <n>',
      'not MLPerf (Server): n requests in flight, each completion sending the next (vllm bench --max-concurrency); --target-qps only sizes the generated queries',
      integer,
    )
    .option(
      '--burstiness <k>',
      "not MLPerf unless 1 (Server): gamma inter-arrival shape, as vLLM's; < 1 is burstier",
      number,
    )
    .option(
      '--ramp-from <qps>',
      'not MLPerf (Server): the rate ramps up from this to --target-qps over --ramp-duration',
      number,
    )
    .option('--ramp-duration <duration>', "the ramp-up's length, in ms or e.g. 30s, 5m")
    .option('--ramp-shape <shape>', 'linear (default) | exponential')
    .option(
      '--trace <file>',
      'not MLPerf (Server): replay a trace at its times: Mooncake JSONL, or JSONL/CSV of timestamp (ms), input_length, output_length[, hash_ids]',
    )
    .option('--trace-speed <x>', 'replay the trace x times as fast (default 1)', number)
    .option(
      '--max-model-len <n>',
      "the model's context in tokens, for the trace's lint (default: the simulator's)",
      integer,
    )
    .option('--dry-run', 'with --trace: print what will be sent (rate, tokens, prefix sharing) and the lint, then exit')
    .option(
      '--workers <n>',
      'adapter worker threads (0 = main thread; default CPU count - 1, 1..8, and 2 on 2 CPUs)',
      integer,
    )
    .option(
      '--busy-poll [idle-ms]',
      'adapter threads poll their sockets instead of sleeping while requests are in flight and idle-ms after (default 1000): a busy core each, no wake-up latency at low rates',
    )
    .option(
      '--cpu-idle-latency-us <us>',
      'Linux: keep CPUs out of idle states slower to leave than this during the test (PM QoS, /dev/cpu_dma_latency; 0 = poll; needs root)',
      integer,
    )
    .option(
      '--timeout-first-byte <duration>',
      'longest wait from a request to its response headers, in ms or e.g. 30s, 5m (default 5m)',
    )
    .option('--timeout-idle <duration>', 'longest gap between two reads of a response (default 2m)')
    .option('--timeout-total <duration>', 'longest time for a whole sample, retries included (default 1h)')
    .option('--retries <n>', 'retries of a failed request before its first token (default 3; 0 = none)')
    .option('--output-dir <dir>', `where the logs and results go (default ${DEFAULT_OUTPUT_DIR})`)
    .option(
      '--set <key=value>',
      'any setting: API name (minDurationMs=5000) or mlperf.conf key in its units (min_duration=5000); repeatable',
      collect,
    )
    .option('--json', 'print the result JSON (results.json) only on stdout')
    .option('--quiet', 'no progress or notes on stderr')
    .option(
      '--strict',
      'exit 8 when the measurement is harness-limited (the harness, not the server, limited the figures; see docs/measurement.md)',
    )
    .option(
      '--strict-mlperf',
      'with --benchmark: refuse (exit 2) a performance run whose settings the MLPerf submission checker v6.1 would reject (min duration, seeds, sample counts), instead of warning',
    )
    .option(
      '--resume <dir>',
      'continue the interrupted accuracy or submission run in <dir> (same flags; only its missing samples are sent)',
    )
    .option('--gpu-hour-price <usd>', '$ per GPU-hour, for the cost figures (one value, or one per endpoint: 2.5,3)')
    .option('--gpus-per-endpoint <n>', 'GPUs behind each endpoint (default 1; one value or one per endpoint)')
    .option('--budget-tokens <n>', 'end the run cleanly once this many output tokens were generated', integer)
    .option('--budget-cost <usd>', 'end the run cleanly once it has cost this much (needs --gpu-hour-price)', number)
    .option('--budget-minutes <m>', 'end the run cleanly after this many minutes of test', number)
    .option(
      '--allow-busy-server',
      "run even when an endpoint has requests running or waiting that are not this run's (another client); default: refuse (exit 7)",
    )
    .option('--warmup <n>', 'send n requests (dataset prompts) before the test, excluded from every figure', integer)
    .option('--tokenizer <file>', "tokenizer.json: score an accuracy or submission run's outputs (accuracy.json)")
    .option(
      '--metrics-interval <s>',
      "seconds between scrapes of each endpoint's /metrics (default 5; 0 = off)",
      number,
    )
    .option(
      '--gpu-metrics <url>',
      "GPU telemetry page to scrape for energy figures, e.g. dcgm-exporter's http://node:9400/metrics (repeatable; docs/energy.md)",
      collect,
    );
}
