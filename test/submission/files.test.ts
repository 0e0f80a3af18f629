// The pieces of a submission the checker reads byte by byte: the truncated
// accuracy log and its hash (as truncate_accuracy_log.py leaves them),
// accuracy.txt against the checker's ACC_PATTERN regexes (restated here as
// facts of checker v6.1), compliance logs, benchmark names; and an
// Interactive run filed and judged as v6.1 does.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { runBenchmark } from '../../lib/run/run-benchmark.js';
import { readInputs } from '../../lib/submission/inputs.js';
import { buildSubmission } from '../../lib/submission/layout.js';
import { precheckSubmission } from '../../lib/submission/precheck.js';
import { checkerBenchmark } from '../../lib/submission/rules.js';
import { accuracyTxt, truncatedAccuracyLog } from '../../lib/submission/truncate.js';
import { tempDir } from '../accuracy/helpers.js';
import { referencedDataset } from './helpers.js';

/** An accuracy log of `n` entries (well over 4096 bytes for n >= 40). */
function bigLog(path: string, n: number): string {
  const rows = Array.from(
    { length: n },
    (_, i) => `{ "seq_id" : ${i}, "qsl_idx" : ${i}, "data" : "${'0A000000'.repeat(16)}", "token_count" : 16 }`,
  );
  writeFileSync(path, `[\n${rows.join(',\n')}\n]\n`);
  return path;
}

describe('truncation and accuracy.txt', () => {
  it('keeps the first and last 4096 characters around "\\n\\n...\\n\\n"; small logs stay whole', () => {
    const dir = tempDir();
    const path = bigLog(join(dir, 'log.json'), 200);
    const text = readFileSync(path, 'latin1');
    expect(text.length).toBeGreaterThan(8192);
    const cut = truncatedAccuracyLog(path);
    expect(cut).toBe(`${text.slice(0, 4096)}\n\n...\n\n${text.slice(-4096)}`);
    expect(cut.length).toBe(8199);
    const small = bigLog(join(dir, 'small.json'), 3);
    expect(truncatedAccuracyLog(small)).toBe(readFileSync(small, 'latin1'));
  });

  it('accuracy.txt lists per-dataset counts where the scoring had them, without a line the patterns could misread', () => {
    const txt = accuracyTxt({ exact_match: 81.5, TOKENS_PER_SAMPLE: 3000 }, 'ab12', {
      livecodebench: { samples: 10, passed: 7, failed: 3, timedOut: 1, empty: 1, unscored: 0 },
      math500: { samples: 20, passed: 18, failed: 2, timedOut: 0, empty: 0, unscored: 0 },
    });
    expect(txt).toContain('  livecodebench: 10, 7, 3 (1, 1), 0\n');
    expect(txt).toContain('  math500: 20, 18, 2 (0, 0), 0\n');
    // The checker's exact-match pattern still finds the one figure, and the hash stays last.
    const hits = txt.split('\n').filter((l) => /.*'exact_match':\s([\d.]+).*/.test(l));
    expect(hits).toHaveLength(1);
    expect(txt.trimEnd().split('\n').at(-1)).toMatch(/^hash=ab12$/);
  });

  it("accuracy.txt is read by the checker's patterns: every metric, and the hash line", () => {
    const txt = accuracyTxt(
      { rouge1: 38.8123, rouge2: 15.9, rougeL: 24.5, rougeLsum: 35.8, gen_len: 8167644, gen_num: 13368, tiny: 1e-7 },
      'ab12',
    );
    // The v6.1 checker's ACC_PATTERN entries for these metrics, and its hash pattern.
    const patterns: Record<string, RegExp> = {
      ROUGE1: /.*'rouge1':\s+'?([\d.]+)'?.*/,
      ROUGE2: /.*'rouge2':\s+'?([\d.]+)'?.*/,
      ROUGEL: /.*'rougeL':\s+'?([\d.]+)'?.*/,
      ROUGELSUM: /.*'rougeLsum':\s+'?([\d.]+)'?.*/,
      GEN_LEN: /.*'gen_len':\s([\d.]+).*/,
    };
    const lines = txt.split('\n');
    const found: Record<string, number> = {};
    for (const [name, re] of Object.entries(patterns))
      for (const l of lines) {
        const m = re.exec(l);
        if (m) found[name] = Number(m[1]);
      }
    expect(found).toEqual({ ROUGE1: 38.8123, ROUGE2: 15.9, ROUGEL: 24.5, ROUGELSUM: 35.8, GEN_LEN: 8167644 });
    expect(lines.filter((l) => /^hash=([\w\d]+)$/.test(l))).toEqual(['hash=ab12']);
    expect(txt).toContain("'tiny': 0.0000001");
  });

  it('benchmark names and scenario folders as v6.1 files them', () => {
    expect(checkerBenchmark('llama3_1-8b', 'Offline')).toEqual({ benchmark: 'llama3.1-8b', scenario: 'Offline' });
    expect(checkerBenchmark('llama3_1-8b-interactive', 'Server')).toEqual({
      benchmark: 'llama3.1-8b',
      scenario: 'Interactive',
    });
    expect(checkerBenchmark('deepseek-r1-interactive', 'Server')).toEqual({
      benchmark: 'deepseek-r1',
      scenario: 'Interactive',
    });
    expect(checkerBenchmark('llama2-70b', 'Server').benchmark).toBe('llama2-70b-99.9');
  });
});

