// Trace replay (--trace): the reader and its errors, the lint, prompts whose
// blocks follow the hash ids, the schedule, the engine issuing sample i at
// the trace's time i (named as not an MLPerf scenario), and a Mooncake trace
// replayed against the simulator: issue-time error reported, the trace's
// prefix sharing seen in the simulator's records and its prefix-cache hits.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { afterAll, describe, expect, it } from 'vitest';

import { formatTracePlan, lintTrace, planTrace } from '../lib/dataset/trace-plan.js';
import { readTrace, traceDataset, tracePromptTokens, traceSchedule } from '../lib/dataset/trace.js';
import { DatasetError } from '../lib/dataset/types.js';
import { runBenchmark, startSimulator } from '../lib/index.js';
import type { SimRequestRecord } from '../lib/sim/types.js';
import {
  cleanupTempDirs,
  detailValue,
  inlineSut,
  makeTempDir,
  nullQsl,
  readDetail,
  readSummary,
  readTrace as readTraceLog,
  runTest,
} from './helpers.js';

afterAll(() => cleanupTempDirs());

function writeFile(name: string, text: string): string {
  const path = join(makeTempDir('lg-trace-'), name);
  writeFileSync(path, text);
  return path;
}

const jsonl = (rows: object[]): string => `${rows.map((r) => JSON.stringify(r)).join('\n')}\n`;

describe('reading a trace', () => {
  it('reads Mooncake JSONL, keeps the hash ids, and names the format', async () => {
    const path = writeFile(
      'm.jsonl',
      jsonl([
        { timestamp: 0, input_length: 600, output_length: 5, hash_ids: [1, 2] },
        { timestamp: 27.5, input_length: 100, output_length: 3, hash_ids: [1] },
      ]),
    );
    const t = await readTrace(path);
    expect(t.format).toBe('mooncake');
    expect(t.rows.map((r) => [r.timestampMs, r.inputLength, r.outputLength, r.hashIds, r.line])).toEqual([
      [0, 600, 5, [1, 2], 1],
      [27.5, 100, 3, [1], 2],
    ]);
  });

  it('reads a CSV with a header, hash ids in one quoted field', async () => {
    const path = writeFile('t.csv', 'timestamp,input_length,output_length,hash_ids\n10,512,4,"7 8"\n20,30,2,\n');
    const t = await readTrace(path);
    expect(t.format).toBe('csv');
    expect(t.rows.map((r) => r.hashIds)).toEqual([[7, 8], null]);
    expect(t.rows.map((r) => r.line)).toEqual([2, 3]);
  });

  it('names the file and line of a malformed row', async () => {
    const path = writeFile(
      'bad.jsonl',
      jsonl([
        { timestamp: 0, input_length: 10, output_length: 1 },
        { timestamp: 1, input_length: -3, output_length: 1 },
      ]),
    );
    await expect(readTrace(path)).rejects.toThrow(DatasetError);
    await expect(readTrace(path)).rejects.toThrow(`${path}: line 2: input_length must be an integer >= 1, got -3`);
    const csv = writeFile('bad.csv', 'time,input_length,output_length\n1,2,3\n');
    await expect(readTrace(csv)).rejects.toThrow(/line 1: the CSV header needs a timestamp column/);
    await expect(readTrace(join(makeTempDir(), 'missing.jsonl'))).rejects.toThrow(/cannot read the trace/);
  });
});

