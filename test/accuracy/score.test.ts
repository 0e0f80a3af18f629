// scoreAccuracy and `loadgen accuracy` end to end: on the official LoadGen's
// accuracy logs and on logs of runs against the endpoint simulator, with
// references and tokenizers chosen so every expected figure is worked out by
// hand below.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';

import { registerAccuracyCommand, runAccuracyCommand } from '../../lib/cli/accuracy-command.js';
import { formatAccuracyReport, scoreAccuracy, type AccuracyReport } from '../../lib/accuracy/score.js';
import { ACCURACY_TARGETS, accuracyTarget, targetValue } from '../../lib/accuracy/targets.js';
import { loadTokenizer } from '../../lib/accuracy/tokenizer.js';
import { createLlmSut, TestScenario } from '../../lib/index.js';
import { HAVE_OFFICIAL_LOGS, logPaths, officialDir } from '../helpers.js';
import { accuracyRun, expectedIds, idDataset, sim, track } from '../sut/helpers.js';
import { tempDir, wordLevelTokenizer, writeLog } from './helpers.js';

const range = (a: number, b: number): number[] => Array.from({ length: b - a }, (_, i) => a + i);
const pyLen = (s: string): number => [...s].length;

function capture() {
  let out = '';
  let err = '';
  return {
    io: { stdout: { write: (s: string) => (out += s) }, stderr: { write: (s: string) => (err += s) } },
    get out() {
      return out;
    },
    get err() {
      return err;
    },
  };
}

describe('targets table', () => {
  it('holds the submission checker values and resolves LoadGen keys', () => {
    const l = accuracyTarget('llama3_1-8b')!;
    expect(l.name).toBe('llama3.1-8b');
    expect(l.targets.map((t) => [t.metric, targetValue(t)])).toEqual([
      ['rouge1', 38.7792 * 0.99],
      ['rouge2', 15.9075 * 0.99],
      ['rougeL', 24.4957 * 0.99],
      ['rougeLsum', 35.793 * 0.99],
      ['gen_len', 8167644 * 0.9],
    ]);
    expect(targetValue(l.upperLimits[0]!)).toBe(8167644 * 1.1);
    expect(accuracyTarget('llama3.1-8b-interactive')!.name).toBe('llama3.1-8b');
    expect(accuracyTarget('llama2-70b')!.name).toBe('llama2-70b-99');
    expect(accuracyTarget('llama2-70b-interactive-99.9')!.targets[0]!.fraction).toBe(0.999);
    expect(accuracyTarget('deepseek-r1')!.targets.map((t) => targetValue(t))).toEqual([
      0.99 * 81.3582,
      0.9 * 3886.2274,
    ]);
    expect(accuracyTarget('resnet')).toBeUndefined();
    expect(Object.keys(ACCURACY_TARGETS).sort()).toEqual(
      [
        'deepseek-r1',
        'gpt-oss-120b',
        'llama2-70b-99',
        'llama2-70b-99.9',
        'llama3.1-8b',
        'llama3.1-8b-edge',
        'mixtral-8x7b',
      ].sort(),
    );
  });
});

