// Defaults and validation of SimulatorOptions: every bad option throws an
// Error that names it, before any socket is opened.
import { validateFaultRules } from './faults.js';
import type { SimFaultRule, SimFlavor, SimRequestInfo, SimulatorOptions } from './types.js';

export interface ResolvedOptions {
  flavor: SimFlavor;
  host: string;
  port: number;
  model: string;
  maxModelLen: number;
  version: string;
  maxRunningSeqs: number;
  prefillNsPerToken: number;
  decodeStepNs: number;
  decodeStepNsPerSeq: number;
  precisePacing: boolean;
  outputLength: number | ((req: SimRequestInfo) => number) | undefined;
  eosAfter: number | undefined;
  eosTokenId: number;
  tokensPerChunk: number;
  returnTokenIds: boolean;
  logprobsTokenIds: boolean;
  sglangOutputIds: 'cumulative' | 'delta';
  outputIdsAhead: number;
  parserWithholds: number;
  finishAfterTokenIds: boolean;
  sseDone: boolean;
  prefixCache: boolean;
  prefixCacheBlockTokens: number;
  faults: SimFaultRule[];
  record: boolean;
  maxRecords: number;
  requireAuthorization: string | null;
  authorizationScope: 'all' | 'v1';
  gpus: number;
  gpuIdleWatts: number;
  gpuWattsPerSeq: number;
  gpuMaxWatts: number;
  gpuModelName: string;
}

export const DEFAULT_VERSIONS: Record<SimFlavor, string> = { vllm: '0.11.0', sglang: '0.5.4' };

function bad(name: string, why: string, value: unknown): Error {
  let shown: string;
  try {
    shown = typeof value === 'function' ? 'a function' : (JSON.stringify(value) ?? String(value));
  } catch {
    shown = String(value);
  }
  return new Error(`startSimulator: option '${name}' ${why} (got ${shown})`);
}

function int(
  o: Record<string, unknown>,
  name: string,
  dflt: number,
  min: number,
  max = Number.MAX_SAFE_INTEGER,
): number {
  const v = o[name];
  if (v === undefined) return dflt;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) {
    throw bad(name, `must be an integer in [${min}, ${max}]`, v);
  }
  return v;
}

function nonNegative(o: Record<string, unknown>, name: string): number {
  const v = o[name];
  if (v === undefined) return 0;
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) throw bad(name, 'must be a finite number >= 0', v);
  return v;
}

function bool(o: Record<string, unknown>, name: string, dflt: boolean): boolean {
  const v = o[name];
  if (v === undefined) return dflt;
  if (typeof v !== 'boolean') throw bad(name, 'must be a boolean', v);
  return v;
}

function str(o: Record<string, unknown>, name: string, dflt: string): string {
  const v = o[name];
  if (v === undefined) return dflt;
  if (typeof v !== 'string' || v.length === 0) throw bad(name, 'must be a non-empty string', v);
  return v;
}

const KNOWN = new Set([
  'flavor',
  'host',
  'port',
  'model',
  'maxModelLen',
  'version',
  'maxRunningSeqs',
  'prefillNsPerToken',
  'decodeStepNs',
  'decodeStepNsPerSeq',
  'precisePacing',
  'outputLength',
  'eosAfter',
  'eosTokenId',
  'tokensPerChunk',
  'returnTokenIds',
  'logprobsTokenIds',
  'sglangOutputIds',
  'outputIdsAhead',
  'parserWithholds',
  'finishAfterTokenIds',
  'sseDone',
  'faults',
  'record',
  'maxRecords',
  'prefixCache',
  'prefixCacheBlockTokens',
  'requireAuthorization',
  'authorizationScope',
  'gpus',
  'gpuIdleWatts',
  'gpuWattsPerSeq',
  'gpuMaxWatts',
  'gpuModelName',
]);

function authorizationScope(v: unknown): 'all' | 'v1' {
  if (v === undefined) return 'all';
  if (v === 'all' || v === 'v1') return v;
  throw bad('authorizationScope', "must be 'all' or 'v1'", v);
}