describe('the lint and the plan', () => {
  it('warns of unsorted and duplicate timestamps, rows over the context and hash ids that do not fit', async () => {
    const path = writeFile(
      'lint.jsonl',
      jsonl([
        { timestamp: 100, input_length: 1000, output_length: 10, hash_ids: [1, 2] },
        { timestamp: 50, input_length: 1000, output_length: 10, hash_ids: [1] },
        { timestamp: 100, input_length: 8000, output_length: 500, hash_ids: [1, 2, 3] },
      ]),
    );
    const t = await readTrace(path);
    // Replayed in timestamp order; equal times in file order.
    expect(t.rows.map((r) => r.line)).toEqual([2, 1, 3]);
    const lint = lintTrace(t, { maxModelLen: 8192 });
    expect(lint.map((w) => [w.kind, w.count, w.lines])).toEqual([
      ['unsorted', 1, [2]],
      ['duplicate-timestamps', 1, [3]],
      ['over-context', 1, [3]],
      ['hash-ids-mismatch', 2, [2, 3]],
    ]);
    expect(lintTrace(t).map((w) => w.kind)).not.toContain('over-context');
  });

  it('warns when the timestamps look like seconds (a rate over 1000 per second)', async () => {
    const rows = Array.from({ length: 20 }, (_, i) => ({ timestamp: 0.5 * i, input_length: 8, output_length: 2 }));
    const fast = lintTrace(await readTrace(writeFile('secs.jsonl', jsonl(rows)))).map((w) => w.kind);
    expect(fast).toEqual(['seconds-not-ms']);
    const slow = rows.map((r) => ({ ...r, timestamp: r.timestamp * 1000 }));
    expect(lintTrace(await readTrace(writeFile('ms.jsonl', jsonl(slow))))).toEqual([]);
  });

  it('works out the rate, the tokens and the prefix a cache can reuse', async () => {
    const path = writeFile(
      'plan.jsonl',
      jsonl([
        { timestamp: 1000, input_length: 1100, output_length: 10, hash_ids: [1, 2, 3] },
        { timestamp: 1500, input_length: 1024, output_length: 20, hash_ids: [1, 2] },
        { timestamp: 2000, input_length: 600, output_length: 30, hash_ids: [9, 2] },
      ]),
    );
    const p = planTrace(await readTrace(path), { speed: 2, windows: 2 });
    expect(p.requests).toBe(3);
    expect(p.spanMs).toBe(500);
    expect(p.meanRate).toBe(4);
    expect(p.rate.map((w) => w.requests)).toEqual([1, 2]);
    expect(p.tokens).toMatchObject({ input: 2724, output: 60, inputMax: 1100, outputMax: 30 });
    // Row 2 finds both of its full blocks (1, 2); row 3 starts with 9, so block 2 after it is another prefix.
    expect(p.prefix).toMatchObject({ uniqueBlocks: 4, blockRefs: 7, reusableTokens: 1024, rowsReusing: 1 });
    expect(p.lint).toEqual([]);
    const text = formatTracePlan(p);
    expect(text).toMatch(/3 requests over 0\.500 s at speed 2, mean 4\.00 requests\/s/);
    expect(text).toMatch(/1024 input tokens \(37\.6%\)/);
    expect(text).toMatch(/lint: no problems found/);
  });
});

describe('prompts and schedule', () => {
  it('gives equal blocks for equal hash ids and exact lengths', async () => {
    const path = writeFile(
      'p.jsonl',
      jsonl([
        { timestamp: 0, input_length: 1100, output_length: 7, hash_ids: [5, 6, 7] },
        { timestamp: 1, input_length: 700, output_length: 9, hash_ids: [5, 8] },
        { timestamp: 2, input_length: 300, output_length: 9, hash_ids: [6] },
        { timestamp: 3, input_length: 600, output_length: 9 },
      ]),
    );
    const t = await readTrace(path);
    const a = tracePromptTokens(t, 0);
    const b = tracePromptTokens(t, 1);
    const c = tracePromptTokens(t, 2);
    const d = tracePromptTokens(t, 3);
    expect([a.length, b.length, c.length, d.length]).toEqual([1100, 700, 300, 600]);
    expect(Array.from(b.subarray(0, 512))).toEqual(Array.from(a.subarray(0, 512)));
    expect(Array.from(b.subarray(512))).not.toEqual(Array.from(a.subarray(512, 700)));
    // A partial block is the start of its id's block.
    expect(Array.from(c)).toEqual(Array.from(a.subarray(512, 812)));
    expect(Array.from(d.subarray(0, 512))).not.toEqual(Array.from(a.subarray(0, 512)));
    for (const x of [a, b, c, d]) for (const id of x) expect(id >= 1000 && id < 31000).toBe(true);
    const ds = traceDataset(t);
    expect(ds.size).toBe(4);
    expect(ds.prompt(1)).toMatchObject({ maxTokens: 9, minTokens: 9, ignoreEos: true });
  });

  it('schedules each row from the first one, scaled by the speed', async () => {
    const path = writeFile(
      's.jsonl',
      jsonl([
        { timestamp: 5000, input_length: 1, output_length: 1 },
        { timestamp: 5000.5, input_length: 1, output_length: 1 },
        { timestamp: 7000, input_length: 1, output_length: 1 },
      ]),
    );
    const t = await readTrace(path);
    expect(Array.from(traceSchedule(t))).toEqual([0, 500_000, 2_000_000_000]);
    expect(Array.from(traceSchedule(t, 4))).toEqual([0, 125_000, 500_000_000]);
    expect(() => traceSchedule(t, 0)).toThrow(/speed must be a number > 0/);
  });
});