describe.skipIf(!HAVE_OFFICIAL_LOGS)('scoring the official LoadGen accuracy logs', () => {
  // The official null SUT answers sample i with the bytes of int64 i (int32: i, 0).
  // Tokenizer: id k -> "w<k>" for k < 1024. References: "w<i>".
  it('int64: every output equals its reference (ROUGE 100); int32: [i, 0] -> "w<i> w0" (worked by hand)', async () => {
    const dir = tempDir();
    const tokenizer = wordLevelTokenizer(dir, range(0, 1024), (k) => `w${k}`);
    const references = range(0, 1024).map((i) => `w${i}`);
    const log = join(officialDir('Offline_AccuracyOnly'), 'mlperf_log_accuracy.json');

    const r64 = await scoreAccuracy({ log, dataset: { references }, tokenizer, dtype: 'int64' });
    expect(r64.metrics).toEqual({ rouge1: 100, rouge2: 0, rougeL: 100, rougeLsum: 100, gen_len: 4010, gen_num: 1024 });
    // One-word texts have no bigram: rouge2 is 0 (rouge_score divides 0 by max(0, 1)).
    // gen_len = 10*2 + 90*3 + 900*4 + 24*5 characters.

    // int32: prediction "w<i> w0" vs reference "w<i>": rouge1 P 1/2 R 1 -> F 2/3;
    // no shared bigram -> 0; LCS 1 -> 2/3; gen_len grows by 3 characters per sample.
    const r32 = await scoreAccuracy({ log, dataset: { references }, tokenizer, scenario: 'Offline' });
    expect(r32.metrics).toEqual({
      rouge1: 66.6667,
      rouge2: 0,
      rougeL: 66.6667,
      rougeLsum: 66.6667,
      gen_len: 4010 + 3 * 1024,
      gen_num: 1024,
    });
    expect(r32.log).toMatchObject({
      entries: 1024,
      uniqueSamples: 1024,
      duplicates: 0,
      truncated: false,
      dtype: 'int32',
    });
    // llama3.1-8b targets: ROUGE passes, gen_len is far below 0.9 x 8,167,644.
    expect(r32.verdicts.map((v) => [v.metric, v.status])).toEqual([
      ['rouge1', 'PASS'],
      ['rouge2', 'FAIL'],
      ['rougeL', 'PASS'],
      ['rougeLsum', 'PASS'],
      ['gen_len', 'FAIL'],
    ]);
    expect(r32.pass).toBe(false);
    expect(r32.checks.text).toBe(
      'First token check pass: Skipped\nEOS check pass: True\nSample length check pass: False\nTEST06 verification failed\n',
    );
    expect(r32.notes.join('\n')).toMatch(/1024 distinct samples in the log; a full llama3.1-8b accuracy run has 13368/);
  });

  it('the Server log scores the same, and its first tokens match', async () => {
    const dir = tempDir();
    const tokenizer = wordLevelTokenizer(dir, range(0, 1024), (k) => `w${k}`);
    const r = await scoreAccuracy({
      log: join(officialDir('Server_AccuracyOnly'), 'mlperf_log_accuracy.json'),
      dataset: { references: range(0, 1024).map((i) => `w${i}`) },
      tokenizer,
      dtype: 'int64',
    });
    expect(r.metrics.rouge1).toBe(100);
    expect(r.checks.firstToken.pass).toBe(true);
  });
});

