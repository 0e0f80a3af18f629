// MBXP (mixtral-8x7b's code part) scored end to end: programs in Python,
// JavaScript (with lodash, as MBXP's tests need), TypeScript (tsc, then
// node) and C++ run against the row's test code in the sandbox; rows of a
// language the reference leaves out (java) and of one whose toolchain is
// missing (ruby, with a PATH that has none) are counted apart. The
// simulator answers each prompt with one token, which the word-level
// tokenizer maps to the answer text.
import { chmodSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { extractMbxp, findTool, findTsc, mbxpJob, parseMbxpId } from '../../lib/accuracy/code-mbxp.js';
import type { ProgramJob } from '../../lib/accuracy/code-types.js';
import { probeSandbox, runProgramJob } from '../../lib/accuracy/code-sandbox.js';
import { scoreAccuracy } from '../../lib/accuracy/score.js';
import { runBenchmark } from '../../lib/run/run-benchmark.js';
import { expectedIds } from '../sut/helpers.js';
import { tempDir, wordLevelTokenizer, writeLog } from './helpers.js';

const sandboxed = probeSandbox().sandboxed;
const haveTools = findTool('node') !== null && findTool('g++') !== null && findTsc() !== null;

const PY_TEST = 'def check(candidate):\n    assert candidate(1, 2) == 3\n    assert candidate(5, 5) == 10\n';
// MBXP's JavaScript tests compare with lodash (installed beside the reference's evaluator).
const JS_TEST = [
  '',
  'const _ = require("lodash")',
  'function compare(object1, object2){',
  '    return _.isEqual(object1, object2)',
  '}',
  'var x0 = add(1, 2);',
  'if(!compare(x0, 3)){',
  "    throw 'Error at 1th assert statement.'",
  '}',
  'var x1 = [add(5, 5)];',
  'if(!compare(x1, [10])){',
  "    throw 'Error at 2th assert statement.'",
  '}',
  '',
].join('\n');
// MBXP's TypeScript tests: Node's assert imported without Node's types (tsc reports it and still writes the JS).
const TS_TEST = [
  '',
  "import * as assert from 'assert'",
  '',
  'let actual_1 = add(1, 2);',
  'let expected_1 = 3;',
  'assert.deepEqual(actual_1, expected_1, "Exception --- test case 0 failed to pass");',
  '',
].join('\n');
const CPP_TEST = '\nint main() {\n  assert(add(1, 2) == 3);\n  assert(add(5, 5) == 10);\n  return 0;\n}\n';

type Row = { dataset: string; id: string; gt_output: string; answer: string };

const OTHER: Row[] = [
  { dataset: 'OpenOrca', id: 'orca_1', gt_output: 'The cat sat on the mat.', answer: 'The cat sat on the mat.' },
  { dataset: 'GSM8K', id: 'gsm_1', gt_output: '7', answer: 'So 3 + 4 = 7. The answer is 7.' },
];
const PY_RIGHT: Row = {
  dataset: 'MBXP',
  id: 'python_add',
  gt_output: PY_TEST,
  // Escaped underscores and the closing fence, as Mixtral writes them.
  answer: '\n  def add(a, b):\n    my\\_sum = a + b\n    return my\\_sum\n```\nMore text',
};
const PY_WRONG: Row = {
  dataset: 'MBXP',
  id: 'python_add',
  gt_output: PY_TEST,
  answer: 'def add(a, b):\n    return a - b\n',
};
const PY_LOOP: Row = {
  dataset: 'MBXP',
  id: 'python_add',
  gt_output: PY_TEST,
  answer: 'def add(a, b):\n    while True:\n        pass\n',
};
const JS_RIGHT: Row = {
  dataset: 'MBXP',
  id: 'javascript_add',
  gt_output: JS_TEST,
  answer: 'function add(a, b) {\n  return a + b;\n}\n```',
};
const JS_WRONG: Row = {
  dataset: 'MBXP',
  id: 'javascript_add',
  gt_output: JS_TEST,
  answer: 'function add(a, b) {\n  return a * b;\n}\n',
};
const JS_LOOP: Row = {
  dataset: 'MBXP',
  id: 'javascript_add',
  gt_output: JS_TEST,
  answer: 'function add(a, b) {\n  for (;;) {}\n}\n',
};
const CPP_RIGHT: Row = {
  dataset: 'MBXP',
  id: 'cpp_add',
  gt_output: CPP_TEST,
  answer: '#include <cassert>\nint add(int a, int b) {\n  return a + b;\n}\n',
};
const CPP_BROKEN: Row = {
  dataset: 'MBXP',
  id: 'cpp_add',
  gt_output: CPP_TEST,
  answer: 'int add(int a, int b) {\n  return a +;\n}\n',
};
const JAVA: Row = { dataset: 'MBXP', id: 'java_add', gt_output: '}', answer: 'class Main {' };
const TS_RIGHT: Row = {
  dataset: 'MBXP',
  id: 'typescript_add',
  gt_output: TS_TEST,
  answer: 'const add = function (a: number, b: number) : number  {\n  return a + b;\n}\n```',
};
const TS_WRONG: Row = {
  dataset: 'MBXP',
  id: 'typescript_add',
  gt_output: TS_TEST,
  answer: 'const add = function (a: number, b: number) : number  {\n  return a - b;\n}\n',
};
const RUBY: Row = { dataset: 'MBXP', id: 'ruby_add', gt_output: '', answer: 'def add(a, b)\n  a + b\nend\n' };

/** The dataset file (mixtral's columns) and a tokenizer mapping each row's simulator token to its answer. */
function setup(rows: Row[]) {
  const dir = tempDir();
  const prompt = (i: number) => [1, 300 + i, 11];
  const ids = rows.map((_, i) => expectedIds(prompt(i), 1)[0]!);
  expect(new Set(ids).size).toBe(rows.length);
  const word = new Map(ids.map((id, i) => [id, rows[i]!.answer]));
  const tokenizer = wordLevelTokenizer(dir, ids, (id) => word.get(id)!);
  const file = join(dir, 'mixtral.jsonl');
  writeFileSync(
    file,
    `${rows.map(({ answer: _a, ...r }, i) => JSON.stringify({ ...r, input: `q${i}`, tok_input: prompt(i) })).join('\n')}\n`,
  );
  return { dir, file, tokenizer, ids };
}

describe('MBXP rules', () => {
  it('splits the id at the first underscore and cleans the answer as the reference does', () => {
    expect(parseMbxpId('python_remove_odd')).toEqual({ lang: 'python', entryPoint: 'remove_odd' });
    expect(parseMbxpId('nounderscore')).toBeNull();
    expect(extractMbxp('  x = 1\n```\nrest', 'python')).toBe('x = 1\n');
    expect(extractMbxp('  a\\_b', 'javascript')).toBe('  a_b');
    expect(extractMbxp('```python\ncode\n```', 'python')).toBe('');
  });
});

describe.runIf(sandboxed && haveTools)('MBXP scored end to end', () => {
  it('an accuracy run of mixtral-8x7b: Python, JavaScript, TypeScript and C++ programs run, counts per language', async () => {
    const rows = [...OTHER, PY_RIGHT, PY_WRONG, JS_RIGHT, JS_WRONG, TS_RIGHT, TS_WRONG, CPP_RIGHT, CPP_BROKEN, JAVA];
    const { dir, file, tokenizer } = setup(rows);
    const record = await runBenchmark({
      scenario: 'Offline',
      mode: 'AccuracyOnly',
      benchmark: 'mixtral-8x7b',
      dataset: { path: file, maxTokens: 1 },
      // The reference asks for at least 2 tokens; the tokenizer maps one token to each answer.
      sampling: { minTokens: 1 },
      tokenizer,
      workers: 0,
      outdir: join(dir, 'out'),
      log: () => undefined,
    });
    const acc = record.accuracy;
    expect(acc && 'error' in acc ? acc.error : null).toBeNull();
    const report = JSON.parse(readFileSync(join(dir, 'out', 'accuracy.json'), 'utf8'));
    expect(report.datasets).toEqual({
      'MBXP/python': { samples: 2, passed: 1, failed: 1, timedOut: 0, empty: 0, unscored: 0 },
      'MBXP/javascript': { samples: 2, passed: 1, failed: 1, timedOut: 0, empty: 0, unscored: 0 },
      'MBXP/typescript': { samples: 2, passed: 1, failed: 1, timedOut: 0, empty: 0, unscored: 0 },
      'MBXP/cpp': { samples: 2, passed: 1, failed: 1, timedOut: 0, empty: 0, unscored: 0 },
      'MBXP/java': { samples: 1, passed: 0, failed: 0, timedOut: 0, empty: 0, unscored: 1 },
    });
    // 4 of the 8 evaluated rows; java is left out of the figure, as the reference leaves it.
    expect(report.metrics.mbxp).toBe(50);
    expect(report.categories.MBXP).toEqual({ samples: 9, correct: 4 });
    expect(report.verdicts.every((v: { status: string }) => v.status !== 'UNKNOWN')).toBe(true);
    expect(report.notes.join('\n')).toMatch(/left out of mbxp as it does: java 1/);
  });

  it('infinite loops time out; a language whose toolchain is missing makes mbxp UNKNOWN with a note', async () => {
    const rows = [PY_RIGHT, PY_LOOP, JS_RIGHT, JS_LOOP, RUBY];
    const { dir, file, tokenizer, ids } = setup(rows);
    const log = writeLog(
      join(dir, 'log.json'),
      ids.map((id, i) => ({ seq: i, qsl: i, ids: [id] })),
    );
    // A PATH with only what the sandbox and the JavaScript rows need: no ruby, whatever this machine has.
    // Open to the sandbox's uid (mkdtemp makes 0700), or node there would be out of its reach.
    chmodSync(dir, 0o755);
    const bin = join(dir, 'bin');
    mkdirSync(bin, { mode: 0o755 });
    for (const t of ['node', 'unshare', 'prlimit', 'setpriv']) {
      const p = findTool(t);
      if (p) symlinkSync(p, join(bin, t));
    }
    const path = process.env.PATH;
    process.env.PATH = bin;
    let report: Awaited<ReturnType<typeof scoreAccuracy>>;
    try {
      report = await scoreAccuracy({
        log,
        dataset: file,
        tokenizer,
        tokenizerConfig: null,
        benchmark: 'mixtral-8x7b',
        keepSamples: true,
        codeExecution: { testTimeoutSec: 1, workers: 2 },
      });
    } finally {
      process.env.PATH = path;
    }
    expect(report.datasets?.['MBXP/python']).toMatchObject({ samples: 2, passed: 1, timedOut: 1 });
    expect(report.datasets?.['MBXP/javascript']).toMatchObject({ samples: 2, passed: 1, timedOut: 1 });
    expect(report.datasets?.['MBXP/ruby']).toMatchObject({ samples: 1, unscored: 1 });
    const v = report.verdicts.find((x) => x.metric === 'mbxp')!;
    expect(v.status).toBe('UNKNOWN');
    expect(v.value).toBe(50);
    expect(v.note).toMatch(/1 MBXP rows not run \(ruby is not installed: 1\)/);
    const loop = report.samples?.find((s) => s.qslIdx === 1);
    expect(loop?.execution).toMatch(/^timeout/);
  });

  it.runIf(process.getuid?.() === 0)(
    "a tool the sandbox's uid cannot reach makes its rows not run, not failed",
    async () => {
      const rows = [PY_RIGHT, JS_RIGHT];
      const { dir, file, tokenizer, ids } = setup(rows);
      const log = writeLog(
        join(dir, 'log.json'),
        ids.map((id, i) => ({ seq: i, qsl: i, ids: [id] })),
      );
      // node reached only through a directory root alone may enter, as under /root or ~/.nvm.
      const priv = join(dir, 'private');
      mkdirSync(priv, { mode: 0o700 });
      symlinkSync(findTool('node')!, join(priv, 'node'));
      const path = process.env.PATH;
      process.env.PATH = `${priv}:${path}`;
      let report: Awaited<ReturnType<typeof scoreAccuracy>>;
      try {
        report = await scoreAccuracy({
          log,
          dataset: file,
          tokenizer,
          tokenizerConfig: null,
          benchmark: 'mixtral-8x7b',
          codeExecution: { testTimeoutSec: 5 },
        });
      } finally {
        process.env.PATH = path;
      }
      expect(report.datasets?.['MBXP/python']).toMatchObject({ samples: 1, passed: 1 });
      expect(report.datasets?.['MBXP/javascript']).toMatchObject({ samples: 1, passed: 0, failed: 0, unscored: 1 });
      const v = report.verdicts.find((x) => x.metric === 'mbxp')!;
      expect(v.status).toBe('UNKNOWN');
      expect(v.note).toContain(`node at ${join(priv, 'node')} cannot be run by the sandbox user (uid 65534): 1`);
    },
  );

  it('TypeScript is compiled as the reference compiles it: only tsc exit status 2 counts as compiled', async () => {
    const o = { testTimeoutSec: 20 };
    const run = (code: string) => runProgramJob(mbxpJob('typescript', 'add', code, TS_TEST, o) as ProgramJob, o);
    // Type errors (and the missing Node types) still write main.js: compiled, then run.
    const typed = await run('const add = function (a: number, b: number) : string {\n  return a + b;\n}\n');
    expect(typed.status).toBe('passed');
    // A program tsc accepts without any error exits 0, which the reference counts as not compiled.
    const clean = await runProgramJob(
      {
        files: { 'main.ts': 'const x: number = 1;\n' },
        steps: (mbxpJob('typescript', 'x', '', '', o) as ProgramJob).steps,
      },
      o,
    );
    expect(clean.status).toBe('failed');
    expect(clean.detail).toMatch(/^compile: exit status 0/);
  });

  it('a JavaScript program cannot reach a server on 127.0.0.1 (the same sandbox as LiveCodeBench)', async () => {
    let accepted = 0;
    const server = createServer((c) => {
      accepted++;
      c.destroy();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    try {
      const port = (server.address() as { port: number }).port;
      const code = `const s = require('net').connect(${port}, '127.0.0.1');\ns.on('connect', () => process.exit(0));\ns.on('error', () => process.exit(3));\n`;
      const r = await runProgramJob(
        { files: { 'main.js': code }, steps: [{ name: 'run', argv: [findTool('node')!, 'main.js'], timeoutSec: 5 }] },
        {},
      );
      expect(r.status).toBe('failed');
      expect(r.detail).toMatch(/exit status 3/);
      expect(accepted).toBe(0);
    } finally {
      await new Promise<void>((r) => server.close(() => r()));
    }
  });
});