describe('an Interactive run with compliance folders', () => {
  it('is filed under Interactive; TEST01 and TEST09 logs are truncated with their hash; the pre-check names the limits', async () => {
    const dir = tempDir();
    const runDir = join(dir, 'interactive');
    await runBenchmark({
      scenario: 'Server',
      benchmark: 'llama3_1-8b-interactive',
      dataset: referencedDataset(8),
      settings: { minDurationMs: 200, minQueryCount: 16, serverTargetQps: 80 },
      workers: 0,
      outdir: runDir,
      log: () => {},
    });
    // Compliance folders as given (TEST01 and TEST09 are not llama3.1-8b's tests, but their files are handled alike).
    const comp = join(dir, 'compliance');
    for (const t of ['TEST01', 'TEST09']) mkdirSync(join(comp, t, 'accuracy'), { recursive: true });
    const log01 = bigLog(join(comp, 'TEST01', 'accuracy', 'mlperf_log_accuracy.json'), 100);
    const log09 = bigLog(join(comp, 'TEST09', 'accuracy', 'mlperf_log_accuracy.json'), 120);
    writeFileSync(join(comp, 'TEST01', 'accuracy', 'accuracy.txt'), "{'accuracy': 1}\n");
    writeFileSync(join(comp, 'TEST01', 'verify_accuracy.txt'), 'TEST PASS\n');
    const sha = (p: string) => createHash('sha256').update(readFileSync(p)).digest('hex');
    const [sha01, sha09] = [sha(log01), sha(log09)];

    const out = join(dir, 'tree');
    buildSubmission({
      org: 'Acme',
      system: 'sim1',
      division: 'closed',
      systemType: 'datacenter',
      out,
      inputs: readInputs([runDir, comp]),
      tool: 'test',
    });
    const scen = join(out, 'closed/Acme/results/sim1/llama3.1-8b/Interactive');
    expect(readFileSync(join(scen, 'TEST01/accuracy/accuracy.txt'), 'utf8')).toBe(`{'accuracy': 1}\n\nhash=${sha01}\n`);
    expect(readFileSync(join(scen, 'TEST09/accuracy/accuracy.txt'), 'utf8')).toBe(`hash=${sha09}\n`);
    expect(statSync(join(scen, 'TEST01/accuracy/mlperf_log_accuracy.json')).size).toBe(8199);
    expect(readFileSync(join(scen, 'user.conf'), 'utf8')).toContain(
      'llama3_1-8b-interactive.Server.min_duration = 200',
    );

    const problems = precheckSubmission(out).problems.map((p) => `${p.file}: ${p.message}`);
    const rel = 'closed/Acme/results/sim1/llama3.1-8b/Interactive';
    expect(problems).toContain(
      'closed/Acme/results/sim1/llama3.1-8b: the closed division needs these scenarios too: Offline',
    );
    expect(problems).toContain(
      `${rel}/performance/run_1/mlperf_log_detail.txt: min_duration is 200 ms; the checker needs >= 600000 ms (600 s)`,
    );
    // 16 queries are far too few for early stopping on p99 token latencies.
    expect(
      problems.some((p) =>
        p.startsWith(`${rel}/performance/run_1/mlperf_log_detail.txt: early stopping condition not met`),
      ),
    ).toBe(true);
    // No accuracy run was given: every accuracy file is named.
    expect(problems).toContain(`${rel}/accuracy/accuracy.txt: missing (a required accuracy file)`);
    // TEST06 is llama3.1-8b's test, and it was not given.
    expect(problems).toContain(`${rel}/TEST06: compliance test TEST06 missing`);
    expect(problems.some((p) => /TTFT|TPOT/.test(p))).toBe(false);
  }, 60_000);
});
