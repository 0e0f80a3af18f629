// `loadgen probe` as a child process against vLLM- and SGLang-flavoured
// simulators: what it reports, --json, and its exit codes.

import { afterAll, beforeAll, describe, expect, test } from 'vitest';

import { formatProbe } from '../../lib/cli/probe-command.js';
import { startSimulator, type Simulator } from '../../lib/sim/index.js';
import { buildCli, runCli, STACK_LINE, type CliRun } from './helpers.js';
import { freePort } from '../ports.js';

let cli: string;
let cleanup: () => void;
let vllm: Simulator;
let sglang: Simulator;

beforeAll(async () => {
  ({ cli, cleanup } = await buildCli());
  vllm = await startSimulator({
    flavor: 'vllm',
    model: 'llama-8b',
    maxModelLen: 4096,
    version: '0.11.2',
    precisePacing: false,
  });
  sglang = await startSimulator({
    flavor: 'sglang',
    model: 'qwen-7b',
    maxModelLen: 32768,
    version: '0.5.9',
    precisePacing: false,
  });
});
afterAll(async () => {
  cleanup?.();
  await vllm?.close();
  await sglang?.close();
});

function explain(r: CliRun): string {
  return `exit ${r.code}\nstdout:\n${r.stdout}\nstderr:\n${r.stderr}`;
}

describe('loadgen probe', () => {
  test('vLLM: health, backend and version, model and context, token ids, one request', async () => {
    const r = await runCli(cli, ['probe', '--endpoint', vllm.url]);
    expect(r.code, explain(r)).toBe(0);
    expect(r.stdout).toContain(`${vllm.url}  healthy`);
    expect(r.stdout).toMatch(/backend: vllm 0\.11\.2/);
    expect(r.stdout).toMatch(/model: llama-8b {2}context 4096 tokens/);
    expect(r.stdout).toMatch(/token ids: token_ids; batched prompts: yes/);
    expect(r.stdout).toMatch(/test request: TTFT \d+\.\d ms, (\d+\.\d tokens\/s|-)/);
  });

  test('SGLang: the generate API and its output ids', async () => {
    const r = await runCli(cli, ['probe', '--endpoint', `${sglang.url}/v1`]);
    expect(r.code, explain(r)).toBe(0);
    expect(r.stdout).toMatch(/backend: sglang 0\.5\.9/);
    expect(r.stdout).toMatch(/model: qwen-7b {2}context 32768 tokens/);
    expect(r.stdout).toMatch(/token ids: output_ids \(cumulative output_ids\)/);
  });

  test('several endpoints, --json, and the flags that shape the test request', async () => {
    const r = await runCli(cli, [
      'probe',
      '--endpoint',
      vllm.url,
      '--endpoint',
      sglang.url,
      '--backend',
      'auto',
      '--api',
      'chat',
      '--model',
      'llama-8b',
      '--api-key',
      'k',
      '--timeout',
      '5000',
      '--json',
    ]);
    expect(r.code, explain(r)).toBe(0);
    const j = JSON.parse(r.stdout) as {
      url: string;
      healthy: boolean;
      backend: string;
      capabilities: { tokenSource: string };
    }[];
    expect(j.map((p) => [p.url, p.healthy, p.backend])).toEqual([
      [vllm.url, true, 'vllm'],
      [sglang.url, true, 'sglang'],
    ]);
    // The chat test request went to the chat route with the model asked for.
    const chat = vllm.records().filter((x) => x.path === '/v1/chat/completions');
    expect(chat.length).toBeGreaterThan(0);
    expect((chat[0].body as { model: string }).model).toBe('llama-8b');
  });

  test('--backend forces the family', async () => {
    const r = await runCli(cli, ['probe', '--endpoint', vllm.url, '--backend', 'openai', '--json']);
    expect(r.code, explain(r)).toBe(0);
    expect(JSON.parse(r.stdout)[0].backend).toBe('openai');
  });

  test('an endpoint that refuses: exit 3, named, the others still reported', async () => {
    const dead = `http://127.0.0.1:${await freePort()}`;
    const r = await runCli(cli, ['probe', '--endpoint', vllm.url, '--endpoint', dead]);
    expect(r.code, explain(r)).toBe(3);
    expect(r.stdout).toContain(`${vllm.url}  healthy`);
    expect(r.stdout).toContain(`${dead}  NOT HEALTHY`);
    expect(r.stderr).toContain(dead);
    expect(r.stderr).not.toMatch(STACK_LINE);
  });

  const bad: Array<[string[], RegExp]> = [
    [['probe'], /at least one --endpoint/],
    [['probe', '--endpoint', 'localhost:8000'], /must start with http/],
    [['probe', '--endpoint', 'http://a:1', '--backend', 'tgi'], /--backend "tgi"/],
    [['probe', '--endpoint', 'http://a:1', '--api', 'grpc'], /--api "grpc"/],
    [['probe', '--endpoint', 'http://a:1', '--timeout', '0'], /milliseconds > 0/],
    [['probe', '--bogus'], /unknown option/],
  ];
  test.each(bad)('%j exits 2 with a message', async (args, message) => {
    const r = await runCli(cli, args);
    expect(r.code, explain(r)).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stderr).not.toMatch(STACK_LINE);
  });

  test('probe and the commands load without the native addon (it is loaded when a run starts)', async () => {
    const away = await buildCli(true);
    try {
      const r = await runCli(away.cli, ['probe', '--endpoint', vllm.url]);
      expect(r.code, explain(r)).toBe(0);
      const help = await runCli(away.cli, ['run', '--help']);
      expect(help.code, explain(help)).toBe(0);
      expect(help.stdout).toMatch(/--target-qps/);
    } finally {
      away.cleanup();
    }
  });

  test('formatProbe says when a server sends no token ids', () => {
    const text = formatProbe({
      url: 'http://x',
      healthy: true,
      error: null,
      backend: 'openai',
      version: null,
      models: [],
      capabilities: { tokenSource: 'none', batchPrompts: false },
      ttftMs: 12.34,
      tokensPerSecond: null,
    });
    expect(text).toContain('backend: openai (version unknown)');
    expect(text).toContain('model: none listed');
    expect(text).toContain('token ids: none (counts from usage only');
    expect(text).toContain('TTFT 12.3 ms, -');
  });
});
