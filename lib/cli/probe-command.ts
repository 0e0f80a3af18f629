// `loadgen probe --endpoint URL...`: what each server is and how it answers
// one short request, before a long run is pointed at it.
import { InvalidArgumentError, type Command } from 'commander';

import { parseEndpointUrl } from '../sut/endpoint-url.js';
import { probeEndpoint, type ProbeResult } from '../sut/probe.js';
import type { Backend, WireApiName } from '../sut/types.js';
import { reportError, UsageError } from './errors.js';
import { ExitCode } from './exit-codes.js';

export interface ProbeFlags {
  endpoint?: string[];
  backend?: string;
  api?: string;
  model?: string;
  apiKey?: string;
  timeout?: number;
  json?: boolean;
}

function fixed(v: number | null, digits: number, unit: string): string {
  return v === null || !Number.isFinite(v) ? '-' : `${v.toFixed(digits)} ${unit}`;
}

/** The human report of one endpoint. */
export function formatProbe(p: ProbeResult): string {
  const lines = [`${p.url}  ${p.healthy ? 'healthy' : 'NOT HEALTHY'}`];
  if (p.error) lines.push(`  error: ${p.error}`);
  if (p.backend) lines.push(`  backend: ${p.backend}${p.version ? ` ${p.version}` : ' (version unknown)'}`);
  for (const m of p.models)
    lines.push(
      `  model: ${m.id}  context ${m.maxModelLen ?? '?'} tokens${m.ownedBy ? `  (owned by ${m.ownedBy})` : ''}`,
    );
  if (p.backend && p.models.length === 0) lines.push('  model: none listed by /v1/models');
  if (p.capabilities) {
    const c = p.capabilities;
    const ids =
      c.tokenSource === 'none' ? 'none (counts from usage only; accuracy logs cannot be scored)' : c.tokenSource;
    lines.push(
      `  token ids: ${ids}${c.outputIds ? ` (${c.outputIds} output_ids)` : ''}; batched prompts: ${c.batchPrompts ? 'yes' : 'no'}`,
    );
  }
  if (p.healthy && (p.ttftMs !== null || p.tokensPerSecond !== null)) {
    lines.push(`  test request: TTFT ${fixed(p.ttftMs, 1, 'ms')}, ${fixed(p.tokensPerSecond, 1, 'tokens/s')}`);
  }
  return lines.join('\n') + '\n';
}

export async function probeCommand(flags: ProbeFlags): Promise<ExitCode> {
  try {
    const urls = flags.endpoint ?? [];
    if (urls.length === 0) throw new UsageError('give at least one --endpoint URL (e.g. --endpoint http://gpu1:8000)');
    for (const u of urls) {
      try {
        parseEndpointUrl(u);
      } catch (err) {
        throw new UsageError((err as Error).message);
      }
    }
    const backend = flags.backend;
    if (backend !== undefined && !['auto', 'vllm', 'sglang', 'openai'].includes(backend))
      throw new UsageError(`--backend ${JSON.stringify(backend)}: expected auto, vllm, sglang or openai`);
    const api = flags.api;
    if (api !== undefined && !['completions', 'chat', 'generate'].includes(api))
      throw new UsageError(`--api ${JSON.stringify(api)}: expected completions, chat or generate`);
    const headers: Record<string, string> = flags.apiKey ? { authorization: `Bearer ${flags.apiKey}` } : {};
    const results = await Promise.all(
      urls.map((url) =>
        probeEndpoint(url, {
          backend: backend === undefined || backend === 'auto' ? undefined : (backend as Backend),
          api: api as WireApiName | undefined,
          model: flags.model,
          headers,
          timeoutMs: flags.timeout ?? 10_000,
        }),
      ),
    );
    if (flags.json) process.stdout.write(JSON.stringify(results, null, 2) + '\n');
    else process.stdout.write(results.map(formatProbe).join('\n'));
    const bad = results.filter((r) => !r.healthy);
    if (bad.length > 0) {
      process.stderr.write(`loadgen probe: ${bad.map((r) => `${r.url}: ${r.error ?? 'not healthy'}`).join('; ')}\n`);
      return ExitCode.Endpoint;
    }
    return ExitCode.Valid;
  } catch (err) {
    return reportError('probe', err);
  }
}

function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

function timeoutMs(v: string): number {
  const n = Number(v);
  if (v.trim() === '' || !Number.isFinite(n) || n <= 0)
    throw new InvalidArgumentError('expected a number of milliseconds > 0');
  return n;
}

export function registerProbeCommand(
  program: Command,
  onExit: (code: ExitCode) => void = (c) => (process.exitCode = c),
): Command {
  return program
    .command('probe')
    .description(
      'check LLM servers: health, backend and version, models and context length, capabilities, one short request',
    )
    .option('--endpoint <url>', 'server base URL, e.g. http://gpu1:8000 (repeat for several)', collect)
    .option('--backend <name>', 'auto (default) | vllm | sglang | openai')
    .option(
      '--api <name>',
      'API of the test request: completions | chat | generate (default: generate for SGLang, else completions)',
    )
    .option('--model <name>', 'model of the test request (default: the first listed)')
    .option('--api-key <key>', 'sent as Authorization: Bearer <key>')
    .option('--timeout <ms>', 'per request (default 10000)', timeoutMs)
    .option('--json', 'print the results as JSON')
    .addHelpText('after', '\nExit codes: 0 every endpoint healthy, 2 usage error, 3 an endpoint failed.')
    .action(async (flags: ProbeFlags) => {
      onExit(await probeCommand(flags));
    });
}
