// Checkpoint and resume through the CLI: a run killed with SIGKILL mid-way
// (the harness, then separately the server) is continued with --resume, and
// its final accuracy log equals an uninterrupted run's entry by entry (keyed
// by qsl_idx: seq_id, data, token_count, token_data all equal; only the order
// of the entries in the file, which follows completion order, may differ).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { buildCli, runCli, spawnCli, tempDir } from '../cli/helpers.js';
import { accuracyEntries, journalCount, killed, startSimChild, waitFor } from './helpers.js';

let cli: string;
let cleanup: () => void;

beforeAll(async () => {
  ({ cli, cleanup } = await buildCli());
}, 120_000);
afterAll(() => cleanup?.());

// Server accuracy at 40 QPS: 120 samples take ~3 s, so there is time to kill it mid-way.
const SAMPLES = 120;
const common = (url: string, workers = 1) => [
  'run',
  '--scenario',
  'Server',
  '--mode',
  'accuracy',
  '--target-qps',
  '40',
  '--endpoint',
  url,
  '--synthetic',
  '16/12',
  '--synthetic-samples',
  String(SAMPLES),
  '--workers',
  String(workers),
  '--metrics-interval',
  '0.5',
  '--quiet',
];
const SIM = [
  '--port',
  '0',
  '--decode-step-ms',
  '4',
  '--max-running-seqs',
  '64',
  '--no-precise-pacing',
  '--model',
  'sim-resume',
];
// Slower steps: ~10 streams in flight, so killing the server cuts some of them after their first token.
const SIM_SLOW = ['--decode-step-ms', '20', '--max-running-seqs', '64', '--no-precise-pacing', '--model', 'sim-resume'];

describe('kill -9 and --resume', () => {
  let reference: ReturnType<typeof accuracyEntries>;
  let referenceResults: { counts: unknown; verdict: { status: string } };

  beforeAll(async () => {
    const sim = await startSimChild(cli, SIM);
    try {
      const dir = tempDir('lg-resume-ref-');
      const r = await runCli(cli, [...common(sim.url), '--output-dir', dir]);
      expect(r.code, r.stderr).toBe(0);
      reference = accuracyEntries(dir);
      referenceResults = JSON.parse(readFileSync(join(dir, 'results.json'), 'utf8'));
      // A complete run removes its journal; its run state says complete.
      expect(existsSync(join(dir, 'journal'))).toBe(false);
      expect(JSON.parse(readFileSync(join(dir, 'run-state.json'), 'utf8')).state).toBe('complete');
    } finally {
      await killed(sim.child);
    }
  }, 120_000);

  it('the reference run logged every sample once', () => {
    expect(reference).toHaveLength(SAMPLES);
    expect(new Set(reference.map((e) => e.qsl_idx)).size).toBe(SAMPLES);
    expect(reference.every((e) => e.data.length > 0 && e.token_data && e.token_count === 12)).toBe(true);
  });

  it.each([1, 2])(
    'the harness killed mid-run (%i adapter threads), then resumed: the same accuracy log',
    async (workers) => {
      const sim = await startSimChild(cli, SIM);
      try {
        const dir = tempDir('lg-resume-kill-');
        const first = spawnCli(cli, [...common(sim.url, workers), '--output-dir', dir]);
        await waitFor('journal entries', () => journalCount(dir) >= 20);
        first.child.kill('SIGKILL');
        await first.done;
        const done = journalCount(dir);
        expect(done).toBeGreaterThanOrEqual(20);
        expect(done).toBeLessThan(SAMPLES);
        // The run state still says running, with a process that is gone: interrupted.
        const { readRunState } = await import('../../lib/resume/run-state.js');
        expect(readRunState(dir)?.state).toBe('interrupted');
        const { readRunLogs } = await import('../../lib/report/read-logs.js');
        expect(readRunLogs(dir).summary.incomplete).toBe(true);

        const second = await runCli(cli, [...common(sim.url, workers), '--resume', dir]);
        expect(second.code, second.stderr).toBe(0);
        expect(accuracyEntries(dir)).toEqual(reference);
        const results = JSON.parse(readFileSync(join(dir, 'results.json'), 'utf8'));
        expect(results.resume.resumed).toBe(true);
        expect(results.resume.restoredSamples).toBe(done);
        expect(results.resume.complete).toBe(true);
        // The results' counts and verdict are the uninterrupted run's.
        expect(results.counts).toEqual(referenceResults.counts);
        expect(results.counts.accuracyLogEntries).toBe(SAMPLES);
        expect(results.verdict.status).toBe(referenceResults.verdict.status);
        expect(results.tokens.outputTokens).toBe((SAMPLES - done) * 12);
        // Only the missing samples went to the server.
        expect(results.harness.samples.issued).toBe(SAMPLES - done);
      } finally {
        await killed(sim.child);
      }
    },
    120_000,
  );

  it('the server killed and restarted mid-run: failed samples are re-issued by --resume', async () => {
    let sim = await startSimChild(cli, ['--port', '0', ...SIM_SLOW]);
    const port = sim.port;
    try {
      const dir = tempDir('lg-resume-srv-');
      const run = spawnCli(cli, [...common(sim.url), '--output-dir', dir]);
      await waitFor('journal entries', () => journalCount(dir) >= 20);
      await killed(sim.child);
      await new Promise((r) => setTimeout(r, 300));
      sim = await startSimChild(cli, ['--port', String(port), ...SIM_SLOW]);
      const r = await run.done;
      // The run finishes; samples cut by the crash failed and are not in the journal: exit 6 (some samples failed).
      expect(r.code, r.stderr).toBe(6);
      const after = JSON.parse(readFileSync(join(dir, 'results.json'), 'utf8'));
      // Streams cut after their first token cannot be retried (MLPerf's TTFT is taken): they failed.
      expect(after.resume.complete).toBe(false);
      expect(after.errors.failedSamples).toBeGreaterThan(0);
      expect(after.resume.journaledSamples).toBe(SAMPLES - after.errors.failedSamples);
      expect(after.serverMetrics.endpoints[0].restarts).toBeGreaterThanOrEqual(1);
      expect(existsSync(join(dir, 'journal'))).toBe(true);
      expect(JSON.parse(readFileSync(join(dir, 'run-state.json'), 'utf8')).state).toBe('incomplete');
      const second = await runCli(cli, [...common(sim.url), '--resume', dir]);
      expect(second.code, second.stderr).toBe(0);
      expect(accuracyEntries(dir)).toEqual(reference);
    } finally {
      await killed(sim.child);
    }
  }, 120_000);
});
