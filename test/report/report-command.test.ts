// `loadgen report`: text and JSON output, --aggregate writing
// aggregated_results.json, and exit code 2 with a one-line message (no stack)
// for bad input; also through the real `loadgen` program.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { afterAll, describe, expect, test } from 'vitest';

import { createProgram } from '../../lib/cli/main.js';
import { runReport, type ReportIo } from '../../lib/cli/report-command.js';
import { writeRunOutputs } from '../../lib/results/write-outputs.js';
import { cleanupTempDirs, HAVE_OFFICIAL_LOGS, makeTempDir, officialDir } from '../helpers.js';
import { customRecord } from '../results/helpers.js';

afterAll(() => cleanupTempDirs());

function capture(): ReportIo & { out: string; err: string } {
  const io = { out: '', err: '', stdout: (t: string) => void (io.out += t), stderr: (t: string) => void (io.err += t) };
  return io;
}

describe('report of our runs', () => {
  test('text, --json, --output and --aggregate', async () => {
    const a = await customRecord('Server');
    const b = await customRecord('Server');
    await writeRunOutputs(a);
    let io = capture();
    expect(await runReport([a.outdir], {}, io)).toBe(0);
    expect(io.err).toBe('');
    expect(io.out).toContain(a.outdir);
    expect(io.out).toContain(`Result    ${a.result.valid ? 'VALID' : 'INVALID'}`);
    expect(io.out).toMatch(/scenario Server/);

    io = capture();
    const out = join(makeTempDir(), 'one.json');
    expect(await runReport([a.outdir], { json: true, output: out }, io)).toBe(0);
    const printed = JSON.parse(io.out);
    expect(printed).toMatchObject({ dir: a.outdir, scenario: 'Server', valid: a.result.valid, origin: 'ours' });
    expect(JSON.parse(readFileSync(out, 'utf8'))).toEqual(printed);

    io = capture();
    const agg = join(makeTempDir(), 'aggregated_results.json');
    expect(await runReport([a.outdir, b.outdir], { aggregate: true, output: agg }, io)).toBe(0);
    expect(io.out).toMatch(/^Aggregated 2 runs \(Server\)/);
    expect(io.out).toContain(`Wrote ${agg}`);
    const file = JSON.parse(readFileSync(agg, 'utf8'));
    expect(file.schema).toBe('@x/loadgen/aggregated-results');
    expect(file.runs).toHaveLength(2);
    expect(file.latencyMs.latency.method).toBe('exact');
  });

  test('--aggregate without --output writes ./aggregated_results.json', async () => {
    const a = await customRecord('Offline');
    const cwd = process.cwd();
    const dir = makeTempDir();
    process.chdir(dir);
    try {
      const io = capture();
      expect(await runReport([a.outdir], { aggregate: true, json: true }, io)).toBe(0);
      expect(existsSync(join(dir, 'aggregated_results.json'))).toBe(true);
      expect(JSON.parse(io.out).runs[0].scenario).toBe('Offline');
    } finally {
      process.chdir(cwd);
    }
  });
});

describe.skipIf(!HAVE_OFFICIAL_LOGS)('report of official logs', () => {
  test('every official run directory prints, exit 0', async () => {
    const io = capture();
    const dirs = [
      'Server_PerformanceOnly',
      'Server_AccuracyOnly',
      'Offline_PerformanceOnly',
      'Offline_PerformanceOnly_INVALID_minduration',
      'Offline_AccuracyOnly',
      'SingleStream_PerformanceOnly',
    ].map(officialDir);
    expect(await runReport(dirs, {}, io)).toBe(0);
    expect(io.out).toContain('Metric    completed samples per second: 1033.26 samples/s');
    expect(io.out).toContain('* Increase expected QPS so the loadgen pre-generates a larger (coalesced) query.');
    expect(io.out).toContain('no performance result (AccuracyOnly)');
    expect(io.out).toContain('latency at target percentile: 100 ns');
  });
});

describe('bad input: exit 2, one line, no stack', () => {
  const cases: Array<[string, () => string[]]> = [
    ['no directory given', () => []],
    ['missing directory', () => ['/nonexistent/run-dir']],
    ['directory without logs', () => [makeTempDir()]],
    [
      'malformed log',
      () => {
        const d = makeTempDir();
        writeFileSync(join(d, 'mlperf_log_detail.txt'), 'garbage\n:::MLLOG {"key": "x", "value": 1}\n');
        return [d];
      },
    ],
  ];
  test.each(cases)('%s', async (_name, dirs) => {
    for (const aggregate of [false, true]) {
      const io = capture();
      expect(await runReport(dirs(), { aggregate, output: join(makeTempDir(), 'a.json') }, io)).toBe(2);
      expect(io.out).toBe('');
      expect(io.err).toMatch(/^loadgen report: .+\n$/);
      expect(io.err).not.toMatch(/\n\s+at /);
    }
  });

  test('an output file that cannot be written', async () => {
    const a = await customRecord('Offline');
    const io = capture();
    expect(await runReport([a.outdir], { aggregate: true, output: '/nonexistent/dir/agg.json' }, io)).toBe(2);
    expect(io.err).toBe('loadgen report: cannot write /nonexistent/dir/agg.json: no such directory\n');
  });

  test('through the loadgen program', async () => {
    const writes: string[] = [];
    const orig = process.stderr.write.bind(process.stderr);
    const saved = process.exitCode;
    process.stderr.write = ((chunk: string | Uint8Array) => {
      writes.push(String(chunk));
      return true;
    }) as typeof process.stderr.write;
    try {
      await createProgram().parseAsync(['node', 'loadgen', 'report', '/nonexistent/run-dir']);
      expect(process.exitCode).toBe(2);
    } finally {
      process.stderr.write = orig;
      process.exitCode = saved;
    }
    expect(writes.join('')).toBe('loadgen report: /nonexistent/run-dir: no such directory\n');
  });
});
