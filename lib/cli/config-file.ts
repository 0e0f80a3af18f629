// The `loadgen run --config FILE` file: YAML or JSON holding the same
// options as the flags (camelCase or kebab-case keys), plus `settings:`
// (a map of --set assignments), `fields:` (the dataset mapping) and
// `simulator:` (options of the built-in simulator). Flags win over the file.
// Unknown keys and wrongly typed values are errors that name the key.
import { readFileSync } from 'node:fs';
import { dirname, extname, isAbsolute, resolve } from 'node:path';

import YAML from 'yaml';

import { parseServersSection } from '../fleet/spec.js';
import type { ServerSpec } from '../fleet/types.js';
import type { EndpointConfig } from '../sut/types.js';
import { UsageError } from './errors.js';
import { parseDurationMs } from './duration.js';

/** Every option of `loadgen run`, as commander hands it over (camelCase) and as a config file holds it. */
export interface RunFlags {
  config?: string;
  scenario?: string;
  mode?: string;
  benchmark?: string;
  mlperfConf?: string;
  userConf?: string;
  endpoint?: (string | EndpointConfig)[];
  backend?: string;
  api?: string;
  model?: string;
  apiKey?: string;
  dataset?: string;
  datasetFormat?: string;
  preset?: string;
  fieldInputIds?: string;
  fieldText?: string;
  fieldMessages?: string;
  fieldSystem?: string;
  fieldUser?: string;
  fieldReference?: string;
  fieldMaxTokens?: string;
  textTemplate?: string;
  limit?: number;
  synthetic?: string;
  syntheticSamples?: number;
  maxTokens?: number;
  ignoreEos?: boolean;
  targetQps?: number;
  concurrency?: number;
  workers?: number;
  outputDir?: string;
  /** --set key=value, in order. */
  set?: string[];
  /** The config file's `settings:` map (applied before --set). */
  settings?: Record<string, unknown>;
  /** The config file's `simulator:` map (startSimulator options). */
  simulator?: Record<string, unknown>;
  /** The config file's `servers:` list: servers to start before the run (lib/fleet). */
  servers?: ServerSpec[];
  json?: boolean;
  quiet?: boolean;
  /** A harness-limited measurement (docs/measurement.md) exits with 7. */
  strict?: boolean;
  strictMlperf?: boolean;
  /** Multi-turn: a conversation file, how to run it, and tool answers (lib/cli/conversation-flags.ts). */
  conversations?: string;
  multiturn?: string;
  maxConcurrentConversations?: number;
  toolResults?: string;
  toolHandler?: string;
  /** Continue the journaled run in this output directory. */
  resume?: string;
  /** $ per GPU-hour: one value or one per endpoint ('2.5' or '2.5,3' on the command line). */
  gpuHourPrice?: string | number | number[];
  /** GPUs behind each endpoint: one value or one per endpoint. */
  gpusPerEndpoint?: string | number | number[];
  /** Budgets: output tokens, dollars, minutes. */
  budgetTokens?: number;
  budgetCost?: number;
  budgetMinutes?: number;
  /** Seconds between /metrics scrapes (0 = off). */
  metricsInterval?: number;
  /** GPU telemetry pages (dcgm-exporter's /metrics) scraped for the energy figures. */
  gpuMetrics?: string[];
  /** Run even when an endpoint has requests of another client. */
  allowBusyServer?: boolean;
  /** Warm-up requests before the test. */
  warmup?: number;
  /** tokenizer.json: score accuracy and submission runs. */
  tokenizer?: string;
  /** Linux PM QoS bound on CPU idle exit latency held during the test, µs. */
  cpuIdleLatencyUs?: number;
  /** true, or the idle window in ms (a string from the command line). */
  busyPoll?: boolean | number | string;
  /** Request timeouts: ms, or a duration string (30s, 5m) on the command line. */
  timeoutFirstByte?: number | string;
  timeoutIdle?: number | string;
  timeoutTotal?: number | string;
  /** Retries per sample before its first token (a string from the command line). */
  retries?: number | string;
  /** Not MLPerf (Server): a closed loop of this many requests in flight. */
  closedLoop?: number;
  /** Not MLPerf unless 1 (Server): gamma inter-arrival shape. */
  burstiness?: number;
  /** Not MLPerf (Server): the ramp-up's first rate, QPS. */
  rampFrom?: number;
  /** The ramp-up's length: ms, or a duration string. */
  rampDuration?: number | string;
  /** linear (default) or exponential. */
  rampShape?: string;
  /** Not MLPerf (Server): replay this trace (Mooncake JSONL, or JSONL/CSV of timestamp, input_length, output_length). */
  trace?: string;
  /** The trace's time scale: 2 replays twice as fast. */
  traceSpeed?: number;
  /** The model's context in tokens, for the trace's lint (default: the simulator's). */
  maxModelLen?: number;
  /** Print what the trace will send and its lint, then exit without a test. */
  dryRun?: boolean;
}

type KeyKind =
  | 'string'
  | 'number'
  | 'integer'
  | 'boolean'
  | 'path'
  | 'endpoints'
  | 'stringList'
  | 'map'
  | 'servers'
  | 'numbers'
  | 'booleanOrMs'
  | 'duration';

