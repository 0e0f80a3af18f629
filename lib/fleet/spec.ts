// The `servers:` section: checked entry by entry, every error naming the key
// as it appears in the file (servers[1].engine-args.max-num-seqs), so a
// typo never silently drops an engine setting on a machine that costs by
// the hour. Keys may be camelCase or kebab-case, like the rest of the file.
import { UsageError } from '../core/errors.js';
import { parseGpuList } from './gpus.js';
import { isSecretName, registerSecret } from '../core/redact.js';
import { sshNameProblem } from './ssh.js';
import type { EngineArgs, ServerBackend, ServerSpec, SlurmOptions, SshOptions } from './types.js';

const BACKENDS: readonly ServerBackend[] = ['vllm', 'sglang', 'custom', 'simulator'];

type Kind = 'int' | 'fraction' | 'string' | 'bool';

/** Engine argument keys and their types. */
export const ENGINE_ARG_KINDS: Readonly<Record<keyof EngineArgs, Kind>> = {
  tensorParallelSize: 'int',
  pipelineParallelSize: 'int',
  dataParallelSize: 'int',
  maxNumSeqs: 'int',
  maxNumBatchedTokens: 'int',
  maxModelLen: 'int',
  kvCacheDtype: 'string',
  cudaGraphs: 'bool',
  gpuMemoryUtilization: 'fraction',
  dtype: 'string',
  quantization: 'string',
  seed: 'int',
  enablePrefixCaching: 'bool',
  trustRemoteCode: 'bool',
  servedModelName: 'string',
  streamInterval: 'int',
};

// `loadgen sim` options a simulated server may set (its flags, camelCase), by type.
const SIM_KINDS: Record<string, 'number' | 'int' | 'bool' | 'string'> = {
  loadTimeMs: 'number',
  refuseWhileLoading: 'bool',
  failAtStart: 'bool',
  crashAfterMs: 'number',
  crashAfterRequests: 'int',
  decodeStepMs: 'number',
  decodeStepMsPerSeq: 'number',
  prefillUsPerToken: 'number',
  tokensPerChunk: 'int',
  outputLength: 'int',
  eosAfter: 'int',
  serverVersion: 'string',
  precisePacing: 'bool',
  maxRunningSeqs: 'int',
};

const SPEC_KEYS = [
  'name',
  'backend',
  'model',
  'command',
  'executable',
  'flavor',
  'gpus',
  'port',
  'host',
  'nodes',
  'ssh',
  'launcher',
  'slurm',
  'engineArgs',
  'extraArgs',
  'env',
  'simulator',
  'healthPath',
  'startupTimeoutS',
  'stopGraceS',
  'warmupRequests',
  'weight',
  'maxInFlight',
] as const;
const SLURM_KEYS = [
  'partition',
  'account',
  'nodes',
  'serversPerNode',
  'gpusPerServer',
  'timeLimit',
  'allocOptions',
  'srunOptions',
  'containerImage',
  'containerMounts',
  'containerWorkdir',
  'workdir',
  'queueTimeoutS',
  'mode',
] as const;
const SSH_KEYS = ['user', 'port', 'identityFile', 'options', 'workdir', 'configFile'] as const;

const DEFAULT_PORTS: Record<ServerBackend, number | 'auto'> = {
  vllm: 8000,
  sglang: 30000,
  custom: 'auto',
  simulator: 'auto',
};

