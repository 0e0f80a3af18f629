// Settings from mlperf.conf / user.conf (or the built-in table of the
// official mlperf.conf values), with the official lookup rules.
import { native } from './binding.js';
import { fromEngineSettings, SettingsError, type TestScenario, type TestSettings } from './settings.js';
import { ErrorCode, LoadgenError } from './errors.js';

export interface LoadSettingsOptions {
  /** MLPerf model key, e.g. 'llama3_1-8b'. */
  model: string;
  scenario: TestScenario;
  /** A mlperf.conf to use instead of the built-in table. */
  mlperfConf?: string;
  /** user.conf, applied on top. */
  userConf?: string;
}

export class ConfigError extends LoadgenError {
  constructor(readonly problems: string[]) {
    super(ErrorCode.Config, `invalid configuration:\n  ${problems.join('\n  ')}`);
  }
}

export function loadSettings(options: LoadSettingsOptions): TestSettings {
  if (!options || typeof options.model !== 'string' || options.model.length === 0) {
    throw new SettingsError('model', 'loadSettings: model must be a non-empty string such as "llama3_1-8b"');
  }
  if (!['SingleStream', 'MultiStream', 'Server', 'Offline'].includes(options.scenario)) {
    throw new SettingsError(
      'scenario',
      `loadSettings: scenario must be SingleStream, MultiStream, Server or Offline, got ${String(options.scenario)}`,
    );
  }
  const r = native.loadSettings(options.model, options.scenario, options.mlperfConf ?? null, options.userConf ?? null);
  if (r.errors.length > 0) throw new ConfigError(r.errors);
  const s = fromEngineSettings(r.settings);
  s.scenario = options.scenario;
  return s;
}

/** The MLPerf model keys of the built-in mlperf.conf table. */
export function builtinBenchmarks(): string[] {
  return native.benchmarkNames();
}