// Config keys and their types. `path` values are resolved against the file's directory.
const KEYS: Record<string, KeyKind> = {
  scenario: 'string',
  mode: 'string',
  benchmark: 'string',
  mlperfConf: 'path',
  userConf: 'path',
  endpoint: 'endpoints',
  backend: 'string',
  api: 'string',
  model: 'string',
  apiKey: 'string',
  dataset: 'path',
  datasetFormat: 'string',
  preset: 'string',
  fieldInputIds: 'string',
  fieldText: 'string',
  fieldMessages: 'string',
  fieldSystem: 'string',
  fieldUser: 'string',
  fieldReference: 'string',
  fieldMaxTokens: 'string',
  textTemplate: 'string',
  limit: 'integer',
  synthetic: 'string',
  syntheticSamples: 'integer',
  maxTokens: 'integer',
  ignoreEos: 'boolean',
  targetQps: 'number',
  concurrency: 'integer',
  workers: 'integer',
  outputDir: 'path',
  set: 'stringList',
  settings: 'map',
  simulator: 'map',
  servers: 'servers',
  json: 'boolean',
  quiet: 'boolean',
  strict: 'boolean',
  strictMlperf: 'boolean',
  conversations: 'path',
  multiturn: 'string',
  maxConcurrentConversations: 'integer',
  toolResults: 'path',
  toolHandler: 'path',
  resume: 'path',
  gpuHourPrice: 'numbers',
  gpusPerEndpoint: 'numbers',
  budgetTokens: 'integer',
  budgetCost: 'number',
  budgetMinutes: 'number',
  metricsInterval: 'number',
  gpuMetrics: 'stringList',
  allowBusyServer: 'boolean',
  warmup: 'integer',
  tokenizer: 'path',
  cpuIdleLatencyUs: 'integer',
  busyPoll: 'booleanOrMs',
  timeoutFirstByte: 'duration',
  timeoutIdle: 'duration',
  timeoutTotal: 'duration',
  retries: 'integer',
  closedLoop: 'integer',
  burstiness: 'number',
  rampFrom: 'number',
  rampDuration: 'duration',
  rampShape: 'string',
  trace: 'path',
  traceSpeed: 'number',
  maxModelLen: 'integer',
  dryRun: 'boolean',
};

// Friendlier spellings that mean the same key.
const ALIASES: Record<string, string> = { endpoints: 'endpoint', outdir: 'outputDir', 'output-dir': 'outputDir' };

// `fields:` map keys (the dataset roles) → flag names.
const FIELD_KEYS: Record<string, keyof RunFlags> = {
  inputIds: 'fieldInputIds',
  tokenIds: 'fieldInputIds',
  text: 'fieldText',
  messages: 'fieldMessages',
  system: 'fieldSystem',
  user: 'fieldUser',
  reference: 'fieldReference',
  maxTokens: 'fieldMaxTokens',
};