describe('the engine replays a schedule', () => {
  it('issues sample i at offset i, once each, named as not an MLPerf scenario', async () => {
    const schedule = [0, 20e6, 20e6, 60e6, 100e6, 150e6];
    const sut = inlineSut();
    const { result, outdir } = await runTest(
      sut,
      nullQsl(8),
      { scenario: 'Server', serverTargetQps: 1, minDurationMs: 60_000, minQueryCount: 1000 },
      {},
      { schedule },
    );
    expect(sut.issued.map((s) => s.index)).toEqual([0, 1, 2, 3, 4, 5]);
    // The trace is the whole test: its span is the minimum duration, its rows the minimum count.
    expect(result.valid).not.toBeNull();
    expect(result.criteria?.minDurationMet).toBe(true);
    expect(result.criteria?.minQueriesMet).toBe(true);
    const detail = readDetail(join(outdir, 'mlperf_log_detail.txt'));
    expect(detailValue(detail, 'requested_issue_policy')).toBe(
      'trace replay, 6 requests over 150 ms (not an MLPerf scenario)',
    );
    expect(detailValue(detail, 'requested_trace_request_count')).toBe(6);
    expect(detailValue(detail, 'effective_min_query_count')).toBe(6);
    expect(readSummary(join(outdir, 'mlperf_log_summary.txt'))).toContain(
      'Issue policy : trace replay, 6 requests over 150 ms (not an MLPerf scenario)',
    );
    // The trace log's scheduled times are the schedule's.
    const events = readTraceLog(join(outdir, 'mlperf_log_trace.json')).traceEvents.filter(
      (e) => e.name === 'Sample' && e.ph === 'b' && e.args,
    );
    expect(events.length).toBe(6);
  });

  it('refuses a schedule outside Server, unsorted, or longer than the QSL', async () => {
    const sut = inlineSut();
    await expect(runTest(sut, nullQsl(4), { scenario: 'Offline' }, {}, { schedule: [0] })).rejects.toThrow(
      /Server scenario only/,
    );
    await expect(runTest(sut, nullQsl(4), { scenario: 'Server' }, {}, { schedule: [0, 5, 3] })).rejects.toThrow(
      /schedule\[2\] must be an integer number of ns >= the one before \(5\)/,
    );
    await expect(runTest(sut, nullQsl(2), { scenario: 'Server' }, {}, { schedule: [0, 1, 2] })).rejects.toThrow(
      /has 3 requests; the QSL has 2 performance samples/,
    );
    await expect(
      runTest(sut, nullQsl(4), { scenario: 'Server', closedLoopConcurrency: 2 }, {}, { schedule: [0] }),
    ).rejects.toThrow(/cannot be combined with closed loop, concurrency 2/);
  });
});