describe('scoring runs against the endpoint simulator', () => {
  // The simulator answers prompt p with ids 1000 + ((hash(p) + 7*pos) % 30000);
  // the tokenizer maps id k to "t<k>". Even samples get their exact output as
  // reference, odd ones the first 4 output words then 4 unrelated words.
  // Per odd sample (8 words each side): rouge1 4/8 -> F 0.5; bigrams 3 shared of
  // 7 -> 3/7; LCS 4 -> 0.5; one sentence each -> rougeLsum 0.5.
  // Means over 12 + 12 samples: rouge1 = rougeL = rougeLsum = 75, rouge2 = (1 + 3/7)/2 = 71.4286.
  it('llama3.1-8b scoring: ROUGE as worked out, gen_len FAIL, TEST06 checks pass, CLI exit 1 and accuracy.json', async () => {
    const n = 24;
    const dir = tempDir();
    const tokenizer = wordLevelTokenizer(dir, range(1000, 31000), (k) => `t${k}`, { 2: '</s>' });
    const s = await sim({ decodeStepNs: 20_000 });
    const llm = track(
      await createLlmSut({ endpoints: [s.url], dataset: idDataset(n, 8), workers: 0, onWarning: () => {} }),
    );
    const { outdir } = await accuracyRun(llm, TestScenario.Server);
    const log = logPaths(outdir).accuracy;

    const outputs = range(0, n).map((i) => expectedIds([1, 100 + i, 7], 8).map((k) => `t${k}`));
    const references = outputs.map((w, i) =>
      i % 2 === 0 ? w.join(' ') : [...w.slice(0, 4), 'alpha', 'beta', 'gamma', 'delta'].join(' '),
    );
    const refFile = join(dir, 'refs.jsonl');
    writeFileSync(
      refFile,
      references.map((r, i) => JSON.stringify({ text_input: `prompt ${i}`, output: r })).join('\n') + '\n',
    );

    const r = await scoreAccuracy({ log, dataset: refFile, tokenizer, benchmark: 'llama3_1-8b', keepSamples: true });
    const genLen = outputs.reduce((a, w) => a + pyLen(w.join(' ')), 0);
    expect(r.metrics).toEqual({ rouge1: 75, rouge2: 71.4286, rougeL: 75, rougeLsum: 75, gen_len: genLen, gen_num: n });
    expect(r.samples!.find((x) => x.qslIdx === 1)!.scores).toEqual({
      rouge1: 0.5,
      rouge2: 3 / 7,
      rougeL: 0.5,
      rougeLsum: 0.5,
    });
    expect(r.verdicts.find((v) => v.metric === 'gen_len')!.status).toBe('FAIL');
    expect(r.pass).toBe(false);
    expect(r.checks.pass).toBe(true);
    expect(r.checks.firstToken.checked).toBe(true);

    // The command: same figures, exit code 1, accuracy.json written.
    const out = join(dir, 'accuracy.json');
    const c = capture();
    const code = await runAccuracyCommand(
      { log, dataset: refFile, tokenizer, benchmark: 'llama3_1-8b', output: out },
      c.io,
    );
    expect(code).toBe(1);
    expect(c.err).toBe('');
    expect(c.out).toMatch(/'rouge1': 75, 'rouge2': 71\.4286, 'rougeL': 75, 'rougeLsum': 75/);
    expect(c.out).toMatch(/gen_len .* FAIL/);
    expect(c.out).toMatch(/Verdict: FAIL/);
    expect(c.out).toMatch(/TEST06 verification complete/);
    const saved = JSON.parse(readFileSync(out, 'utf8')) as AccuracyReport;
    expect(saved.metrics.rouge2).toBe(71.4286);
    expect(saved.pass).toBe(false);
  });

  // llama2-70b: 8 samples of 294 tokens whose references are the outputs
  // themselves: ROUGE 100, tokens_per_sample 294 (in [0.9, 1.1] x 294.45): PASS.
  it('llama2-70b scoring: every metric PASS, exit 0 through the registered command', async () => {
    const n = 8;
    const dir = tempDir();
    const tokenizer = wordLevelTokenizer(dir, range(1000, 31000), (k) => `t${k}`, { 2: '</s>' });
    const s = await sim({ decodeStepNs: 2_000 });
    const llm = track(
      await createLlmSut({ endpoints: [s.url], dataset: idDataset(n, 294), workers: 0, onWarning: () => {} }),
    );
    const { outdir } = await accuracyRun(llm, TestScenario.Offline);
    const log = logPaths(outdir).accuracy;
    const references = range(0, n).map((i) =>
      expectedIds([1, 100 + i, 7], 294)
        .map((k) => `t${k}`)
        .join(' '),
    );
    const refFile = join(dir, 'refs.json');
    writeFileSync(refFile, JSON.stringify(references.map((r, i) => ({ input: `q${i}`, output: r }))));

    const r = await scoreAccuracy({
      log,
      dataset: refFile,
      tokenizer,
      benchmark: 'llama2-70b-99.9',
      scenario: 'Offline',
    });
    expect(r.metrics).toMatchObject({
      rouge1: 100,
      rouge2: 100,
      rougeL: 100,
      rougeLsum: 100,
      gen_num: n,
      gen_tok_len: 294 * n,
      tokens_per_sample: 294,
    });
    expect(r.verdicts.map((v) => v.status)).toEqual(['PASS', 'PASS', 'PASS', 'PASS']);
    expect(r.pass).toBe(true);

    const program = new Command().exitOverride();
    registerAccuracyCommand(program);
    const out = join(dir, 'acc.json');
    const origWrite = process.stdout.write.bind(process.stdout);
    let printed = '';
    process.stdout.write = ((chunk: string) => {
      printed += chunk;
      return true;
    }) as typeof process.stdout.write;
    try {
      await program.parseAsync([
        'node',
        'loadgen',
        'accuracy',
        '--log',
        log,
        '--dataset',
        refFile,
        '--tokenizer',
        tokenizer,
        '--benchmark',
        'llama2-70b-99.9',
        '--output',
        out,
      ]);
    } finally {
      process.stdout.write = origWrite;
    }
    expect(process.exitCode).toBe(0);
    process.exitCode = undefined;
    expect(printed).toMatch(/Verdict: PASS/);
    expect(JSON.parse(readFileSync(out, 'utf8')).pass).toBe(true);
  });
});