function camel(key: string): string {
  return key.replace(/[-_]([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

function shown(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  return typeof v === 'object' ? 'a map' : `${typeof v} ${JSON.stringify(v)}`;
}

function isMap(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

class Checker {
  constructor(private readonly prefix: string) {}

  fail(key: string, message: string): never {
    throw new UsageError(`${this.prefix}'${key}' ${message}`);
  }

  /** The map's entries with camelCase keys; unknown keys are errors naming the key as written. */
  entries(key: string, v: unknown, known: readonly string[], hint = ''): [string, string, unknown][] {
    if (!isMap(v)) this.fail(key, `must be a map, got ${shown(v)}`);
    return Object.entries(v).map(([raw, value]) => {
      const k = camel(raw);
      if (!known.includes(k)) this.fail(`${key}.${raw}`, `is not a known key (known: ${known.join(', ')})${hint}`);
      return [k, `${key}.${raw}`, value];
    });
  }

  string(key: string, v: unknown): string {
    if (typeof v !== 'string' || v === '') this.fail(key, `must be a non-empty string, got ${shown(v)}`);
    return v;
  }

  int(key: string, v: unknown, min: number, max = Number.MAX_SAFE_INTEGER): number {
    if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < min || v > max)
      this.fail(
        key,
        `must be an integer >= ${min}${max < Number.MAX_SAFE_INTEGER ? ` and <= ${max}` : ''}, got ${shown(v)}`,
      );
    return v;
  }

  number(key: string, v: unknown, min: number): number {
    if (typeof v !== 'number' || !Number.isFinite(v) || v < min)
      this.fail(key, `must be a number >= ${min}, got ${shown(v)}`);
    return v;
  }

  bool(key: string, v: unknown): boolean {
    if (typeof v !== 'boolean') this.fail(key, `must be true or false, got ${shown(v)}`);
    return v;
  }

  strings(key: string, v: unknown): string[] {
    if (!Array.isArray(v) || !v.every((x) => typeof x === 'string' || typeof x === 'number'))
      this.fail(key, `must be a list of strings, got ${shown(v)}`);
    return (v as unknown[]).map(String);
  }
}

function engineArgs(c: Checker, key: string, v: unknown): EngineArgs {
  const out: Record<string, unknown> = {};
  const known = Object.keys(ENGINE_ARG_KINDS);
  for (const [k, at, value] of c.entries(key, v, known, '; other flags go in extra-args')) {
    switch (ENGINE_ARG_KINDS[k as keyof EngineArgs]) {
      case 'int':
        out[k] = c.int(at, value, k === 'seed' ? 0 : 1);
        break;
      case 'fraction':
        if (typeof value !== 'number' || !(value > 0 && value <= 1))
          c.fail(at, `must be a number in (0, 1], got ${shown(value)}`);
        out[k] = value;
        break;
      case 'string':
        out[k] = c.string(at, value);
        break;
      case 'bool':
        out[k] = c.bool(at, value);
        break;
    }
  }
  return out as EngineArgs;
}

function sshOptions(c: Checker, key: string, v: unknown): SshOptions {
  const out: SshOptions = {};
  for (const [k, at, value] of c.entries(key, v, SSH_KEYS)) {
    if (k === 'port') out.port = c.int(at, value, 1, 65535);
    else if (k === 'options') out.options = c.strings(at, value);
    else if (k === 'user') {
      out.user = c.string(at, value);
      const problem = sshNameProblem('user', out.user);
      if (problem) c.fail(at, problem);
    } else (out as Record<string, unknown>)[k] = c.string(at, value);
  }
  return out;
}

function slurmOptions(c: Checker, key: string, v: unknown): SlurmOptions {
  const out: SlurmOptions = { nodes: 1, serversPerNode: 1, allocOptions: [], srunOptions: [] };
  for (const [k, at, value] of c.entries(key, v, SLURM_KEYS)) {
    if (k === 'nodes' || k === 'serversPerNode' || k === 'gpusPerServer') out[k] = c.int(at, value, 1);
    else if (k === 'queueTimeoutS') out.queueTimeoutS = c.number(at, value, 0.1);
    else if (k === 'mode') {
      const m = c.string(at, value);
      if (m !== 'salloc' && m !== 'sbatch-het') c.fail(at, `must be salloc or sbatch-het, got ${JSON.stringify(m)}`);
      out.mode = m as 'salloc' | 'sbatch-het';
    } else if (k === 'allocOptions' || k === 'srunOptions') {
      const list = c.strings(at, value);
      // Each is one argv word before srun's command: a bare word would become the program.
      list.forEach((o, i) => {
        if (!o.startsWith('-')) c.fail(`${at}[${i}]`, `must be an option (--name=value), got ${JSON.stringify(o)}`);
      });
      out[k] = list;
    } else (out as unknown as Record<string, unknown>)[k] = c.string(at, value);
  }
  // Server names carry their node when an entry spans nodes, and a batch job's nodes are known only once it runs.
  if (out.mode === 'sbatch-het' && out.nodes !== 1)
    c.fail(`${key}.nodes`, 'must be 1 with mode: sbatch-het (one node per component)');
  return out;
}

function simulatorOptions(c: Checker, key: string, v: unknown): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  for (const [k, at, value] of c.entries(key, v, Object.keys(SIM_KINDS))) {
    const kind = SIM_KINDS[k];
    out[k] =
      kind === 'bool'
        ? c.bool(at, value)
        : kind === 'int'
          ? c.int(at, value, 1)
          : kind === 'string'
            ? c.string(at, value)
            : c.number(at, value, 0);
  }
  return out;
}

/** The spec's secrets become known to the redaction rule: secret-named env values, values of secret flags in its command. */
function registerSpecSecrets(spec: ServerSpec): void {
  for (const [k, v] of Object.entries(spec.env)) if (isSecretName(k)) registerSecret(v);
  const words = [...(spec.command ?? []), ...spec.extraArgs];
  words.forEach((w, i) => {
    const eq = w.indexOf('=');
    if (!w.startsWith('-')) return;
    if (eq > 0 && isSecretName(w.slice(0, eq))) registerSecret(w.slice(eq + 1));
    else if (eq < 0 && isSecretName(w) && i + 1 < words.length && !words[i + 1]!.startsWith('-'))
      registerSecret(words[i + 1]);
  });
}

function oneSpec(c: Checker, at: string, v: unknown): ServerSpec {
  const raw: Record<string, [string, unknown]> = {};
  for (const [k, key, value] of c.entries(at, v, SPEC_KEYS))
    if (value !== null && value !== undefined) raw[k] = [key, value];
  const get = <T>(k: string, f: (key: string, value: unknown) => T): T | undefined =>
    raw[k] ? f(raw[k][0], raw[k][1]) : undefined;

  const name = get('name', (k, x) => {
    const s = c.string(k, x);
    if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(s))
      c.fail(k, `must be letters, digits, '.', '_' or '-' (it names the log file), got ${JSON.stringify(s)}`);
    return s;
  });
  if (name === undefined) c.fail(`${at}.name`, 'is required (it names the server and its log file)');
  const backend = get('backend', (k, x) => {
    if (!BACKENDS.includes(x as ServerBackend)) c.fail(k, `must be one of ${BACKENDS.join(', ')}, got ${shown(x)}`);
    return x as ServerBackend;
  });
  if (backend === undefined) c.fail(`${at}.backend`, `is required: ${BACKENDS.join(', ')}`);
  const model = get('model', (k, x) => c.string(k, x));
  if (model === undefined && backend !== 'custom') c.fail(`${at}.model`, `is required for backend ${backend}`);
  const command = get('command', (k, x) => {
    const list = typeof x === 'string' ? ['/bin/sh', '-c', x] : c.strings(k, x);
    if (list.length === 0) c.fail(k, 'must not be empty');
    return list;
  });
  if (backend === 'custom' && command === undefined)
    c.fail(`${at}.command`, 'is required for backend custom (a list, or a string run by /bin/sh -c)');
  if (backend !== 'custom' && command !== undefined)
    c.fail(raw.command[0], `applies only to backend custom (${backend} builds its own command)`);
  const flavor = get('flavor', (k, x) => {
    if (x !== 'vllm' && x !== 'sglang') c.fail(k, `must be vllm or sglang, got ${shown(x)}`);
    if (backend !== 'simulator') c.fail(k, 'applies only to backend simulator');
    return x;
  });
  const simulator = get('simulator', (k, x) => {
    if (backend !== 'simulator') c.fail(k, 'applies only to backend simulator');
    return simulatorOptions(c, k, x);
  });
  const gpus = get('gpus', (k, x) => {
    try {
      return parseGpuList(x);
    } catch (err) {
      return c.fail(k, (err as Error).message);
    }
  });
  const nodes = get('nodes', (k, x) => {
    const list = typeof x === 'string' ? [x] : c.strings(k, x);
    if (list.length === 0) c.fail(k, 'must list at least one host');
    if (new Set(list).size !== list.length) c.fail(k, 'lists a host twice');
    list.forEach((h, i) => {
      const problem = sshNameProblem('host', h);
      if (problem) c.fail(typeof x === 'string' ? k : `${k}[${i}]`, problem);
    });
    return list;
  });
  const launcher = get('launcher', (k, x) => {
    if (x !== 'local' && x !== 'ssh' && x !== 'slurm') c.fail(k, `must be local, ssh or slurm, got ${shown(x)}`);
    return x;
  });
  const slurm = get('slurm', (k, x) => {
    if (launcher !== 'slurm') c.fail(k, 'needs launcher: slurm');
    return slurmOptions(c, k, x);
  });
  if (launcher === 'slurm') {
    if (nodes)
      c.fail(raw.nodes[0], 'does not apply to launcher slurm (Slurm picks the nodes: slurm.nodes is how many)');
    if (gpus) c.fail(raw.gpus[0], 'does not apply to launcher slurm (Slurm assigns GPUs: slurm.gpus-per-server)');
  }
  if (launcher === 'ssh' && !nodes) c.fail(`${at}.nodes`, 'is required for launcher ssh (the hosts to reach)');
  if (launcher === 'local' && nodes) c.fail(raw.nodes[0], 'needs launcher ssh (or no launcher key)');
  const port = get('port', (k, x) => (x === 'auto' ? 'auto' : c.int(k, x, 1, 65535))) ?? DEFAULT_PORTS[backend];
  if (port === 'auto' && (nodes || launcher === 'slurm'))
    c.fail(
      raw.port?.[0] ?? `${at}.port`,
      `must be a number for servers on ${launcher === 'slurm' ? 'Slurm' : 'ssh'} nodes (free ports are found only on this machine)`,
    );
  const spec: ServerSpec = {
    name,
    backend,
    port,
    host: get('host', (k, x) => c.string(k, x)) ?? (nodes || slurm || launcher === 'slurm' ? '0.0.0.0' : '127.0.0.1'),
    engineArgs: get('engineArgs', (k, x) => engineArgs(c, k, x)) ?? {},
    extraArgs: get('extraArgs', (k, x) => c.strings(k, x)) ?? [],
    env:
      get('env', (k, x) =>
        Object.fromEntries(
          Object.entries(isMap(x) ? x : c.fail(k, `must be a map of NAME: value, got ${shown(x)}`)).map(([n, val]) => {
            if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(n)) c.fail(`${k}.${n}`, 'is not a valid environment variable name');
            if (typeof val !== 'string' && typeof val !== 'number' && typeof val !== 'boolean')
              c.fail(`${k}.${n}`, `must be a string or a number, got ${shown(val)}`);
            return [n, String(val)];
          }),
        ),
      ) ?? {},
    simulator: simulator ?? {},
    healthPath:
      get('healthPath', (k, x) => {
        const s = c.string(k, x);
        if (!s.startsWith('/')) c.fail(k, `must start with '/', got ${JSON.stringify(s)}`);
        return s;
      }) ?? '/health',
    // Large models take many minutes to load (weights, graph capture).
    startupTimeoutS: get('startupTimeoutS', (k, x) => c.number(k, x, 0.1)) ?? 1800,
    stopGraceS: get('stopGraceS', (k, x) => c.number(k, x, 0)) ?? 30,
    warmupRequests: get('warmupRequests', (k, x) => c.int(k, x, 0)) ?? 2,
  };
  if (model !== undefined) spec.model = model;
  if (command !== undefined) spec.command = command;
  if (flavor !== undefined) spec.flavor = flavor;
  if (gpus !== undefined) spec.gpus = gpus;
  if (nodes !== undefined) spec.nodes = nodes;
  if (launcher === 'slurm') spec.slurm = slurm ?? { nodes: 1, serversPerNode: 1, allocOptions: [], srunOptions: [] };
  const ssh = get('ssh', (k, x) => sshOptions(c, k, x));
  if (ssh !== undefined) {
    if (!nodes) c.fail(raw.ssh[0], 'needs nodes: (the hosts to reach by ssh)');
    spec.ssh = ssh;
  }
  const executable = get('executable', (k, x) => c.string(k, x));
  if (executable !== undefined) {
    if (backend !== 'vllm' && backend !== 'sglang')
      c.fail(raw.executable[0], 'applies only to backends vllm and sglang');
    spec.executable = executable;
  }
  const weight = get('weight', (k, x) => c.number(k, x, Number.MIN_VALUE));
  if (weight !== undefined) spec.weight = weight;
  const maxInFlight = get('maxInFlight', (k, x) => c.int(k, x, 1));
  if (maxInFlight !== undefined) spec.maxInFlight = maxInFlight;
  registerSpecSecrets(spec);
  const tp = spec.engineArgs.tensorParallelSize;
  if (tp !== undefined && spec.gpus && spec.gpus.length % tp !== 0) {
    c.fail(raw.gpus[0], `has ${spec.gpus.length} GPUs, which tensor-parallel-size ${tp} does not divide`);
  }
  return spec;
}

/**
 * Checks a `servers:` value (a list of maps); `prefix` starts every error
 * (e.g. "config file run.yaml: "). Names must be unique across the list.
 */
export function parseServersSection(v: unknown, prefix = '', key = 'servers'): ServerSpec[] {
  const c = new Checker(prefix);
  const list = isMap(v) ? [v] : v;
  if (!Array.isArray(list) || list.length === 0) c.fail(key, `must be a list of servers, got ${shown(v)}`);
  const specs = (list as unknown[]).map((entry, i) => oneSpec(c, `${key}[${i}]`, entry));
  const seen = new Set<string>();
  specs.forEach((s, i) => {
    if (seen.has(s.name))
      c.fail(`${key}[${i}].name`, `repeats the name ${JSON.stringify(s.name)} (names must be unique)`);
    seen.add(s.name);
  });
  return specs;
}
