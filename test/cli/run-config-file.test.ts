// `loadgen run`'s config file (YAML or JSON): every key in both spellings,
// paths relative to the file, flags over the file, `--set` merged key by
// key, the README's example, and every malformed file refused with the key
// named.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, describe, expect, test } from 'vitest';

import { configKeys, mergeFlags, readConfigFile } from '../../lib/cli/config-file.js';
import { UsageError } from '../../lib/cli/errors.js';
import { planRun } from '../../lib/cli/run-command.js';
import { parseRunFlags as parse } from './parse-run.js';

const dir = mkdtempSync(join(tmpdir(), 'lg-cli-config-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('config file', () => {
  const write = (name: string, text: string) => {
    const p = join(dir, name);
    writeFileSync(p, text);
    return p;
  };

  test('YAML with every key (camelCase or kebab-case), paths from the file', () => {
    const file = write(
      'all.yaml',
      `scenario: Offline
mode: accuracy
benchmark: llama3_1-8b
mlperf-conf: m.conf
userConf: /abs/u.conf
endpoints:
  - http://a:8000
  - { url: http://b:8000, weight: 2, maxInFlight: 16 }
backend: vllm
api: completions
model: m
apiKey: k
dataset: data/d.jsonl
datasetFormat: jsonl
preset: dummy
fields: { inputIds: ids, text: t, messages: msgs, system: s, user: u, reference: r, maxTokens: mt }
text-template: "{t}"
limit: 5
maxTokens: 7
ignoreEos: true
targetQps: 9.5
concurrency: 4
workers: 1
outputDir: out
set: [min_duration=100]
settings: { ttft_latency: 2000 }
json: true
quiet: false
`,
    );
    const f = readConfigFile(file);
    expect(f).toEqual({
      scenario: 'Offline',
      mode: 'accuracy',
      benchmark: 'llama3_1-8b',
      mlperfConf: join(dir, 'm.conf'),
      userConf: '/abs/u.conf',
      endpoint: ['http://a:8000', { url: 'http://b:8000', weight: 2, maxInFlight: 16 }],
      backend: 'vllm',
      api: 'completions',
      model: 'm',
      apiKey: 'k',
      dataset: join(dir, 'data/d.jsonl'),
      datasetFormat: 'jsonl',
      preset: 'dummy',
      fieldInputIds: 'ids',
      fieldText: 't',
      fieldMessages: 'msgs',
      fieldSystem: 's',
      fieldUser: 'u',
      fieldReference: 'r',
      fieldMaxTokens: 'mt',
      textTemplate: '{t}',
      limit: 5,
      maxTokens: 7,
      ignoreEos: true,
      targetQps: 9.5,
      concurrency: 4,
      workers: 1,
      outputDir: join(dir, 'out'),
      set: ['min_duration=100'],
      settings: { ttft_latency: 2000 },
      json: true,
      quiet: false,
    });
    const p = planRun(f);
    expect(p.options).toMatchObject({
      scenario: 'Offline',
      mode: 'AccuracyOnly',
      targetQps: 9.5,
      settings: { minDurationMs: 100, ttftLatencyNs: 2e9 },
    });
  });

  test('the synthetic keys and the simulator map', () => {
    const f = readConfigFile(
      write(
        'syn.yml',
        'scenario: Server\nsynthetic: 64/8\nsynthetic-samples: 20\nsimulator: { flavor: sglang, decodeStepNs: 1000000 }\n',
      ),
    );
    expect(planRun(f).options).toMatchObject({
      dataset: { synthetic: { size: 20, inputLength: 64, outputLength: 8 } },
      simulator: { flavor: 'sglang', decodeStepNs: 1e6 },
    });
  });

  test('every config key is known to the reader', () => {
    // A superset: other features may add keys (e.g. a servers: section).
    expect(configKeys()).toEqual(
      expect.arrayContaining([
        'scenario',
        'mode',
        'benchmark',
        'mlperfConf',
        'userConf',
        'endpoint',
        'backend',
        'api',
        'model',
        'apiKey',
        'dataset',
        'datasetFormat',
        'preset',
        'fieldInputIds',
        'fieldText',
        'fieldMessages',
        'fieldSystem',
        'fieldUser',
        'fieldReference',
        'fieldMaxTokens',
        'textTemplate',
        'limit',
        'synthetic',
        'syntheticSamples',
        'maxTokens',
        'ignoreEos',
        'targetQps',
        'concurrency',
        'workers',
        'cpuIdleLatencyUs',
        'busyPoll',
        'outputDir',
        'set',
        'settings',
        'simulator',
        'json',
        'quiet',
        'fields',
      ]),
    );
  });

  test('JSON files too', () => {
    const f = readConfigFile(
      write('c.json', JSON.stringify({ scenario: 'Server', 'target-qps': 3, settings: { min_duration: 1000 } })),
    );
    expect(f).toEqual({ scenario: 'Server', targetQps: 3, settings: { min_duration: 1000 } });
  });

  test('flags win over the file; --set adds to the file settings key by key', async () => {
    const file = write(
      'p.yaml',
      'scenario: Offline\ntargetQps: 10\noutputDir: from-file\nsettings: { min_duration: 5000, max_duration: 9000 }\nset: [min_query_count=7]\n',
    );
    const cli = await parse([
      '--scenario',
      'Server',
      '--target-qps',
      '20',
      '--set',
      'minDurationMs=1000',
      '--set',
      'min_query_count=8',
    ]);
    const p = planRun(mergeFlags(readConfigFile(file), cli));
    expect(p.options.scenario).toBe('Server');
    expect(p.options.targetQps).toBe(20);
    expect(p.options.outdir).toBe(join(dir, 'from-file'));
    expect(p.options.settings).toEqual({ minDurationMs: 1000, maxDurationMs: 9000, minQueryCount: 8 });
  });

  const bad: Array<[string, string, RegExp]> = [
    ['unknown.yaml', 'scenario: Server\ntargetQPS: 5\n', /unknown key 'targetQPS'/],
    ['unknown-field.yaml', 'fields: { prompt: x }\n', /unknown key 'fields.prompt'/],
    ['type.yaml', 'targetQps: fast\n', /'targetQps' must be a number/],
    ['int.yaml', 'limit: 1.5\n', /'limit' must be an integer/],
    ['bool.yaml', 'json: yes-please\n', /'json' must be true or false/],
    ['list.yaml', 'set: { a: 1 }\n', /'set' must be a list of strings/],
    ['ep.yaml', 'endpoints: [{ url: http://a, port: 1 }]\n', /unknown key 'port'/],
    ['ep2.yaml', 'endpoints: [{ url: http://a, weight: 0 }]\n', /weight' must be a number > 0/],
    ['ep3.yaml', 'endpoints: [3]\n', /must be a URL/],
    ['top.yaml', '- a\n- b\n', /expected a map of options/],
    ['syntax.yaml', 'scenario: Server\n  bad: [1\n', /line \d+: invalid YAML/],
    ['dup.yaml', 'scenario: Server\nscenario: Offline\n', /invalid YAML/],
    ['syntax.json', '{"scenario": ', /invalid JSON/],
  ];
  test.each(bad)('%s is refused with the key named', (name, text, message) => {
    const p = write(name, text);
    expect(() => readConfigFile(p)).toThrow(UsageError);
    expect(() => readConfigFile(p)).toThrow(message);
  });

  test("the README's example config file", () => {
    const readme = readFileSync(join(import.meta.dirname, '..', '..', 'README.md'), 'utf8');
    const yaml = /```yaml\n(# run\.yaml[\s\S]*?)```/.exec(readme)![1];
    const p = planRun(readConfigFile(write('run.yaml', yaml)));
    expect(p.options).toMatchObject({
      scenario: 'Server',
      benchmark: 'llama3_1-8b',
      endpoints: ['http://gpu1:8000', { url: 'http://gpu2:8000', weight: 2 }],
      dataset: { path: join(dir, 'cnn_eval.json') },
      targetQps: 30,
      settings: { ttftLatencyNs: 2e9, minQueryCount: 1000 },
      outdir: join(dir, 'out'),
    });
  });

  test('a missing file and a directory', () => {
    expect(() => readConfigFile(join(dir, 'nope.yaml'))).toThrow(/nope.yaml: no such file/);
    expect(() => readConfigFile(dir)).toThrow(/is a directory/);
  });

  test('busyPoll: true, false or an idle window in ms', () => {
    expect(planRun(readConfigFile(write('bp1.yaml', 'scenario: Server\nbusy-poll: true\n'))).options.busyPoll).toEqual({
      idleMs: 1000,
    });
    expect(planRun(readConfigFile(write('bp2.yaml', 'scenario: Server\nbusyPoll: 50\n'))).options.busyPoll).toEqual({
      idleMs: 50,
    });
    expect(
      planRun(readConfigFile(write('bp3.yaml', 'scenario: Server\nbusyPoll: false\n'))).options.busyPoll,
    ).toBeUndefined();
    expect(() => readConfigFile(write('bp4.yaml', 'busyPoll: soon\n'))).toThrow(
      /'busyPoll' must be true, false or a number of milliseconds >= 0, got string "soon"/,
    );
    expect(() => readConfigFile(write('bp5.yaml', 'busyPoll: -1\n'))).toThrow(
      /'busyPoll' must be true, false or a number of milliseconds >= 0/,
    );
  });

  test('an empty file is no options', () => {
    expect(readConfigFile(write('empty.yaml', ''))).toEqual({});
  });
});