describe('mixtral, deepseek-r1 and gpt-oss scoring (answer extraction)', () => {
  async function bpe() {
    return loadTokenizer(join(import.meta.dirname, '../fixtures/accuracy/tokenizer/tokenizer.json'), {
      cleanUpTokenizationSpaces: false,
    });
  }
  async function encodeLog(dir: string, texts: string[]): Promise<string> {
    const { Tokenizer } = await import('@huggingface/tokenizers');
    const json = JSON.parse(
      readFileSync(join(import.meta.dirname, '../fixtures/accuracy/tokenizer/tokenizer.json'), 'utf8'),
    );
    const t = new Tokenizer(json, {});
    return writeLog(
      join(dir, 'log.json'),
      texts.map((s, i) => ({ seq: i, qsl: i, ids: t.encode(s, { add_special_tokens: false }).ids })),
    );
  }

  it('mixtral: OpenOrca ROUGE, GSM8K exact match, MBXP not scored (UNKNOWN), gen_num counts every entry', async () => {
    const dir = tempDir();
    const outputs = [
      'the cat sat on the mat.',
      'So 3 + 4 = 7. The answer is 7.\nQ: next',
      'It costs 1,234 dollars',
      'def f(): pass',
    ];
    const log = await encodeLog(dir, outputs);
    const r = await scoreAccuracy({
      log,
      tokenizer: await bpe(),
      benchmark: 'mixtral-8x7b',
      dataset: {
        references: ['the cat sat on the mat.', '7', '1234', 'assert f() is None'],
        categories: ['OpenOrca', 'GSM8K', 'GSM8K', 'MBXP'],
      },
    });
    expect(r.metrics).toMatchObject({ rouge1: 100, rouge2: 100, rougeL: 100, rougeLsum: 100, gsm8k: 100, gen_num: 4 });
    expect(r.metrics.gen_len).toBe('the cat sat on the mat.'.length);
    expect(r.verdicts.find((v) => v.metric === 'mbxp')!.status).toBe('UNKNOWN');
    expect(r.verdicts.find((v) => v.metric === 'gsm8k')!.status).toBe('PASS');
    expect(r.categories).toEqual({ OpenOrca: { samples: 1 }, GSM8K: { samples: 2, correct: 2 }, MBXP: { samples: 1 } });
  });

  it('deepseek-r1: GPQA letters, AIME integers, MATH-500 boxed answers; exact_match is the mean of 100/0', async () => {
    const dir = tempDir();
    const outputs = [
      'Thinking... The correct option is clear. ANSWER: C',
      'We get 33. Final: \\boxed{33}',
      'So the value is \\boxed{\\frac{1}{2}}.',
      'I think the answer is B.',
    ];
    const log = await encodeLog(dir, outputs);
    const r = await scoreAccuracy({
      log,
      tokenizer: await bpe(),
      benchmark: 'deepseek-r1',
      dataset: {
        references: ['C', '33', '0.5', 'B'],
        categories: ['gpqa_diamond', 'aime2024', 'math500', 'gpqa_diamond'],
      },
      keepSamples: true,
    });
    // The 4th has no "ANSWER:" pattern: GPQA extraction finds nothing (as the reference).
    expect(r.metrics.exact_match).toBe(75);
    expect(r.samples!.map((x) => x.extracted)).toEqual(['C', 33, '\\frac{1}{2}', null]);
    expect(r.verdicts[0]!.status).toBe('FAIL');
  });

  it('gpt-oss: weighted by dataset repeats, no de-duplication, special tokens kept', async () => {
    const dir = tempDir();
    const log = await encodeLog(dir, ['B', 'Answer: A', '\\boxed{12}', '\\boxed{13}']);
    const r = await scoreAccuracy({
      log,
      tokenizer: await bpe(),
      benchmark: 'gpt-oss-120b',
      dataset: { references: ['B', 'C', '12', '12'], categories: ['gpqa_diamond', 'gpqa_diamond', 'aime25', 'aime25'] },
    });
    // gpqa_diamond: 1 of 2 (repeats 5); aime25: 1 of 2 (repeats 8): (1/5 + 1/8) / (2/5 + 2/8) = 50%.
    expect(r.metrics.exact_match).toBe(50);
    expect(r.categories).toEqual({ gpqa_diamond: { samples: 2, correct: 1 }, aime25: { samples: 2, correct: 1 } });
  });
});

