// No secret in any file a run writes or on its console: a whole `loadgen
// run` (the built CLI, a child process) against a simulator that demands
// HTTP Basic authorization (its URL carries user:password) and a launched
// simulated server given a secret environment variable, with an --api-key,
// in accuracy mode (run-state.json is written too; the journal is removed
// once the run completes).
// Every file under the output directory and the captured stdout and stderr
// are searched for each secret in every form it could be written in.
import { readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';

import { afterAll, expect, test } from 'vitest';

import { startSimulator } from '../../lib/sim/index.js';
import { allGone, killGroups, runCli, serverPids, tempDir, writeConfig } from './helpers.js';

const dir = tempDir();
const started: number[] = [];
afterAll(() => {
  killGroups(started);
  rmSync(dir, { recursive: true, force: true });
});

const USER = 'loaduser';
const PASSWORD = 'pa$$@URLSECRET-77'; // percent-encoded in the URL
const API_KEY = 'sk-APIKEYSECRET-123456';
const ENV_SECRET = 'hf_ENVSECRET_987654';
const BASIC = Buffer.from(`${USER}:${PASSWORD}`).toString('base64');

function files(root: string): string[] {
  return readdirSync(root).flatMap((name) => {
    const p = join(root, name);
    return statSync(p).isDirectory() ? files(p) : [p];
  });
}

test('URL password, API key and server env secret: sent where they belong, written and printed nowhere', async () => {
  const sim = await startSimulator({ requireAuthorization: `Basic ${BASIC}`, precisePacing: false, outputLength: 8 });
  try {
    const url = sim.url.replace('http://', `http://${USER}:${encodeURIComponent(PASSWORD)}@`);
    const out = join(dir, 'out');
    const config = writeConfig(
      dir,
      [
        'servers:',
        '  - name: launched',
        '    backend: simulator',
        '    model: sim-model',
        '    port: auto',
        '    startup-timeout-s: 30',
        '    stop-grace-s: 3',
        `    env: { HF_TOKEN: ${ENV_SECRET}, PLAIN_SETTING: visible-value }`,
        '    simulator: { output-length: 8 }',
        '',
      ].join('\n'),
    );
    const r = await runCli([
      'run',
      '--config',
      config,
      '--endpoint',
      url,
      '--api-key',
      API_KEY,
      '--scenario',
      'Offline',
      '--mode',
      'accuracy',
      '--synthetic',
      '16/8',
      '--synthetic-samples',
      '48',
      '--model',
      'sim-model',
      '--output-dir',
      out,
      '--metrics-interval',
      '0.2',
    ]);
    started.push(...serverPids(r.stderr));
    expect(r.code, r.stderr).toBe(0);
    expect(await allGone(serverPids(r.stderr))).toBe(true);

    // The simulator behind the URL got the Basic authorization on every request (health, models, generation, metrics).
    expect(sim.stats().unauthorized).toBe(0);
    expect(sim.stats().totalRequests).toBeGreaterThan(10);
    const res = JSON.parse(readFileSync(join(out, 'results.json'), 'utf8'));
    const a = res.endpoints.find((e: { url: string }) => e.url === sim.url);
    expect(a?.completed).toBeGreaterThan(0);
    // The server's environment is recorded by name only; its command line shows the names.
    expect(res.servers.servers[0].env).toEqual(expect.arrayContaining(['HF_TOKEN', 'PLAIN_SETTING']));
    expect(res.servers.servers[0].commandLine).toMatch(/HF_TOKEN=\*\*\* /);
    expect(res.run.command).toEqual(expect.arrayContaining(['--api-key', '***']));

    const secrets = [
      PASSWORD,
      encodeURIComponent(PASSWORD),
      'URLSECRET',
      BASIC,
      API_KEY,
      'APIKEYSECRET',
      ENV_SECRET,
      'ENVSECRET',
      'visible-value',
    ];
    const written = files(out);
    expect(written.map((f) => f.slice(out.length + 1))).toEqual(
      expect.arrayContaining([
        'results.json',
        'result_summary.json',
        'report.html',
        'run-state.json',
        'mlperf_log_detail.txt',
        'servers/launched.log',
      ]),
    );
    for (const [what, text] of [
      ...written.map((f) => [f, readFileSync(f, 'latin1')] as const),
      ['stdout', r.stdout] as const,
      ['stderr', r.stderr] as const,
    ]) {
      for (const s of secrets) expect(text.includes(s), `${s} in ${what}`).toBe(false);
    }
  } finally {
    await sim.close();
  }
}, 120_000);