function gpuOptions(
  o: Record<string, unknown>,
): Pick<ResolvedOptions, 'gpus' | 'gpuIdleWatts' | 'gpuWattsPerSeq' | 'gpuMaxWatts' | 'gpuModelName'> {
  const watts = (name: string, dflt: number): number => (o[name] === undefined ? dflt : nonNegative(o, name));
  const gpuIdleWatts = watts('gpuIdleWatts', 70);
  const gpuMaxWatts = watts('gpuMaxWatts', 700);
  if (gpuMaxWatts < gpuIdleWatts) throw bad('gpuMaxWatts', `must be >= gpuIdleWatts (${gpuIdleWatts})`, gpuMaxWatts);
  return {
    gpus: int(o, 'gpus', 1, 1, 64),
    gpuIdleWatts,
    gpuWattsPerSeq: watts('gpuWattsPerSeq', 8),
    gpuMaxWatts,
    gpuModelName: str(o, 'gpuModelName', 'NVIDIA H100 80GB HBM3'),
  };
}

export function resolveOptions(options: SimulatorOptions | undefined): ResolvedOptions {
  if (options !== undefined && (options === null || typeof options !== 'object' || Array.isArray(options))) {
    throw new Error('startSimulator: options must be an object');
  }
  const o = (options ?? {}) as Record<string, unknown>;
  // A misspelt option would silently do nothing: refuse it instead.
  for (const key of Object.keys(o)) {
    if (!KNOWN.has(key)) throw bad(key, 'is not a known option', o[key]);
  }

  const flavor = o.flavor ?? 'vllm';
  if (flavor !== 'vllm' && flavor !== 'sglang') throw bad('flavor', "must be 'vllm' or 'sglang'", flavor);

  const outputLength = o.outputLength;
  if (outputLength !== undefined && typeof outputLength !== 'function') {
    if (typeof outputLength !== 'number' || !Number.isInteger(outputLength) || outputLength < 1) {
      throw bad('outputLength', 'must be an integer >= 1 or a function', outputLength);
    }
  }
  const sglangOutputIds = o.sglangOutputIds ?? 'cumulative';
  if (sglangOutputIds !== 'cumulative' && sglangOutputIds !== 'delta') {
    throw bad('sglangOutputIds', "must be 'cumulative' or 'delta'", sglangOutputIds);
  }
  if (o.faults !== undefined && !Array.isArray(o.faults))
    throw bad('faults', 'must be an array of fault rules', o.faults);
  let faults: SimFaultRule[] = [];
  if (o.faults !== undefined) {
    try {
      faults = validateFaultRules(o.faults);
    } catch (err) {
      throw new Error(`startSimulator: option 'faults': ${(err as Error).message}`);
    }
  }

  return {
    flavor,
    host: str(o, 'host', '127.0.0.1'),
    port: int(o, 'port', 0, 0, 65535),
    model: str(o, 'model', 'sim-model'),
    maxModelLen: int(o, 'maxModelLen', 8192, 2),
    version: str(o, 'version', DEFAULT_VERSIONS[flavor]),
    maxRunningSeqs: int(o, 'maxRunningSeqs', 256, 1),
    prefillNsPerToken: nonNegative(o, 'prefillNsPerToken'),
    decodeStepNs: nonNegative(o, 'decodeStepNs'),
    decodeStepNsPerSeq: nonNegative(o, 'decodeStepNsPerSeq'),
    precisePacing: bool(o, 'precisePacing', true),
    outputLength: outputLength as ResolvedOptions['outputLength'],
    eosAfter: o.eosAfter === undefined ? undefined : int(o, 'eosAfter', 1, 1),
    eosTokenId: int(o, 'eosTokenId', 2, 0, 0x7fffffff),
    tokensPerChunk: int(o, 'tokensPerChunk', 1, 1),
    returnTokenIds: bool(o, 'returnTokenIds', true),
    logprobsTokenIds: bool(o, 'logprobsTokenIds', true),
    sglangOutputIds,
    outputIdsAhead: int(o, 'outputIdsAhead', 0, 0),
    parserWithholds: int(o, 'parserWithholds', 0, 0),
    finishAfterTokenIds: bool(o, 'finishAfterTokenIds', false),
    sseDone: bool(o, 'sseDone', true),
    prefixCache: bool(o, 'prefixCache', false),
    prefixCacheBlockTokens: int(o, 'prefixCacheBlockTokens', 16, 1),
    faults,
    record: bool(o, 'record', true),
    maxRecords: int(o, 'maxRecords', 1_000_000, 1),
    requireAuthorization: o.requireAuthorization === undefined ? null : str(o, 'requireAuthorization', ''),
    authorizationScope: authorizationScope(o.authorizationScope),
    ...gpuOptions(o),
  };
}
