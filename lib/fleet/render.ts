// Engine settings → each backend's command line: `vllm serve MODEL --flag v`,
// `python3 -m sglang.launch_server --model-path MODEL --flag v`, a custom
// command with placeholders, or `loadgen sim` given the vLLM or SGLang
// flags (it accepts both), so the simulator starts exactly as a real engine.
import { existsSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import type { EngineArgs, ServerSpec } from './types.js';

/** Where a server listens and which GPUs it has: what the rendering needs beyond the spec. */
export interface RenderTarget {
  host: string;
  port: number;
  gpus: number[] | null;
  name: string;
}

// [engine arg, vLLM flag, SGLang flag]; booleans are handled in flagsFor.
const VALUE_FLAGS: ReadonlyArray<readonly [keyof EngineArgs, string, string]> = [
  ['tensorParallelSize', '--tensor-parallel-size', '--tp-size'],
  ['pipelineParallelSize', '--pipeline-parallel-size', '--pp-size'],
  ['dataParallelSize', '--data-parallel-size', '--dp-size'],
  ['maxNumSeqs', '--max-num-seqs', '--max-running-requests'],
  ['maxNumBatchedTokens', '--max-num-batched-tokens', '--chunked-prefill-size'],
  ['maxModelLen', '--max-model-len', '--context-length'],
  ['kvCacheDtype', '--kv-cache-dtype', '--kv-cache-dtype'],
  ['gpuMemoryUtilization', '--gpu-memory-utilization', '--mem-fraction-static'],
  ['dtype', '--dtype', '--dtype'],
  ['quantization', '--quantization', '--quantization'],
  ['seed', '--seed', '--random-seed'],
  ['servedModelName', '--served-model-name', '--served-model-name'],
  ['streamInterval', '--stream-interval', '--stream-interval'],
];

/** The engine arguments as the flags of vLLM or SGLang, in a fixed order. */
export function flagsFor(flavor: 'vllm' | 'sglang', a: EngineArgs): string[] {
  const out: string[] = [];
  for (const [key, vllm, sglang] of VALUE_FLAGS) {
    const v = a[key];
    if (v !== undefined) out.push(flavor === 'vllm' ? vllm : sglang, String(v));
  }
  if (a.cudaGraphs === false) out.push(flavor === 'vllm' ? '--enforce-eager' : '--disable-cuda-graph');
  if (a.enablePrefixCaching !== undefined) {
    if (flavor === 'vllm') out.push(a.enablePrefixCaching ? '--enable-prefix-caching' : '--no-enable-prefix-caching');
    // SGLang's radix (prefix) cache is on unless disabled.
    else if (!a.enablePrefixCaching) out.push('--disable-radix-cache');
  }
  if (a.trustRemoteCode) out.push('--trust-remote-code');
  return out;
}

/** A custom command's engine arguments: `--kebab-key value`, `--key` for true, `--no-key` for false. */
export function genericFlags(a: EngineArgs): string[] {
  const out: string[] = [];
  for (const [k, v] of Object.entries(a)) {
    if (v === undefined) continue;
    const flag = `--${k.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
    if (v === true) out.push(flag);
    else if (v === false) out.push(`--no-${flag.slice(2)}`);
    else out.push(flag, String(v));
  }
  return out;
}

/**
 * The `loadgen` CLI that starts simulated servers: $LOADGEN_CLI, else this
 * bundle when it is the CLI, else cli.js beside it (dist/), else the
 * package's dist/cli.js (running from the TypeScript sources).
 */
export function loadgenCliPath(): string {
  if (process.env.LOADGEN_CLI) return process.env.LOADGEN_CLI;
  const self = fileURLToPath(import.meta.url);
  if (basename(self) === 'cli.js') return self;
  const beside = join(dirname(self), 'cli.js');
  if (existsSync(beside)) return beside;
  let dir = dirname(self);
  for (;;) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'lib', 'fleet')))
      return join(dir, 'dist', 'cli.js');
    const parent = dirname(dir);
    if (parent === dir) return join(dirname(self), 'cli.js');
    dir = parent;
  }
}

function kebab(k: string): string {
  return `--${k.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
}

/** `loadgen sim` flags from the spec's simulator map (precise pacing off unless asked: it polls a CPU). */
function simulatorFlags(sim: Record<string, string | number | boolean>): string[] {
  const out: string[] = [];
  if (sim.precisePacing !== true) out.push('--no-precise-pacing');
  // Always given, even 0: it makes `loadgen sim` behave as a launched server (start-up log, SIGTERM log).
  if (sim.loadTimeMs === undefined) out.push('--load-time-ms', '0');
  for (const [k, v] of Object.entries(sim)) {
    if (k === 'precisePacing') continue;
    if (v === true) out.push(kebab(k));
    else if (v !== false) out.push(kebab(k), String(v));
  }
  return out;
}

type Placeholder = 'port' | 'host' | 'model' | 'name' | 'gpus';
const PLACEHOLDER = /\{(port|host|model|name|gpus)\}/g;

/** The environment variable a shell command reads a placeholder's value from. */
export const PLACEHOLDER_VARS: Readonly<Record<Placeholder, string>> = {
  port: 'LOADGEN_PORT',
  host: 'LOADGEN_HOST',
  model: 'LOADGEN_MODEL',
  name: 'LOADGEN_NAME',
  gpus: 'LOADGEN_GPUS',
};

function placeholderValue(key: Placeholder, t: RenderTarget, model: string | undefined): string {
  switch (key) {
    case 'port':
      return String(t.port);
    case 'host':
      return t.host;
    case 'model':
      return model ?? '';
    case 'name':
      return t.name;
    default:
      return t.gpus ? t.gpus.join(',') : '';
  }
}

/** An argv element: placeholders replaced by their values, verbatim (no shell reads it). */
function substitute(arg: string, t: RenderTarget, model: string | undefined): string {
  return arg.replace(PLACEHOLDER, (_, key: Placeholder) => placeholderValue(key, t, model));
}

/** Characters that mean nothing to a POSIX shell in any context: such a value goes into a script as it is. */
const INERT = /^[A-Za-z0-9_@%+:,./-]*$/;

/**
 * A shell script's placeholders. A value of inert characters only (a port, a
 * GPU list, most model names) is written in; any other value is never
 * written into the script: it is passed in an environment variable
 * (PLACEHOLDER_VARS) and the placeholder becomes a quoted reference to it,
 * so `$(...)`, backticks, `;`, quotes or newlines in a model name arrive as
 * one verbatim argument and run nothing. The reference is quoted for where
 * the placeholder stands (bare, inside '...', inside "..."); whatever the
 * context, the shell only expands a variable there, it never runs its value.
 */
function substituteScript(script: string, t: RenderTarget, model: string | undefined, vars: Set<Placeholder>): string {
  let out = '';
  let ctx: 'bare' | 'single' | 'double' = 'bare';
  for (let i = 0; i < script.length; i++) {
    const c = script[i]!;
    if (c === '{') {
      const at = new RegExp(PLACEHOLDER.source, 'y');
      at.lastIndex = i;
      const hit = at.exec(script);
      if (hit) {
        const key = hit[1] as Placeholder;
        const value = placeholderValue(key, t, model);
        if (INERT.test(value)) out += value;
        else {
          vars.add(key);
          const ref = `\${${PLACEHOLDER_VARS[key]}}`;
          out += ctx === 'double' ? ref : ctx === 'single' ? `'"${ref}"'` : `"${ref}"`;
        }
        i += hit[0].length - 1;
        continue;
      }
    }
    out += c;
    if (ctx === 'single') {
      if (c === "'") ctx = 'bare';
    } else if (c === '\\') {
      if (i + 1 < script.length) out += script[++i];
    } else if (ctx === 'double') {
      if (c === '"') ctx = 'bare';
    } else if (c === "'") ctx = 'single';
    else if (c === '"') ctx = 'double';
  }
  return out;
}

const SHELLS = /^(sh|bash|dash|zsh|ksh|mksh|ash|yash|posh)$/;

/** Where a custom command's shell script is: the argument after `-c` (or `-lc`, `-ec`...) of a POSIX shell, else -1. */
export function shellScriptIndex(argv: readonly string[]): number {
  if (argv.length < 3 || !SHELLS.test(basename(argv[0]!))) return -1;
  for (let i = 1; i < argv.length - 1; i++) {
    const a = argv[i]!;
    if (a === '--' || !a.startsWith('-')) return -1;
    if (/^-[A-Za-z]*c[A-Za-z]*$/.test(a)) return i + 1;
  }
  return -1;
}

/** A custom command's argv, and the placeholder variables its shell script reads. */
function renderCustom(spec: ServerSpec, t: RenderTarget): { argv: string[]; vars: Set<Placeholder> } {
  const vars = new Set<Placeholder>();
  const script = shellScriptIndex(spec.command!);
  const argv = spec.command!.map((a, i) =>
    i === script ? substituteScript(a, t, spec.model, vars) : substitute(a, t, spec.model),
  );
  return {
    argv: [...argv, ...genericFlags(spec.engineArgs), ...spec.extraArgs.map((a) => substitute(a, t, spec.model))],
    vars,
  };
}

/** The argv that starts one server of this spec on its node. */
export function renderCommand(spec: ServerSpec, t: RenderTarget): string[] {
  const listen = ['--host', t.host, '--port', String(t.port)];
  switch (spec.backend) {
    case 'vllm':
      return [
        spec.executable ?? 'vllm',
        'serve',
        spec.model!,
        ...listen,
        ...flagsFor('vllm', spec.engineArgs),
        ...spec.extraArgs,
      ];
    case 'sglang':
      return [
        spec.executable ?? 'python3',
        '-m',
        'sglang.launch_server',
        '--model-path',
        spec.model!,
        ...listen,
        ...flagsFor('sglang', spec.engineArgs),
        ...spec.extraArgs,
      ];
    case 'custom':
      return renderCustom(spec, t).argv;
    case 'simulator': {
      const flavor = spec.flavor ?? 'vllm';
      // `loadgen sim --model` in place of vLLM's positional MODEL and SGLang's --model-path.
      const model = ['--model', spec.model!];
      return [
        process.execPath,
        loadgenCliPath(),
        'sim',
        '--flavor',
        flavor,
        ...model,
        ...listen,
        ...flagsFor(flavor, spec.engineArgs),
        ...simulatorFlags(spec.simulator),
        ...spec.extraArgs,
      ];
    }
  }
}

/**
 * The environment a server gets on top of the inherited one. With `target`,
 * a custom shell command's placeholder variables too (see substituteScript).
 */
export function renderEnv(spec: ServerSpec, gpus: number[] | null, target?: RenderTarget): Record<string, string> {
  const env: Record<string, string> = {};
  if (gpus) env.CUDA_VISIBLE_DEVICES = gpus.join(',');
  // Python block-buffers stdout into a file: unbuffered, the log is live.
  env.PYTHONUNBUFFERED = '1';
  const out = { ...env, ...spec.env };
  if (target && spec.backend === 'custom') {
    for (const key of renderCustom(spec, target).vars)
      out[PLACEHOLDER_VARS[key]] = placeholderValue(key, target, spec.model);
  }
  return out;
}