describe('loadgen accuracy: usage and input errors exit 2 with a message, no stack', () => {
  it('missing flags, bad values, unknown benchmark, missing files', async () => {
    const dir = tempDir();
    const tokenizer = wordLevelTokenizer(dir, range(0, 4), (k) => `w${k}`);
    const log = writeLog(join(dir, 'log.json'), [{ seq: 0, qsl: 0, ids: [1] }]);
    const refs = join(dir, 'refs.jsonl');
    writeFileSync(refs, '{"text_input":"q","output":"w1"}\n');
    const cases: Array<[Parameters<typeof runAccuracyCommand>[0], RegExp]> = [
      [{}, /missing --log, --dataset, --tokenizer/],
      [{ log, dataset: refs, tokenizer, dtype: 'int8' }, /--dtype: expected one of int32/],
      [{ log, dataset: refs, tokenizer, benchmark: 'resnet' }, /unknown benchmark 'resnet'/],
      [{ log: join(dir, 'nope.json'), dataset: refs, tokenizer }, /nope\.json: no such file/],
      [{ log, dataset: join(dir, 'nope.jsonl'), tokenizer }, /nope\.jsonl: no such file/],
      [{ log, dataset: refs, tokenizer: join(dir, 'nope') }, /no such file/],
      [{ log, dataset: refs, tokenizer, eosTokenId: 'x' }, /--eos-token-id/],
      [{ log, dataset: refs, tokenizer, cleanUpTokenizationSpaces: 'maybe' }, /true or false/],
      [{ log, dataset: refs, tokenizer, punkt: join(dir, 'no-punkt') }, /--punkt: .*punkt_tab language directory/],
    ];
    for (const [flags, re] of cases) {
      const c = capture();
      expect(await runAccuracyCommand({ output: join(dir, 'o.json'), ...flags }, c.io)).toBe(2);
      expect(c.err).toMatch(re);
      expect(c.err).not.toMatch(/\n\s+at /);
    }
    // A log entry beyond the dataset.
    const far = writeLog(join(dir, 'far.json'), [{ seq: 0, qsl: 5, ids: [1] }]);
    const c = capture();
    expect(await runAccuracyCommand({ log: far, dataset: refs, tokenizer, output: join(dir, 'o.json') }, c.io)).toBe(2);
    expect(c.err).toMatch(/qsl_idx beyond the dataset's 1 rows/);
  });

  it('formats a report a person can read', async () => {
    const dir = tempDir();
    const tokenizer = wordLevelTokenizer(dir, range(0, 4), (k) => `w${k}`);
    const log = writeLog(join(dir, 'log.json'), [{ seq: 0, qsl: 0, ids: [1, 2], first: [1] }]);
    const r = await scoreAccuracy({ log, dataset: { references: ['w1 w2'] }, tokenizer });
    const text = formatAccuracyReport(r);
    expect(text).toMatch(/^Accuracy: llama3\.1-8b \(1 samples scored, 1 log entries\)/);
    expect(text).toMatch(/rouge1 +100 +PASS +target >= 38\.391408 \(38\.7792 x 0\.99\)/);
    expect(text).toMatch(/First token check pass: True/);
  });
});

describe('dataset inputs and the registered command', () => {
  it('takes an open Dataset (as `loadgen run` has one) and a mixtral file with a category column', async () => {
    const dir = tempDir();
    const tokenizer = wordLevelTokenizer(dir, range(0, 8), (k) => `w${k}`);
    const log = writeLog(join(dir, 'log.json'), [
      { seq: 0, qsl: 0, ids: [1, 2] },
      { seq: 1, qsl: 1, ids: [5] },
      { seq: 2, qsl: 2, ids: [3] },
    ]);
    const ds = {
      name: 'mem',
      size: 3,
      prompt: (i: number) => ({ text: `q${i}`, reference: ['w1 w2', 'w5', 'w4'][i]! }),
    };
    const r = await scoreAccuracy({ log, dataset: ds, tokenizer });
    // Samples 0 and 1 match exactly, sample 2 shares nothing: ROUGE-1 = 2/3.
    expect(r.metrics.rouge1).toBe(66.6667);

    const file = join(dir, 'mixtral.jsonl');
    const rows = [
      { input: 'q0', dataset: 'OpenOrca', gt_output: 'w1 w2' },
      { input: 'q1', dataset: 'GSM8K', gt_output: '5' },
      { input: 'q2', dataset: 'MBXP', gt_output: 'tests' },
    ];
    writeFileSync(file, rows.map((x) => JSON.stringify(x)).join('\n') + '\n');
    const numTok = wordLevelTokenizer(tempDir(), range(0, 8), (k) => (k === 5 ? 'The answer is 5' : `w${k}`));
    const m = await scoreAccuracy({ log, dataset: file, tokenizer: numTok, benchmark: 'mixtral-8x7b' });
    expect(m.dataset).toMatchObject({ size: 3, referenceColumn: 'gt_output', categoryColumn: 'dataset' });
    expect(m.metrics).toMatchObject({ rouge1: 100, gsm8k: 100, gen_num: 3, gen_tok_len: 4, tokens_per_sample: 1.3 });
    expect(m.categories).toEqual({ OpenOrca: { samples: 1 }, GSM8K: { samples: 1, correct: 1 }, MBXP: { samples: 1 } });
  });

  it('`loadgen accuracy` through main(): usage errors exit 2', async () => {
    const { main } = await import('../../lib/cli/main.js');
    const errWrite = process.stderr.write.bind(process.stderr);
    let err = '';
    process.stderr.write = ((chunk: string) => {
      err += chunk;
      return true;
    }) as typeof process.stderr.write;
    try {
      await main(['node', 'loadgen', 'accuracy', '--bogus']);
      expect(process.exitCode).toBe(2);
      process.exitCode = undefined;
      await main(['node', 'loadgen', 'accuracy', '--log', 'x.json']);
      expect(process.exitCode).toBe(2);
    } finally {
      process.stderr.write = errWrite;
      process.exitCode = undefined;
    }
    expect(err).toMatch(/unknown option '--bogus'/);
    expect(err).toMatch(/missing --dataset, --tokenizer/);
  });
});