describe('a Mooncake trace against the simulator', () => {
  it('replays at the trace times with the issue error reported and the prefix sharing in the cache hits', async () => {
    // 40 requests at 20 per second; groups of rows share a 2- or 3-block system prompt.
    const rows: object[] = [];
    for (let i = 0; i < 40; i++) {
      const group = i % 3;
      const shared = group === 0 ? [100, 101] : group === 1 ? [200, 201, 202] : [];
      const own = [1000 + 2 * i, 1001 + 2 * i];
      const blocks = [...shared, ...own];
      const input = 512 * (blocks.length - 1) + 100 + (i % 7);
      rows.push({ timestamp: 1_700_000 + i * 50, input_length: input, output_length: 4 + (i % 5), hash_ids: blocks });
    }
    const path = writeFile('mooncake.jsonl', jsonl(rows));
    const sim = await startSimulator({
      model: 'sim-llm-8b',
      maxModelLen: 16384,
      decodeStepNs: 2_000_000,
      prefillNsPerToken: 1000,
      precisePacing: false,
      prefixCache: true,
      prefixCacheBlockTokens: 512,
    });
    try {
      const outdir = join(makeTempDir('lg-trace-run-'), 'out');
      const record = await runBenchmark({
        scenario: 'Server',
        endpoints: [sim.url],
        trace: { path },
        workers: 1,
        outdir,
        log: () => undefined,
      });
      const trace = record.trace!;
      expect(trace.requests).toBe(40);
      expect(trace.issueErrorMs?.count).toBe(40);
      expect(Number.isFinite(trace.issueErrorMs?.p99)).toBe(true);
      expect(trace.sendErrorMs?.count).toBe(40);

      // The adapter's capability probe comes first: the test's requests are the last 40.
      const all = sim.records().filter((r: SimRequestRecord) => r.path === '/v1/completions');
      all.sort((a, b) => a.seq - b.seq);
      expect(all.length).toBeGreaterThanOrEqual(40);
      const recs = all.slice(-40);
      const prompts = recs.map((r) => (r.body as { prompt: number[] }).prompt);
      // Sent in the trace's order with its lengths and output bounds.
      expect(prompts.map((p) => p.length)).toEqual(rows.map((r) => (r as { input_length: number }).input_length));
      const body = recs[0].body as Record<string, unknown>;
      expect(body).toMatchObject({ max_tokens: 4, min_tokens: 4, ignore_eos: true });
      expect(recs.map((r) => r.outputTokens)).toEqual(rows.map((r) => (r as { output_length: number }).output_length));
      // Equal hash ids, equal tokens: rows 0 and 3 share two blocks, rows 1 and 4 three.
      expect(prompts[3].slice(0, 1024)).toEqual(prompts[0].slice(0, 1024));
      expect(prompts[4].slice(0, 1536)).toEqual(prompts[1].slice(0, 1536));
      expect(prompts[3].slice(1024, 1536)).not.toEqual(prompts[0].slice(1024, 1536));
      // The cache found what the plan says is reusable, row by row.
      const cached = recs.map((r) => r.cachedTokens ?? 0);
      const expected = rows.map((_, i): number => (i < 3 || i % 3 === 2 ? 0 : i % 3 === 0 ? 1024 : 1536));
      expect(cached).toEqual(expected);
      expect(trace.prefix.reusableTokens).toBe(expected.reduce((a, b) => a + b, 0));
      const metrics = await (await fetch(`${sim.url}/metrics`)).text();
      const hits = /^vllm:prefix_cache_hits_total\{[^}]*\} (\S+)$/m.exec(metrics);
      expect(Number(hits?.[1])).toBe(trace.prefix.reusableTokens);

      // Named in the results as not an MLPerf scenario, with the error figures.
      const results = JSON.parse(readFileSync(join(outdir, 'results.json'), 'utf8'));
      expect(results.benchmark.issuePolicy).toBe('trace replay, 40 requests over 1950 ms');
      expect(results.trace.issueErrorMs.count).toBe(40);
      expect(readFileSync(join(outdir, 'mlperf_log_summary.txt'), 'utf8')).toContain(
        'Issue policy : trace replay, 40 requests over 1950 ms (not an MLPerf scenario)',
      );
    } finally {
      await sim.close();
    }
  }, 60_000);

  it("lints the trace against the server's own max_model_len when none was given", async () => {
    // 10 rows at 20 per second; rows 3 and 7 ask for more than the server's 1024-token context.
    const rows = Array.from({ length: 10 }, (_, i) => ({
      timestamp: i * 50,
      input_length: i === 3 || i === 7 ? 1100 : 200,
      output_length: 4,
    }));
    const path = writeFile('over-context.jsonl', jsonl(rows));
    const sim = await startSimulator({
      model: 'sim-llm-8b',
      maxModelLen: 1024,
      decodeStepNs: 1_000_000,
      precisePacing: false,
    });
    try {
      const outdir = join(makeTempDir('lg-trace-ctx-'), 'out');
      const lines: string[] = [];
      await runBenchmark({
        scenario: 'Server',
        endpoints: [sim.url],
        trace: { path },
        workers: 1,
        outdir,
        log: (m) => lines.push(m),
      });
      const warning = lines.filter((l) => l.includes("more than the model's 1024-token context"));
      expect(warning).toHaveLength(1);
      expect(warning[0]).toMatch(
        /^warning: trace: 2 rows ask .* lines 4, 8\).* \(max_model_len 1024 of http:\/\/127\.0\.0\.1:\d+\)$/,
      );
      const results = JSON.parse(readFileSync(join(outdir, 'results.json'), 'utf8'));
      expect(results.trace.lint).toContainEqual(
        expect.objectContaining({ kind: 'over-context', count: 2, lines: [4, 8] }),
      );
      // The server refused them: failed samples, never a clean run.
      expect(results.errors.failedSamples).toBe(2);
    } finally {
      await sim.close();
    }
  }, 60_000);
});