function camel(key: string): string {
  return key.replace(/[-_]([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

/** The config keys a file may use (camelCase; kebab-case works too). */
export function configKeys(): string[] {
  return [...Object.keys(KEYS), 'fields'];
}

function parseText(path: string, text: string): unknown {
  if (extname(path).toLowerCase() === '.json') {
    try {
      return JSON.parse(text) as unknown;
    } catch (err) {
      throw new UsageError(`config file ${path}: invalid JSON: ${(err as Error).message}`);
    }
  }
  // YAML (and any other extension: YAML reads JSON too).
  const doc = YAML.parseDocument(text, { uniqueKeys: true });
  if (doc.errors.length > 0) {
    const e = doc.errors[0];
    const line = e.linePos?.[0]?.line;
    const what = e.message.split('\n')[0].replace(/ at line \d+, column \d+:?$/, '');
    throw new UsageError(`config file ${path}${line ? `: line ${line}` : ''}: invalid YAML: ${what}`);
  }
  return doc.toJS() as unknown;
}

function typeName(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  return typeof v === 'object' ? 'a map' : `${typeof v} ${JSON.stringify(v)}`;
}

function checkValue(path: string, key: string, kind: KeyKind, v: unknown, base: string): unknown {
  const bad = (want: string): never => {
    throw new UsageError(`config file ${path}: '${key}' must be ${want}, got ${typeName(v)}`);
  };
  switch (kind) {
    case 'string':
      return typeof v === 'string' && v !== '' ? v : bad('a non-empty string');
    case 'path':
      if (typeof v !== 'string' || v === '') bad('a path');
      return isAbsolute(v as string) ? v : resolve(base, v as string);
    case 'number':
      return typeof v === 'number' && Number.isFinite(v) ? v : bad('a number');
    case 'integer':
      return typeof v === 'number' && Number.isSafeInteger(v) ? v : bad('an integer');
    case 'boolean':
      return typeof v === 'boolean' ? v : bad('true or false');
    case 'booleanOrMs':
      return typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v) && v >= 0)
        ? v
        : bad('true, false or a number of milliseconds >= 0');
    case 'duration':
      if (typeof v !== 'number' && (typeof v !== 'string' || v === ''))
        bad('milliseconds or a duration such as 30s or 5m');
      return parseDurationMs(`config file ${path}: '${key}'`, v as number | string);
    case 'stringList': {
      const list = typeof v === 'string' ? [v] : v;
      if (!Array.isArray(list) || !list.every((x) => typeof x === 'string')) bad('a list of strings');
      return list;
    }
    case 'map':
      return v !== null && typeof v === 'object' && !Array.isArray(v) ? v : bad('a map');
    case 'numbers': {
      const list = Array.isArray(v) ? v : [v];
      if (list.length === 0 || !list.every((x) => typeof x === 'number' && Number.isFinite(x)))
        bad('a number or a list of numbers (one per endpoint)');
      return v;
    }
    case 'servers':
      return parseServersSection(v, `config file ${path}: `, key);
    case 'endpoints': {
      const list = Array.isArray(v) ? v : [v];
      return list.map((e, i) => {
        if (typeof e === 'string' && e !== '') return e;
        if (e && typeof e === 'object' && !Array.isArray(e)) {
          const o = e as Record<string, unknown>;
          for (const k of Object.keys(o)) {
            if (!['url', 'weight', 'maxInFlight', 'gpuMetrics'].includes(k)) {
              throw new UsageError(
                `config file ${path}: '${key}[${i}]': unknown key '${k}' (known: url, weight, maxInFlight, gpuMetrics)`,
              );
            }
          }
          if (o.gpuMetrics !== undefined) {
            const g = typeof o.gpuMetrics === 'string' ? [o.gpuMetrics] : o.gpuMetrics;
            if (!Array.isArray(g) || g.length === 0 || !g.every((x) => typeof x === 'string' && x !== ''))
              throw new UsageError(`config file ${path}: '${key}[${i}].gpuMetrics' must be a URL or a list of URLs`);
            o.gpuMetrics = g;
          }
          if (typeof o.url !== 'string')
            throw new UsageError(`config file ${path}: '${key}[${i}].url' must be a URL string`);
          if (o.weight !== undefined && !(typeof o.weight === 'number' && o.weight > 0)) {
            throw new UsageError(`config file ${path}: '${key}[${i}].weight' must be a number > 0`);
          }
          if (
            o.maxInFlight !== undefined &&
            !(typeof o.maxInFlight === 'number' && Number.isSafeInteger(o.maxInFlight) && o.maxInFlight >= 1)
          ) {
            throw new UsageError(`config file ${path}: '${key}[${i}].maxInFlight' must be an integer >= 1`);
          }
          return o as unknown as EndpointConfig;
        }
        throw new UsageError(
          `config file ${path}: '${key}[${i}]' must be a URL or {url, weight?, maxInFlight?, gpuMetrics?}, got ${typeName(e)}`,
        );
      });
    }
  }
}

/** Reads and checks a config file; relative paths in it are taken from the file's directory. */
export function readConfigFile(path: string): RunFlags {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new UsageError(
      `config file ${path}: ${code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'is a directory' : (err as Error).message}`,
    );
  }
  const data = parseText(path, text);
  if (data === null || data === undefined) return {};
  if (typeof data !== 'object' || Array.isArray(data))
    throw new UsageError(`config file ${path}: expected a map of options at the top, got ${typeName(data)}`);
  const base = dirname(resolve(path));
  const out: Record<string, unknown> = {};
  for (const [rawKey, value] of Object.entries(data as Record<string, unknown>)) {
    const key = ALIASES[rawKey] ?? ALIASES[camel(rawKey)] ?? camel(rawKey);
    if (key === 'fields') {
      if (value === null || typeof value !== 'object' || Array.isArray(value))
        throw new UsageError(`config file ${path}: 'fields' must be a map of role: column`);
      for (const [role, column] of Object.entries(value as Record<string, unknown>)) {
        const flag = FIELD_KEYS[camel(role)];
        if (!flag)
          throw new UsageError(
            `config file ${path}: unknown key 'fields.${role}' (known: ${Object.keys(FIELD_KEYS).join(', ')})`,
          );
        out[flag] = checkValue(path, `fields.${role}`, 'string', column, base);
      }
      continue;
    }
    const kind = KEYS[key];
    if (!kind || key === 'config') {
      throw new UsageError(`config file ${path}: unknown key '${rawKey}' (known keys: ${configKeys().join(', ')})`);
    }
    if (value === null || value === undefined) continue;
    out[key] = checkValue(path, rawKey, kind, value, base);
  }
  return out as RunFlags;
}

/**
 * Config file values under the flags given on the command line. `--set`
 * adds to the file's `settings:` (applied after it), so flags win key by key.
 */
export function mergeFlags(fromFile: RunFlags, fromCli: RunFlags): RunFlags {
  const out: Record<string, unknown> = { ...fromFile };
  for (const [k, v] of Object.entries(fromCli)) {
    if (v === undefined) continue;
    if (k === 'set') out.set = [...(fromFile.set ?? []), ...(v as string[])];
    else out[k] = v;
  }
  return out as RunFlags;
}
